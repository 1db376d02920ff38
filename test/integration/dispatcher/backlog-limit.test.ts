/**
 * WEBHOOK_MAX_PENDING bounds live deliveries (README "Webhooks", runtime/dispatcher/README.md):
 * with a limit of 5, a webhook whose endpoint fails (500, ordered; from the third block) and one whose endpoint is slow
 * never have more than 5 delivery rows while a simulated chain with won forks keeps coming; what
 * does not fit is held and shows in GET /api/webhooks/:webhook and GET /status. Meanwhile a
 * healthy webhook receives every block's deliveries before the next block. Once the endpoints
 * recover, each webhook's receiver, folding deliveries in arrival order (applies add, rollbacks
 * remove), ends with exactly the canonical committed events its triggers match — computed here
 * from the posted blocks and the simulator's canonical chain; every rollback lists only applies
 * sent before it; the ordered webhook sees applies in block order, restarting at the fork point
 * after each rollback.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertRollbackBatch } from "../../../runtime/dispatcher/batch-store.js";
import { expandBatches } from "../../../runtime/dispatcher/expander.js";
import { createSubgraphOutbox } from "../../../runtime/dispatcher/subgraph-outbox.js";
import type { Service } from "../../../runtime/service.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { type Receiver, startReceiver } from "../../support/receiver.js";
import { postObserver, startTestService, waitFor } from "../../support/service.js";
import { foldChainDeliveries, outboxCount, webhookClient } from "../../support/webhooks.js";

const LIMIT = 5;
/** The node event types behind the webhooks' triggers (print_event matches contract events). */
const TRIGGERS = [{ type: "stx_transfer" }, { type: "ft_mint" }, { type: "nft_mint" }, { type: "print_event" }];
const NODE_TYPES = new Set(["stx_transfer_event", "ft_mint_event", "nft_mint_event", "contract_event"]);

// biome-ignore lint/suspicious/noExplicitAny: raw node payload JSON
type Raw = any;

let t: TestDb;
let svc: Service;
let stopped = false;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await createTestDb();
  svc = await startTestService(
    t.db,
    { WEBHOOK_ALLOW_PRIVATE: "true", NETWORK: "devnet", WEBHOOK_MAX_PENDING: String(LIMIT) },
    {
      dispatcher: {
        // Retries soon, and 30 attempts last well over the failing phase (no delivery dies).
        retry: { baseDelayMs: 100, maxDelayMs: 2000 },
        breaker: { failureThreshold: 5, cooldownMs: 300 },
        pollIntervalMs: 100,
      },
    },
  );
});

