/**
 * Overview: the figures of GET /status, refreshed whenever the event stream moves (and every
 * 10 s, for the time since the last block), blocks/s measured from the block count over the last
 * minute, recent reorgs, and the node card when GET /api/node answers.
 */
import { api, followStream, probe } from "../api.js";
import { fmt, h, replace, table } from "../dom.js";

interface Status {
  status: string;
  tip: {
    block_height: number | null;
    index_block_hash: string | null;
    burn_block_height: number | null;
    finalized_height: number | null;
  };
  lag: {
    seconds_since_last_block: number | null;
    burn_blocks: number | null;
    journal_backlog: number;
    last_error: string | null;
  };
  counts: Record<string, number>;
}

interface Reorg {
  id: number | string;
  detected_at: string;
  fork_point_height: number;
  orphaned_from_height: number;
  orphaned_to_height: number;
  orphaned_blocks: unknown[];
  below_finality: boolean;
}

/** A filter value no event carries: the list then reads to the tip and returns every reorg record (newest 100). */
const NO_EVENTS = "/v1/streams/events?asset_identifier=console.none%3A%3Anone&limit=1";

function figure(label: string, key: string, value: unknown, hint = ""): HTMLElement {
  return h(
    "div",
    { class: "figure", attrs: { title: hint || undefined } },
    h("span", { class: "label" }, label),
    h("span", { class: "value", attrs: { "data-figure": key } }, fmt(value)),
  );
}

