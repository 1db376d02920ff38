/**
 * Webhooks: the list with status and circuit state, creating one (the API validates the triggers
 * and its answer is shown as is), and per webhook pause/resume, secret rotation, a test delivery,
 * replay, the delivery log and the dead letters with requeue.
 */
import { ApiError, api } from "../api.js";
import { errorLine, fmt, h, replace, table } from "../dom.js";

interface WebhookRecord {
  id: string;
  name: string;
  kind: "chain" | "subgraph";
  url: string;
  format: string;
  status: string;
  triggers?: unknown[];
  startHeight?: number;
  subgraphName?: string;
  tableName?: string;
  filter?: unknown;
  circuit: { state: string; consecutiveFailures: number; openedAt: string | null; retryAt: string | null };
  [field: string]: unknown;
}

const FORMATS = ["standard-webhooks", "raw", "cloudevents", "inngest", "trigger", "cloudflare"];
const base = (w: string) => `/api/webhooks/${encodeURIComponent(w)}`;

function circuitBadge(c: WebhookRecord["circuit"]): HTMLElement {
  const cls = c.state === "closed" ? "good" : c.state === "open" ? "bad" : "";
  return h("span", { class: `badge ${cls}`, attrs: { "data-testid": "circuit" } }, c.state);
}

/** An API refusal as the operator needs it: message, code, and the details the API gave. */
function refusal(err: unknown): HTMLElement {
  if (!(err instanceof ApiError)) return errorLine(err);
  return h(
    "div",
    { class: "error", attrs: { role: "alert", "data-testid": "api-error" } },
    h("p", null, err.message),
    err.details ? h("pre", null, JSON.stringify(err.details, null, 2)) : null,
  );
}

export async function renderWebhooks(root: HTMLElement, args: string[], signal: AbortSignal): Promise<void> {
  if (args[0]) return renderWebhook(root, args[0], signal);
  const listBox = h("section", null, h("p", { class: "muted" }, "loading…"));
  const loadList = async () => {
    const { webhooks } = await api<{ webhooks: WebhookRecord[] }>("GET", "/api/webhooks", undefined, { signal });
    if (webhooks.length === 0) return replace(listBox, h("p", { class: "muted" }, "No webhook yet."));
    replace(
      listBox,
      table(
        ["name", "kind", "url", "status", "circuit", "failures"],
        webhooks,
        (row, column) => {
          const w = row as WebhookRecord;
          if (column === "name") return h("a", { attrs: { href: `#/webhooks/${encodeURIComponent(w.id)}` } }, w.name);
          if (column === "circuit") return circuitBadge(w.circuit);
          if (column === "failures") return fmt(w.circuit.consecutiveFailures);
          return fmt(w[column]);
        },
        { attrs: { "data-testid": "webhook-list" } },
      ),
    );
  };
  replace(root, h("h1", null, "Webhooks"), listBox, h("h2", null, "Create a webhook"), createForm(signal, loadList));
  await loadList();
}

