/**
 * Chain: the Index (events by height range) and Streams (events by type, contract, address,
 * asset) lists with their filters and keyset paging, and a transaction view with its events.
 */
// The service's own list (pure data, bundled with the page).
import { EVENT_TYPES } from "../../../runtime/chain/types.js";
import { api } from "../api.js";
import { callLine } from "../call-line.js";
import { errorLine, fmt, h, replace, table } from "../dom.js";

const COLUMNS = [
  "cursor",
  "event_type",
  "tx_id",
  "contract_id",
  "asset_identifier",
  "sender",
  "recipient",
  "amount",
  "finalized",
];

interface ChainEvent {
  cursor: string;
  block_height: number;
  block_hash: string;
  index_block_hash: string;
  tx_id: string;
  tx_index: number;
  event_type: string;
  finalized: boolean;
  payload: unknown;
  [field: string]: unknown;
}
interface EventPage {
  events: ChainEvent[];
  next_cursor: string;
  tip: { block_height: number | null; finalized_height: number | null };
}

const txLink = (e: ChainEvent) =>
  h("a", { class: "mono", attrs: { href: `#/chain/tx/${encodeURIComponent(e.tx_id)}` } }, `${e.tx_id.slice(0, 12)}…`);

function eventTable(events: ChainEvent[], testid: string): HTMLTableElement {
  return table(COLUMNS, events, (row, c) => (c === "tx_id" ? txLink(row as ChainEvent) : fmt(row[c])), {
    attrs: { "data-testid": testid },
  });
}

export async function renderChain(root: HTMLElement, args: string[], signal: AbortSignal): Promise<void> {
  if (args[0] === "tx" && args[1]) return renderTransaction(root, args[1], signal);

  const surface = h(
    "select",
    { attrs: { "aria-label": "Surface" } },
    h("option", { attrs: { value: "streams" } }, "Streams (by type, contract, address)"),
    h("option", { attrs: { value: "index" } }, "Index (by height range)"),
  );
  const input = (label: string, placeholder = "") => h("input", { attrs: { "aria-label": label, placeholder } });
  const typeBoxes = EVENT_TYPES.map((t) => ({ type: t, box: h("input", { attrs: { type: "checkbox", value: t } }) }));
  const streamFields = {
    contract_id: input("contract_id", "SP….contract"),
    sender: input("sender", "principal"),
    recipient: input("recipient", "principal"),
    asset_identifier: input("asset_identifier", "SP….token::name"),
  };
  const fromHeight = h("input", { attrs: { type: "number", min: 0, "aria-label": "from_height" } });
  const toHeight = h("input", { attrs: { type: "number", min: 0, "aria-label": "to_height" } });
  const limit = h("input", { value: "50", attrs: { type: "number", min: 1, max: 1000, "aria-label": "limit" } });
  const streamsBox = h(
    "div",
    null,
    h(
      "div",
      { class: "row" },
      "types ",
      typeBoxes.map(({ type, box }) => h("label", null, box, ` ${type}`)),
    ),
    h(
      "div",
      { class: "row" },
      Object.entries(streamFields).map(([name, el]) => h("label", null, `${name} `, el)),
    ),
  );
  const indexBox = h(
    "div",
    { class: "row", attrs: { hidden: true } },
    h("label", null, "from_height ", fromHeight),
    h("label", null, "to_height ", toHeight),
  );
  surface.addEventListener("change", () => {
    streamsBox.hidden = surface.value !== "streams";
    indexBox.hidden = surface.value !== "index";
  });
  const out = h("section", { attrs: { "data-testid": "events" } });

  const urlFor = (cursor: string): string => {
    const params = new URLSearchParams();
    if (surface.value === "streams") {
      const types = typeBoxes.filter((t) => t.box.checked).map((t) => t.type);
      if (types.length) params.set("types", types.join(","));
      for (const [name, el] of Object.entries(streamFields)) if (el.value.trim()) params.set(name, el.value.trim());
    } else {
      if (fromHeight.value !== "") params.set("from_height", fromHeight.value);
      if (toHeight.value !== "") params.set("to_height", toHeight.value);
    }
    if (limit.value !== "") params.set("limit", limit.value);
    if (cursor !== "") params.set("cursor", cursor);
    const path = surface.value === "streams" ? "/v1/streams/events" : "/v1/index/events";
    const query = params.toString();
    return query ? `${path}?${query}` : path;
  };

  const run = async (cursor: string) => {
    const url = urlFor(cursor);
    replace(out, callLine(url), h("p", { class: "muted" }, "loading…"));
    try {
      const page = await api<EventPage>("GET", url, undefined, { signal });
      const full = page.events.length === Number(limit.value || 0);
      replace(
        out,
        callLine(url),
        h(
          "p",
          null,
          `${page.events.length} events · tip ${fmt(page.tip.block_height)}, finalized ${fmt(page.tip.finalized_height)}`,
        ),
        eventTable(page.events, "event-list"),
        h(
          "div",
          { class: "row" },
          h(
            "button",
            {
              class: "secondary",
              attrs: { type: "button", "data-testid": "next-events" },
              on: { click: () => void run(page.next_cursor) },
            },
            full ? "Next page" : "Check for newer events",
          ),
          h("span", { class: "muted" }, `next_cursor ${page.next_cursor || "(start)"}`),
        ),
      );
    } catch (err) {
      replace(out, callLine(url), errorLine(err));
    }
  };

  replace(
    root,
    h("h1", null, "Chain events"),
    h(
      "section",
      { class: "card" },
      h("div", { class: "row" }, h("label", null, "Surface ", surface), h("label", null, "limit ", limit)),
      streamsBox,
      indexBox,
      h(
        "div",
        { class: "row" },
        h(
          "button",
          { attrs: { type: "button", "data-testid": "run-events" }, on: { click: () => void run("") } },
          "Show events",
        ),
      ),
    ),
    h(
      "form",
      {
        class: "row",
        on: {
          submit: (e) => {
            e.preventDefault();
            const id = (e.target as HTMLFormElement).querySelector("input")?.value.trim();
            if (id) location.hash = `#/chain/tx/${encodeURIComponent(id)}`;
          },
        },
      },
      h(
        "label",
        null,
        "Transaction ",
        h("input", { attrs: { "aria-label": "Transaction id", placeholder: "0x…", size: 70 } }),
      ),
      h("button", { class: "secondary", attrs: { type: "submit" } }, "Open"),
    ),
    out,
  );
  await run("");
}