afterAll(async () => {
  if (!stopped) await svc?.stop();
  for (const r of receivers) await r.close();
  await t?.drop();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** Arrival order of a receiver's first successful delivery of each `webhook-id`. */
function firstArrivals(r: Receiver): { type: string; data: Raw }[] {
  const seen = new Set<string>();
  const out: { type: string; data: Raw }[] = [];
  for (const q of r.requests) {
    if (q.status === undefined || q.status < 200 || q.status >= 300) continue;
    const id = String(q.headers["webhook-id"]);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(JSON.parse(q.body));
  }
  return out;
}

/**
 * No batch waits for expansion and nothing of the webhook is pending or held (a block's share
 * beyond the limit is), in one statement: one snapshot, so a share moving from held to pending
 * meanwhile is seen in one place or the other.
 */
async function drained(webhookId: string): Promise<boolean> {
  const { rows } = await t.db.query<{ n: string }>(
    `SELECT (SELECT count(*) FROM control.webhook_batches)
          + (SELECT count(*) FROM control.webhook_outbox WHERE webhook_id = $1 AND status = 'pending')
          + (SELECT count(*) FROM control.webhook_held WHERE webhook_id = $1) AS n`,
    [webhookId],
  );
  return Number(rows[0].n) === 0;
}

/** GET /status. */
async function statusOf(): Promise<{ webhooks: Record<string, number | null> }> {
  const res = await fetch(`${svc.apiUrl}/status`);
  expect(res.status).toBe(200);
  return (await res.json()) as { webhooks: Record<string, number | null> };
}

/** Keys missing from `got` and keys it has beyond `want` (empty when equal). */
function setDiff(got: Set<string>, want: Set<string>): { missing: string[]; extra: string[] } {
  return { missing: [...want].filter((k) => !got.has(k)), extra: [...got].filter((k) => !want.has(k)) };
}
const none = { missing: [], extra: [] };

describe("WEBHOOK_MAX_PENDING on live deliveries", () => {
  it("holds a failing and a slow webhook at the limit through forks, then delivers everything in order", {
    timeout: 180_000,
  }, async () => {
    const { payloads, truth } = simulateChain({ seed: "backlog-limit", blocks: 16, eventsPerBlock: 6, forkRate: 0.3 });
    expect(truth.forks.filter((f) => f.outcome === "won").length).toBeGreaterThan(1);
    const requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    const blocks: Raw[] = requests.filter((r) => r.path === "/new_block").map((r) => JSON.parse(r.body));

    // The expectation: canonical committed events of the trigger types, as
    // `<block_hash>:<tx_id>:<event_index>` (event_index: the event's place in its block, by
    // transaction, then the node's event index), and every block's events' (height, place).
    const canonical = new Set(truth.canonical.map((b) => b.indexBlockHash));
    const expected = new Set<string>();
    const position = new Map<string, [number, number]>();
    for (const b of blocks) {
      const txIndex = new Map<string, number>(b.transactions.map((x: Raw) => [x.txid, x.tx_index]));
      const events = [...b.events].sort(
        (x: Raw, y: Raw) => (txIndex.get(x.txid) ?? 0) - (txIndex.get(y.txid) ?? 0) || x.event_index - y.event_index,
      );
      events.forEach((e: Raw, ordinal: number) => {
        const key = `${b.block_hash}:${e.txid}:${ordinal}`;
        position.set(key, [b.block_height, ordinal]);
        if (e.committed && NODE_TYPES.has(e.type) && canonical.has(b.index_block_hash)) expected.add(key);
      });
    }
    expect(expected.size).toBeGreaterThan(40);

    const api = webhookClient(svc.apiUrl);
    // Healthy for the first two blocks, then failing: the first won fork (at height 3 on this
    // seed) orphans a block whose first applies it was sent, and the rest it never was.
    const failing = await receiver();
    const slow = await receiver();
    slow.set({ delayMs: 150 });
    const healthy = await receiver();
    const create = async (name: string, r: Receiver, extra: Record<string, unknown>) => {
      const res = await api.create({ name, url: r.url, triggers: TRIGGERS, ...extra });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return String(res.body.id);
    };
    const failingId = await create("failing", failing, { ordered: true, maxAttempts: 30 });
    const slowId = await create("slow", slow, { concurrency: 2, maxAttempts: 30 });
    const healthyId = await create("healthy", healthy, { concurrency: 4 });

    // Delivery rows of the held webhooks, sampled all along.
    let maxRows = 0;
    let sampling = true;
    const sample = async () => {
      const n = Math.max(
        await outboxCount(t.db, "webhook_id = $1 AND status = 'pending'", [failingId]),
        await outboxCount(t.db, "webhook_id = $1 AND status = 'pending'", [slowId]),
      );
      maxRows = Math.max(maxRows, n);
    };
    const sampler = (async () => {
      while (sampling) {
        await sample();
        await new Promise((r) => setTimeout(r, 25));
      }
    })();

    let sawHeld = false;
    let blocksPosted = 0;
    try {
      for (const r of requests) {
        await postObserver(svc.observerUrl, r.path, r.body);
        if (r.path !== "/new_block") continue;
        await svc.idle();
        // The healthy webhook gets each block's deliveries before the next block (so it also
        // receives applies that a later fork orphans, and their rollbacks).
        await waitFor(() => drained(healthyId), { timeoutMs: 30_000 });
        if (++blocksPosted === 2) {
          await waitFor(() => drained(failingId), { timeoutMs: 30_000 });
          failing.set({ status: 500 });
        }
        await sample();
        if (!sawHeld) {
          const got = (await api.get(failingId)).body as { backlog: Record<string, number | null> };
          sawHeld = (got.backlog.heldBatches as number) > 0;
        }
      }
      // Still failing: everything the healthy webhook should have is there.
      expect(setDiff(foldChainDeliveries(healthy).applied, expected)).toEqual(none);
      expect(failing.requests.at(-1)?.status).toBe(500);

      // The backlog as the API shows it while held.
      const held = (await api.get(failingId)).body as { backlog: Record<string, number | null> };
      expect(held.backlog.pending).toBeGreaterThan(0);
      expect(held.backlog.pending).toBeLessThanOrEqual(LIMIT);
      expect(held.backlog.heldBatches).toBeGreaterThan(0);
      expect(held.backlog.heldDeliveries).toBeGreaterThan(0);
      expect(held.backlog.oldestPendingAgeSeconds).toEqual(expect.any(Number));
      const status = await statusOf();
      expect(status.webhooks.throttled_webhooks).toBeGreaterThanOrEqual(1);
      expect(status.webhooks.held_batches).toBeGreaterThan(0);
      expect(status.webhooks.held_deliveries).toBeGreaterThan(0);
      expect(status.webhooks.outstanding).toBeGreaterThan(0);
      expect(status.webhooks.oldest_pending_age_seconds).toEqual(expect.any(Number));
      expect(sawHeld).toBe(true);

      // Recovery.
      failing.set({ status: 200 });
      slow.set({ delayMs: 0 });
      await waitFor(async () => (await drained(failingId)) && (await drained(slowId)), {
        timeoutMs: 90_000,
        intervalMs: 100,
      });
    } finally {
      sampling = false;
      await sampler;
    }
    expect(maxRows).toBeLessThanOrEqual(LIMIT);
    expect(maxRows).toBe(LIMIT); // the held webhooks did reach the limit
    expect(await outboxCount(t.db, "status = 'dead'")).toBe(0);

    for (const [name, r] of [
      ["failing", failing],
      ["slow", slow],
      ["healthy", healthy],
    ] as const) {
      expect(setDiff(foldChainDeliveries(r).applied, expected), `${name}: the canonical events`).toEqual(none);
      // Each rollback lists only applies sent before it (answered or not: the receiver may have seen them).
      const sent = new Set<string>();
      for (const q of r.requests) {
        const d = JSON.parse(q.body);
        if (d.type !== "chain.reorg.rollback") {
          sent.add(`${d.data.tx_id}:${d.data.event.event_index}`);
          continue;
        }
        for (const o of d.data.orphaned as Raw[]) {
          expect(sent.has(`${o.tx_id}:${o.event.event_index}`), `${name}: rollback of an apply never sent`).toBe(true);
        }
      }
    }
    // Both the healthy webhook and the one held while the fork won received a rollback.
    expect(firstArrivals(healthy).some((d) => d.type === "chain.reorg.rollback")).toBe(true);
    expect(firstArrivals(failing).some((d) => d.type === "chain.reorg.rollback")).toBe(true);

    // The ordered webhook: applies in block order, restarting at the fork point after a rollback.
    let floor: [number, number] = [-1, -1];
    for (const d of firstArrivals(failing)) {
      if (d.type === "chain.reorg.rollback") {
        floor = [d.data.fork_point_height, -1];
        continue;
      }
      const at = position.get(`${d.data.block_hash}:${d.data.tx_id}:${d.data.event.event_index}`);
      expect(at, "an apply of a posted block").toBeDefined();
      const [height, ordinal] = at as [number, number];
      expect(
        height > floor[0] || (height === floor[0] && ordinal > floor[1]),
        `block order at ${height}:${ordinal}`,
      ).toBe(true);
      floor = [height, ordinal];
    }

    // Drained: the backlog figures are back to nothing.
    const after = (await api.get(failingId)).body as { backlog: unknown };
    expect(after.backlog).toEqual({ pending: 0, heldBatches: 0, heldDeliveries: 0, oldestPendingAgeSeconds: null });
    const status = await statusOf();
    expect(status.webhooks).toEqual({
      outstanding: 0,
      unexpanded_batches: 0,
      held_batches: 0,
      held_deliveries: 0,
      throttled_webhooks: 0,
      oldest_pending_age_seconds: null,
    });
  });
});

describe("held subgraph row changes across a reorg (the expander alone, limit 2)", () => {
  it("drops held forward changes of an orphaned block, keeps its compensating ones in order, and re-sends the block when it returns", async () => {
    await svc.stop(); // this part drives the expander by hand
    stopped = true;
    await t.reset();
    await t.db.query(
      `INSERT INTO control.webhooks (id, name, kind, url, format, subgraph_name, table_name, filter, start_height, timeout_ms, max_attempts, concurrency, secret_sealed)
       VALUES ('wh_sg', 'sg', 'subgraph', 'http://x', 'raw', 'asset-holdings', 'holdings', '{}', -1, 1000, 3, 1, 'v1:x:y:z')`,
    );
    const listener = createSubgraphOutbox();
    const block = { indexBlockHash: "0xb5", height: 5 };
    const change = (id: string, over: Record<string, unknown> = {}) => ({
      subgraph: "asset-holdings",
      table: "holdings",
      op: "created" as const,
      row: { _id: id, kind: "ft", amount: "10", holder: `SP${id}`, asset_identifier: "SP1.t::t" },
      txId: `0xt${id}`,
      eventIndex: 0,
      blockHeight: 5,
      indexBlockHash: "0xb5",
      reverted: false,
      ...over,
    });
    const forward = ["1", "2", "3"].map((id) => change(id));
    const expand = async () => {
      while ((await expandBatches(t.db, 5000, 2)).more);
    };
    const rows = async () =>
      (
        await t.db.query<{ tx_id: string; dedupe_kind: string; status: string; rolled_back: boolean }>(
          "SELECT tx_id, dedupe_kind, status, rolled_back FROM control.webhook_outbox ORDER BY id",
        )
      ).rows.map((r) => `${r.dedupe_kind}:${r.tx_id}:${r.status}${r.rolled_back ? ":rolled_back" : ""}`);
    const held = async () =>
      (await t.db.query<{ rows: unknown }>("SELECT rows FROM control.webhook_held ORDER BY id")).rows.flatMap((r) =>
        (typeof r.rows === "string" ? JSON.parse(r.rows) : r.rows).map(
          (x: { kind: string; txId: string }) => `${x.kind}:${x.txId}`,
        ),
      );
    const deliverAll = () =>
      t.db.query("UPDATE control.webhook_outbox SET status = 'delivered' WHERE status = 'pending'");

    // Three changes, limit 2: two queued, the third held.
    await t.db.transaction((q) => listener(q, forward, block));
    await expand();
    expect(await rows()).toEqual(["row:0xt1:pending", "row:0xt2:pending"]);
    expect(await held()).toEqual(["row:0xt3"]);

    // The block is orphaned: the queued changes are marked, the held one dropped; the compensating
    // changes wait behind the two queued ones (held: the webhook is at its limit).
    await t.db.transaction(async (q) => {
      await insertRollbackBatch(q, 5, ["0xb5"]);
      await listener(
        q,
        ["2", "1"].map((id) => change(id, { op: "deleted", eventIndex: -1, reverted: true })),
        block,
      );
    });
    await expand();
    expect(await rows()).toEqual(["row:0xt1:pending:rolled_back", "row:0xt2:pending:rolled_back"]);
    expect(await held()).toEqual(["revert:0xt2", "revert:0xt1"]);

    // Drained: the compensating changes go out, in order.
    await deliverAll();
    await expand();
    expect((await rows()).slice(2)).toEqual(["revert:0xt2:pending", "revert:0xt1:pending"]);
    expect(await held()).toEqual([]);

    // The block comes back: all three changes are sent again (the two re-armed, the dropped one anew).
    await deliverAll();
    await t.db.transaction((q) => listener(q, forward, block));
    await expand();
    expect(await held()).toEqual(["row:0xt3"]); // two re-armed in place, the third waits its turn
    await deliverAll();
    await expand();
    await deliverAll();
    const forwardRows = (await rows()).filter((r) => r.startsWith("row:"));
    expect(forwardRows.sort()).toEqual(["row:0xt1:delivered", "row:0xt2:delivered", "row:0xt3:delivered"]);
    expect(await held()).toEqual([]);
  });
});