function createForm(signal: AbortSignal, onCreated: () => Promise<void>): HTMLElement {
  const name = h("input", { attrs: { "aria-label": "Name", placeholder: "big-sbtc-moves", required: true } });
  const url = h("input", { attrs: { "aria-label": "URL", placeholder: "https://example.com/hooks", size: 48 } });
  const format = h(
    "select",
    { attrs: { "aria-label": "Format" } },
    FORMATS.map((f) => h("option", { attrs: { value: f } }, f)),
  );
  const kind = h(
    "select",
    { attrs: { "aria-label": "Kind" } },
    h("option", { attrs: { value: "chain" } }, "chain (triggers)"),
    h("option", { attrs: { value: "subgraph" } }, "subgraph (table rows)"),
  );
  const triggers = h("textarea", {
    value: '[{ "type": "stx_transfer", "minAmount": "1000000" }]',
    attrs: { rows: 4, "aria-label": "Triggers", spellcheck: "false" },
  });
  const subgraphName = h("input", { attrs: { "aria-label": "Subgraph", placeholder: "asset-holdings" } });
  const tableName = h("input", { attrs: { "aria-label": "Table", placeholder: "holdings" } });
  const filter = h("textarea", { value: "{}", attrs: { rows: 2, "aria-label": "Filter", spellcheck: "false" } });
  const chainFields = h("div", null, h("label", null, "Triggers (JSON array) ", triggers));
  const subgraphFields = h(
    "div",
    { attrs: { hidden: true } },
    h("div", { class: "row" }, h("label", null, "Subgraph ", subgraphName), h("label", null, "Table ", tableName)),
    h("label", null, "Filter (JSON object) ", filter),
  );
  kind.addEventListener("change", () => {
    chainFields.hidden = kind.value !== "chain";
    subgraphFields.hidden = kind.value !== "subgraph";
  });
  const result = h("div", { attrs: { "data-testid": "create-result" } });
  const create = async () => {
    const body: Record<string, unknown> = { name: name.value.trim(), url: url.value.trim(), format: format.value };
    try {
      if (kind.value === "chain") body.triggers = JSON.parse(triggers.value);
      else {
        body.subgraphName = subgraphName.value.trim();
        body.tableName = tableName.value.trim();
        body.filter = JSON.parse(filter.value || "{}");
      }
    } catch (err) {
      return replace(result, errorLine(`not JSON: ${String(err)}`));
    }
    try {
      const created = await api<WebhookRecord & { secret: string }>("POST", "/api/webhooks", body, { signal });
      replace(
        result,
        h("p", { class: "ok" }, `Created ${created.name} (${created.id}). Its signing secret is shown this once:`),
        h("pre", { attrs: { "data-testid": "new-secret" } }, created.secret),
        h(
          "a",
          { attrs: { href: `#/webhooks/${encodeURIComponent(created.id)}`, "data-testid": "open-created" } },
          "Open it",
        ),
      );
      await onCreated();
    } catch (err) {
      replace(result, refusal(err));
    }
  };
  return h(
    "section",
    { class: "card", attrs: { "data-testid": "create-webhook" } },
    h("div", { class: "row" }, h("label", null, "Name ", name), h("label", null, "URL ", url)),
    h("div", { class: "row" }, h("label", null, "Format ", format), h("label", null, "Kind ", kind)),
    chainFields,
    subgraphFields,
    h(
      "div",
      { class: "row" },
      h("button", { attrs: { type: "button", "data-testid": "create" }, on: { click: () => void create() } }, "Create"),
    ),
    result,
  );
}