/** One transaction: where it is (from its proof route) and every event of it in its block. */
async function renderTransaction(root: HTMLElement, txId: string, signal: AbortSignal): Promise<void> {
  replace(
    root,
    h("h1", null, h("a", { attrs: { href: "#/chain" } }, "Chain"), " / transaction"),
    h("p", { class: "muted" }, "loading…"),
  );
  try {
    const proof = await api<{
      tx_id: string;
      tx_index: number;
      block: { index_block_hash: string; block_hash: string; block_height: number; burn_block_height: number };
    }>("GET", `/v1/index/transactions/${encodeURIComponent(txId)}/proof`, undefined, { signal });
    const height = proof.block.block_height;
    const events: ChainEvent[] = [];
    let cursor = "";
    let url = "";
    for (;;) {
      url = `/v1/index/events?from_height=${height}&to_height=${height}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = await api<EventPage>("GET", url, undefined, { signal });
      events.push(...page.events.filter((e) => e.tx_id === proof.tx_id));
      if (page.events.length < 1000) break;
      cursor = page.next_cursor;
    }
    replace(
      root,
      h("h1", null, h("a", { attrs: { href: "#/chain" } }, "Chain"), " / transaction"),
      h(
        "section",
        { class: "card", attrs: { "data-testid": "transaction" } },
        h(
          "dl",
          null,
          h("dt", null, "Transaction"),
          h("dd", { class: "mono" }, proof.tx_id),
          h("dt", null, "Block height"),
          h("dd", { attrs: { "data-testid": "tx-height" } }, String(height)),
          h("dt", null, "Index in block"),
          h("dd", null, String(proof.tx_index)),
          h("dt", null, "Block hash"),
          h("dd", { class: "mono" }, proof.block.block_hash),
          h("dt", null, "Index block hash"),
          h("dd", { class: "mono" }, proof.block.index_block_hash),
          h("dt", null, "Burn block height"),
          h("dd", null, String(proof.block.burn_block_height)),
        ),
      ),
      h("h2", null, `Events (${events.length})`),
      callLine(url),
      events.length === 0
        ? h("p", { class: "muted" }, "This transaction emitted no event.")
        : table(
            ["cursor", "event_type", "contract_id", "asset_identifier", "sender", "recipient", "amount", "payload"],
            events,
            undefined,
            {
              attrs: { "data-testid": "tx-events" },
            },
          ),
    );
  } catch (err) {
    root.append(errorLine(err));
  }
}