export async function renderOverview(root: HTMLElement, _args: string[], signal: AbortSignal): Promise<void> {
  const figures = h("section", { class: "figures", attrs: { "data-testid": "figures" } });
  const nodeCard = h("section", { class: "card", attrs: { hidden: true, "data-testid": "node-card" } });
  const reorgBox = h("section", { class: "card" });
  const live = h("span", { class: "muted", attrs: { "data-testid": "live" } }, "connecting…");
  replace(root, h("h1", null, "Overview ", live), figures, nodeCard, h("h2", null, "Recent reorgs"), reorgBox);

  const samples: { at: number; blocks: number }[] = [];
  const reorgs = new Map<string, Reorg>();

  const blocksPerSecond = (): number | null => {
    if (samples.length < 2) return null;
    const first = samples[0];
    const last = samples[samples.length - 1];
    const seconds = (last.at - first.at) / 1000;
    return seconds > 0 ? (last.blocks - first.blocks) / seconds : null;
  };

  const drawStatus = (s: Status) => {
    samples.push({ at: Date.now(), blocks: s.counts.blocks ?? 0 });
    while (samples.length > 2 && samples[0].at < Date.now() - 60_000) samples.shift();
    const c = s.counts;
    replace(
      figures,
      figure("Tip height", "tip.block_height", s.tip.block_height),
      figure("Finalized height", "tip.finalized_height", s.tip.finalized_height),
      figure("Burn chain tip seen", "tip.burn_block_height", s.tip.burn_block_height),
      figure("Lag behind the burn chain (blocks)", "lag.burn_blocks", s.lag.burn_blocks),
      figure("Seconds since last block", "lag.seconds_since_last_block", s.lag.seconds_since_last_block),
      figure("Blocks/s (last minute)", "blocks_per_second", blocksPerSecond()),
      figure("Journal backlog", "lag.journal_backlog", s.lag.journal_backlog),
      figure("Journal pending", "counts.journal_pending", c.journal_pending),
      figure("Malformed payloads", "counts.malformed_payloads", c.malformed_payloads),
      figure("Blocks", "counts.blocks", c.blocks),
      figure("Canonical transactions", "counts.canonical_transactions", c.canonical_transactions),
      figure("Canonical events", "counts.canonical_events", c.canonical_events),
      figure("Reorgs", "counts.reorgs", c.reorgs),
      figure("Reorgs below finality", "counts.reorgs_below_finality", c.reorgs_below_finality),
      figure("Status", "status", s.status),
      s.lag.last_error
        ? h("p", { class: "error wide", attrs: { "data-figure": "lag.last_error" } }, s.lag.last_error)
        : null,
    );
  };

  const drawReorgs = () => {
    const list = [...reorgs.values()].sort((a, b) => Number(b.id) - Number(a.id)).slice(0, 20);
    if (list.length === 0) return replace(reorgBox, h("p", { class: "muted" }, "No reorg recorded."));
    replace(
      reorgBox,
      table(
        ["detected_at", "fork_point_height", "depth", "orphaned_from_height", "orphaned_to_height", "below_finality"],
        list.map((r) => ({ ...r, depth: r.orphaned_to_height - r.orphaned_from_height + 1 })),
        undefined,
        { attrs: { "data-testid": "reorgs" } },
      ),
    );
  };

  const drawNode = (body: unknown) => {
    // GET /api/node (runtime/observer/node-report.ts).
    const n = body as {
      observer?: { paths?: Record<string, unknown> };
      last_block?: Record<string, unknown> | null;
      malformed_payloads?: number;
      node?: { configured?: boolean; reachable?: boolean; gap?: number | null; error?: string; info?: unknown };
    };
    const node = n.node ?? { configured: false };
    nodeCard.hidden = false;
    replace(
      nodeCard,
      h("h2", null, "Node"),
      h(
        "dl",
        null,
        h("dt", null, "Reachable"),
        h(
          "dd",
          { attrs: { "data-figure": "node.reachable" } },
          node.configured ? fmt(node.reachable) : "not configured",
        ),
        node.gap !== undefined
          ? [
              h("dt", null, "Gap (node tip − indexed)"),
              h("dd", { attrs: { "data-figure": "node.gap" } }, fmt(node.gap)),
            ]
          : null,
        node.error ? [h("dt", null, "Error"), h("dd", null, node.error)] : null,
        n.last_block
          ? [h("dt", null, "Last block sent"), h("dd", null, h("code", null, JSON.stringify(n.last_block)))]
          : null,
        n.observer?.paths
          ? [h("dt", null, "Observer paths"), h("dd", null, h("code", null, JSON.stringify(n.observer.paths)))]
          : null,
        node.info ? [h("dt", null, "Node info"), h("dd", null, h("code", null, JSON.stringify(node.info)))] : null,
      ),
    );
  };

  let pending = false;
  const refresh = async () => {
    if (pending || signal.aborted) return;
    pending = true;
    try {
      drawStatus(await api<Status>("GET", "/status", undefined, { signal }));
      const node = await probe("/api/node", signal);
      if (node.status === 200) drawNode(node.body);
      else nodeCard.hidden = true;
    } catch (err) {
      if (!signal.aborted) live.textContent = `status failed: ${String(err)}`;
    } finally {
      pending = false;
    }
  };
  const loadReorgs = async () => {
    const page = await api<{ reorgs: Reorg[] }>("GET", NO_EVENTS, undefined, { signal });
    for (const r of page.reorgs) reorgs.set(String(r.id), r);
    drawReorgs();
  };

  await Promise.all([refresh(), loadReorgs()]);
  // Live: every event frame may change the tip; refresh at most once a second.
  let scheduled: ReturnType<typeof setTimeout> | null = null;
  followStream(
    "/v1/streams/events/stream",
    (frame) => {
      live.textContent = "live";
      if (frame.event === "reorg") {
        const r = JSON.parse(frame.data) as Reorg;
        reorgs.set(String(r.id), r);
        drawReorgs();
      }
      if (!scheduled) {
        scheduled = setTimeout(() => {
          scheduled = null;
          void refresh();
        }, 1000);
      }
    },
    signal,
  );
  live.textContent = "live";
  const timer = setInterval(() => void refresh(), 10_000);
  signal.addEventListener("abort", () => {
    clearInterval(timer);
    if (scheduled) clearTimeout(scheduled);
  });
}