async function renderWebhook(root: HTMLElement, id: string, signal: AbortSignal): Promise<void> {
  const info = h("section", { class: "card", attrs: { "data-testid": "webhook" } });
  const actionResult = h("div", { attrs: { "data-testid": "action-result" } });
  const deliveries = h("section", { attrs: { "data-testid": "deliveries" } });
  const dead = h("section", { attrs: { "data-testid": "dead-letters" } });
  const fromBlock = h("input", { attrs: { type: "number", min: 0, "aria-label": "From block", size: 8 } });
  const toBlock = h("input", { attrs: { type: "number", min: 0, "aria-label": "To block", size: 8 } });
  let record: WebhookRecord | null = null;

  /** Calls a webhook action; `showAnswer` prints the API's answer (a test's outcome, a replay's counts, a new secret). */
  const action = async (label: string, method: string, path: string, body: unknown = {}, showAnswer = true) => {
    try {
      const answer = await api<Record<string, unknown>>(method, path, body, { signal });
      replace(
        actionResult,
        h("p", { class: "ok" }, showAnswer ? `${label}:` : label),
        showAnswer ? h("pre", null, JSON.stringify(answer, null, 2)) : null,
      );
      await refresh();
    } catch (err) {
      replace(actionResult, refusal(err));
    }
  };
  const button = (label: string, testid: string, onClick: () => void, secondary = true) =>
    h(
      "button",
      { class: secondary ? "secondary" : "", attrs: { type: "button", "data-testid": testid }, on: { click: onClick } },
      label,
    );

  const drawInfo = (w: WebhookRecord) => {
    const target =
      w.kind === "chain"
        ? [
            h("dt", null, "Triggers"),
            h("dd", null, h("code", null, JSON.stringify(w.triggers))),
            h("dt", null, "Start height"),
            h("dd", null, fmt(w.startHeight)),
          ]
        : [
            h("dt", null, "Table"),
            h("dd", null, `${w.subgraphName}/${w.tableName}`),
            h("dt", null, "Filter"),
            h("dd", null, h("code", null, JSON.stringify(w.filter))),
          ];
    replace(
      info,
      h(
        "dl",
        null,
        h("dt", null, "Id"),
        h("dd", null, h("code", null, w.id)),
        h("dt", null, "URL"),
        h("dd", null, w.url),
        h("dt", null, "Kind / format"),
        h("dd", null, `${w.kind} / ${w.format}`),
        h("dt", null, "Status"),
        h("dd", { attrs: { "data-testid": "status" } }, w.status),
        h("dt", null, "Circuit"),
        h(
          "dd",
          null,
          circuitBadge(w.circuit),
          ` ${w.circuit.consecutiveFailures} consecutive failures`,
          w.circuit.retryAt ? `, probe at ${w.circuit.retryAt}` : "",
        ),
        target,
        h("dt", null, "Attempts / timeout / concurrency"),
        h(
          "dd",
          null,
          `${fmt(w.maxAttempts)} / ${fmt(w.timeoutMs)} ms / ${fmt(w.concurrency)}${w.ordered ? " (ordered)" : ""}`,
        ),
        w.previousSecretExpiresAt
          ? [h("dt", null, "Previous secret valid until"), h("dd", null, String(w.previousSecretExpiresAt))]
          : null,
      ),
      h(
        "div",
        { class: "row" },
        w.status === "paused"
          ? button("Resume", "resume", () => void action("Resumed.", "POST", `${base(w.id)}/resume`, {}, false))
          : button(
              "Pause",
              "pause",
              () =>
                void action(
                  "Paused: deliveries are recorded and sent on resume.",
                  "POST",
                  `${base(w.id)}/pause`,
                  {},
                  false,
                ),
            ),
        button("Rotate secret", "rotate", () => {
          if (confirm("Rotate the signing secret? The old one keeps signing for one day.")) {
            void action("New secret (shown this once)", "POST", `${base(w.id)}/rotate-secret`);
          }
        }),
        button("Send test", "send-test", () => void action("Test delivery", "POST", `${base(w.id)}/test`)),
        h("label", null, "Replay from ", fromBlock, " to ", toBlock),
        button(
          "Replay",
          "replay",
          () =>
            void action("Replay", "POST", `${base(w.id)}/replay`, {
              fromBlock: Number(fromBlock.value),
              toBlock: Number(toBlock.value),
            }),
        ),
      ),
    );
  };

  const drawDeliveries = (list: Record<string, unknown>[]) => {
    replace(
      deliveries,
      list.length === 0
        ? h("p", { class: "muted" }, "No attempt yet.")
        : table(
            [
              "attemptedAt",
              "type",
              "deliveryId",
              "attempt",
              "success",
              "responseStatus",
              "latencyMs",
              "responseExcerpt",
              "error",
              "deliveryStatus",
            ],
            list,
            undefined,
            {
              attrs: { "data-testid": "delivery-log" },
            },
          ),
    );
  };
  const drawDead = (list: Record<string, unknown>[]) => {
    replace(
      dead,
      list.length === 0
        ? h("p", { class: "muted" }, "No dead letter.")
        : [
            button(
              "Requeue all",
              "requeue-all",
              () => void action("Requeued", "POST", `${base(id)}/dead-letters/requeue`),
            ),
            table(["diedAt", "type", "deliveryId", "attempts", "lastStatus", "lastError", "requeue"], list, (row, c) =>
              c === "requeue"
                ? button(
                    "Requeue",
                    "requeue",
                    () =>
                      void action(
                        "Requeued",
                        "POST",
                        `${base(id)}/dead-letters/${encodeURIComponent(String(row.deliveryId))}/requeue`,
                      ),
                  )
                : fmt(row[c]),
            ),
          ],
    );
  };

  const refresh = async () => {
    const [w, d, dl] = await Promise.all([
      api<WebhookRecord>("GET", base(id), undefined, { signal }),
      api<{ deliveries: Record<string, unknown>[] }>("GET", `${base(id)}/deliveries?limit=50`, undefined, { signal }),
      api<{ deadLetters: Record<string, unknown>[] }>("GET", `${base(id)}/dead-letters?limit=50`, undefined, {
        signal,
      }),
    ]);
    record = w;
    drawInfo(w);
    drawDeliveries(d.deliveries);
    drawDead(dl.deadLetters);
  };

  replace(
    root,
    h("h1", null, h("a", { attrs: { href: "#/webhooks" } }, "Webhooks"), ` / ${id}`),
    info,
    actionResult,
    h("h2", null, "Delivery log ", h("span", { class: "muted" }, "(every attempt, newest first; refreshed every 3 s)")),
    deliveries,
    h("h2", null, "Dead letters"),
    dead,
  );
  await refresh();
  if (record) root.querySelector("h1")?.append(h("span", { class: "muted" }, ` ${(record as WebhookRecord).name}`));
  const timer = setInterval(() => void refresh().catch(() => undefined), 3000);
  signal.addEventListener("abort", () => clearInterval(timer));
}
