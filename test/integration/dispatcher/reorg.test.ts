/**
 * Reorgs and webhooks (SPEC.md "Reorg rollback data", "Events"; DESIGN.md §2, §5):
 * - the recorded mainnet reorg fixtures produce exactly the rollback deliveries an independent
 *   model of the fixture predicts (fork point, orphaned applies);
 * - on a simulated chain with many won forks, a receiver that folds deliveries in arrival order
 *   (applies add, rollbacks remove) ends with exactly the canonical events;
 * - subgraph webhooks: the engine's row changes and their compensating reverts, folded by `_id`,
 *   converge on the table; the outbox listener itself, fed hand-built RowChanges.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expandBatches } from "../../../runtime/dispatcher/expander.js";
import { createSubgraphOutbox } from "../../../runtime/dispatcher/subgraph-outbox.js";
import type { Service } from "../../../runtime/service.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import type { RowChange } from "../../../runtime/subgraphs/types.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../../support/fixtures.js";
import { type Receiver, startReceiver } from "../../support/receiver.js";
import { postObserver, startTestService } from "../../support/service.js";
import { foldChainDeliveries, outboxCount, waitForOutboxDrained, webhookClient } from "../../support/webhooks.js";

let t: TestDb;
let svc: Service | undefined;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await createTestDb();
});

afterAll(async () => {
  await svc?.stop();
  for (const r of receivers) await r.close();
  await t?.drop();
});

async function freshService(env: Record<string, string> = {}): Promise<Service> {
  await svc?.stop();
  await t.reset();
  svc = await startTestService(
    t.db,
    { WEBHOOK_ALLOW_PRIVATE: "true", ...env },
    { dispatcher: { pollIntervalMs: 100 } },
  );
  return svc;
}

/** Expands every recorded batch into outbox rows (what a dispatcher does). */
async function expandAll(db: TestDb["db"]): Promise<void> {
  while ((await expandBatches(db)).more);
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** Canonical committed events of `types` as `<block_hash>:<tx_id>:<event_index>` (what a receiver must end with). */
async function canonicalKeys(types: string[]): Promise<Set<string>> {
  const { rows } = await t.db.query<{ k: string }>(
    `SELECT b.block_hash || ':' || e.tx_id || ':' || e.event_index AS k
       FROM chain.events e JOIN chain.blocks b ON b.index_block_hash = e.index_block_hash
      WHERE e.canonical AND e.committed AND e.event_type = ANY($1::text[])`,
    [types],
  );
  return new Set(rows.map((r) => r.k));
}

// biome-ignore lint/suspicious/noExplicitAny: raw fixture JSON
type RawBlock = any;

interface ExpectedRollback {
  forkPoint: number;
  /** `<tx_id>|<sender>|<recipient>|<amount>` of the orphaned stx transfers, sorted. */
  orphaned: string[];
}

/**
 * Independent model of the fixture: replays arrivals; the tip moves to a strictly higher block;
 * a move whose parent is not the tip orphans the old ancestry above the common ancestor. Each such
 * switch is one expected rollback, at the common ancestor's height + 1 (README "Reorgs"), listing
 * the committed stx transfers of the orphaned blocks.
 */
function expectedRollbacks(requests: { path: string; body: string }[]): ExpectedRollback[] {
  const seen = new Map<string, RawBlock>();
  const out: ExpectedRollback[] = [];
  let tip: RawBlock | null = null;
  for (const r of requests) {
    if (r.path !== "/new_block") continue;
    const b = JSON.parse(r.body);
    if (seen.has(b.index_block_hash)) continue;
    seen.set(b.index_block_hash, b);
    if (!tip || b.parent_index_block_hash === tip.index_block_hash) {
      tip = b;
      continue;
    }
    if (b.block_height <= tip.block_height) continue;
    const newAncestry = new Set<string>();
    for (let x = b; x; x = seen.get(x.parent_index_block_hash)) newAncestry.add(x.index_block_hash);
    const orphanedBlocks: RawBlock[] = [];
    let x: RawBlock = tip;
    while (x && !newAncestry.has(x.index_block_hash)) {
      orphanedBlocks.push(x);
      x = seen.get(x.parent_index_block_hash);
    }
    if (orphanedBlocks.length && x) {
      const orphaned = orphanedBlocks.flatMap((ob) =>
        ob.events
          .filter((e: RawBlock) => e.committed && e.type === "stx_transfer_event")
          .map(
            (e: RawBlock) =>
              `${e.txid}|${e.stx_transfer_event.sender}|${e.stx_transfer_event.recipient}|${e.stx_transfer_event.amount}`,
          ),
      );
      out.push({ forkPoint: x.block_height + 1, orphaned: orphaned.sort() });
    }
    tip = b;
  }
  return out.filter((r) => r.orphaned.length > 0);
}

describe.skipIf(!hasFixtures)("recorded mainnet reorgs", () => {
  it.each(["mainnet-reorg-scenario1.tsv", "mainnet-reorg-scenario2.tsv"])(
    "%s: the rollbacks the fixture predicts",
    async (file) => {
      const service = await freshService({ NETWORK: "mainnet" });
      const r = await receiver();
      const api = webhookClient(service.apiUrl);
      const created = await api.create({ name: "stx", url: r.url, triggers: [{ type: "stx_transfer" }] });
      const requests = readReplayTsv(path.join(FIXTURES_DIR, "observer/stacks-blockchain-api", file));
      // One request at a time, each delivered before the next: every orphaned apply was seen.
      for (const q of requests) {
        await postObserver(service.observerUrl, q.path, q.body);
        await service.idle();
        await waitForOutboxDrained(t.db, String(created.body.id));
      }
      const { applied, rollbacks } = foldChainDeliveries(r);
      const want = expectedRollbacks(requests);
      expect(rollbacks.map((d) => d.fork_point_height)).toEqual(want.map((w) => w.forkPoint));
      rollbacks.forEach((d, i) => {
        expect(d.action).toBe("rollback");
        expect(d.truncated).toBe(false);
        const got = (
          d.orphaned as { tx_id: string; event: { type: string; tx_id: string; data: Record<string, string> } }[]
        ).map((o) => {
          expect(o.event.type).toBe("stx_transfer_event");
          expect(o.event.tx_id).toBe(o.tx_id);
          expect(o.event).not.toHaveProperty("trigger");
          return `${o.tx_id}|${o.event.data.sender}|${o.event.data.recipient}|${o.event.data.amount}`;
        });
        expect(got.sort()).toEqual(want[i].orphaned);
      });
      expect(applied).toEqual(await canonicalKeys(["stx_transfer"]));
    },
  );
});

describe("a simulated chain with many won forks", () => {
  it("a receiver folding applies and rollbacks in arrival order ends with the canonical events", async () => {
    const service = await freshService({ NETWORK: "devnet" });
    const r = await receiver();
    const api = webhookClient(service.apiUrl);
    const types = ["stx_transfer", "ft_mint", "nft_mint", "print"];
    const created = await api.create({
      name: "all",
      url: r.url,
      concurrency: 4,
      triggers: [{ type: "stx_transfer" }, { type: "ft_mint" }, { type: "nft_mint" }, { type: "print_event" }],
    });
    const { payloads, truth } = simulateChain({
      seed: "webhooks-reorg",
      blocks: 40,
      eventsPerBlock: 10,
      forkRate: 0.3,
    });
    expect(truth.forks.filter((f) => f.outcome === "won").length).toBeGreaterThan(3);
    for (const p of payloads) await postObserver(service.observerUrl, p.path, JSON.stringify(p.body));
    await service.idle();
    await waitForOutboxDrained(t.db, String(created.body.id));
    const { applied, rollbacks } = foldChainDeliveries(r);
    expect(rollbacks.length).toBeGreaterThan(0);
    for (const d of rollbacks) expect(d.truncated).toBe(false);
    expect(applied).toEqual(await canonicalKeys(types));
    // Never-attempted applies of orphaned blocks were cancelled, not sent after their rollback.
    expect(await outboxCount(t.db, "status = 'pending'")).toBe(0);
  });

  it("subgraph webhook: created/updated/deleted and compensating changes, folded by _id, converge on the table", async () => {
    const service = await freshService({ NETWORK: "devnet" });
    const r = await receiver();
    const api = webhookClient(service.apiUrl);
    // concurrency 1: in-order delivery, so a fold by arrival order is exact.
    const created = await api.create({
      name: "holdings",
      url: r.url,
      subgraphName: "asset-holdings",
      tableName: "holdings",
      concurrency: 1,
    });
    expect(created.status).toBe(201);
    const { payloads } = simulateChain({ seed: "webhooks-reorg", blocks: 24, eventsPerBlock: 10, forkRate: 0.3 });
    for (const p of payloads) await postObserver(service.observerUrl, p.path, JSON.stringify(p.body));
    await service.idle();
    await waitForOutboxDrained(t.db, String(created.body.id));
    const table = new Map<number, Record<string, unknown>>();
    let reverted = 0;
    for (const q of r.requests) {
      const { type, data } = JSON.parse(q.body) as {
        type: string;
        data: { action: string; row: Record<string, unknown>; reverted: boolean };
      };
      expect(type).toBe(`asset-holdings.holdings.${data.action}`);
      if (data.reverted) reverted++;
      if (data.action === "deleted") table.delete(Number(data.row._id));
      else table.set(Number(data.row._id), data.row);
    }
    expect(reverted).toBeGreaterThan(0);
    const { rows } = await t.db.query<{ _id: string; amount: string; holder: string; asset_identifier: string }>(
      "SELECT _id, amount::text AS amount, holder, asset_identifier FROM sg_asset_holdings.holdings",
    );
    expect(table.size).toBe(rows.length);
    for (const row of rows) {
      const got = table.get(Number(row._id));
      expect(got, `row ${row._id}`).toBeDefined();
      expect({ amount: String(got?.amount), holder: got?.holder, asset_identifier: got?.asset_identifier }).toEqual({
        amount: row.amount,
        holder: row.holder,
        asset_identifier: row.asset_identifier,
      });
    }
  });
});

describe("the subgraph outbox listener", () => {
  const change = (over: Partial<RowChange>): RowChange => ({
    subgraph: "asset-holdings",
    table: "holdings",
    op: "created",
    row: { _id: "1", kind: "ft", amount: "10", holder: "SP1", asset_identifier: "SP1.t::t" },
    txId: "0xt1",
    eventIndex: 0,
    blockHeight: 5,
    indexBlockHash: "0xb5",
    reverted: false,
    ...over,
  });

  it("writes one row per matching change, sequences changes of one event, fences compensating ones, re-arms after a reorg", async () => {
    await svc?.stop();
    svc = undefined;
    await t.reset();
    await t.db.query(
      `INSERT INTO control.webhooks (id, name, kind, url, format, subgraph_name, table_name, filter, start_height, timeout_ms, max_attempts, concurrency, secret_sealed)
       VALUES ('wh_all', 'all', 'subgraph', 'http://x', 'raw', 'asset-holdings', 'holdings', '{}', -1, 1000, 3, 1, 'v1:x:y:z'),
              ('wh_big', 'big', 'subgraph', 'http://x', 'raw', 'asset-holdings', 'holdings', '{"amount": {"gte": "100"}}', -1, 1000, 3, 1, 'v1:x:y:z'),
              ('wh_late', 'late', 'subgraph', 'http://x', 'raw', 'asset-holdings', 'holdings', '{}', 5, 1000, 3, 1, 'v1:x:y:z'),
              ('wh_bns', 'bns', 'subgraph', 'http://x', 'raw', 'bns-names', 'names', '{}', -1, 1000, 3, 1, 'v1:x:y:z')`,
    );
    const listener = createSubgraphOutbox();
    const block = { indexBlockHash: "0xb5", height: 5 };
    const forward = [
      change({}),
      change({ op: "created", row: { _id: "2", amount: "500", holder: "SP2" } }), // same tx and event: seq 1
      change({ op: "updated", row: { _id: "1", amount: "150" }, previous: { _id: "1", amount: "10" }, eventIndex: 1 }),
    ];
    await t.db.transaction((q) => listener(q, forward, block));
    await expandAll(t.db);
    const rows = async () =>
      (
        await t.db.query<{
          webhook_id: string;
          event_type: string;
          dedupe_kind: string;
          seq: string;
          fence: boolean;
          status: string;
        }>("SELECT webhook_id, event_type, dedupe_kind, seq, fence, status FROM control.webhook_outbox ORDER BY id")
      ).rows;
    expect(await rows()).toEqual([
      {
        webhook_id: "wh_all",
        event_type: "asset-holdings.holdings.created",
        dedupe_kind: "row",
        seq: "0",
        fence: false,
        status: "pending",
      },
      {
        webhook_id: "wh_all",
        event_type: "asset-holdings.holdings.created",
        dedupe_kind: "row",
        seq: "1",
        fence: false,
        status: "pending",
      },
      {
        webhook_id: "wh_big",
        event_type: "asset-holdings.holdings.created",
        dedupe_kind: "row",
        seq: "0",
        fence: false,
        status: "pending",
      },
      {
        webhook_id: "wh_all",
        event_type: "asset-holdings.holdings.updated",
        dedupe_kind: "row",
        seq: "0",
        fence: false,
        status: "pending",
      },
      {
        webhook_id: "wh_big",
        event_type: "asset-holdings.holdings.updated",
        dedupe_kind: "row",
        seq: "0",
        fence: false,
        status: "pending",
      },
    ]);
    // The block is orphaned: the ingest hooks mark its rows; the engine reports compensating changes.
    await t.db.query("UPDATE control.webhook_outbox SET status = 'delivered', rolled_back = true");
    const compensating = [
      change({
        op: "updated",
        row: { _id: "1", amount: "10" },
        previous: { _id: "1", amount: "150" },
        eventIndex: -1,
        reverted: true,
      }),
      change({ op: "deleted", row: { _id: "2", amount: "500" }, eventIndex: -1, reverted: true }),
      change({ op: "deleted", row: { _id: "1", amount: "10" }, eventIndex: -1, reverted: true }),
    ];
    await t.db.transaction((q) => listener(q, compensating, block));
    await expandAll(t.db);
    const reverts = (await rows()).filter((x) => x.dedupe_kind === "revert");
    expect(reverts.map((x) => `${x.webhook_id}:${x.event_type}:${x.seq}:${x.fence}`)).toEqual([
      "wh_all:asset-holdings.holdings.updated:0:true",
      "wh_big:asset-holdings.holdings.updated:0:true",
      "wh_all:asset-holdings.holdings.deleted:1:true",
      "wh_big:asset-holdings.holdings.deleted:1:true",
      "wh_all:asset-holdings.holdings.deleted:2:true",
    ]);
    // The block comes back: its forward changes are delivered again (re-armed, new delivery ids).
    const before = (
      await t.db.query<{ delivery_id: string }>(
        "SELECT delivery_id FROM control.webhook_outbox WHERE dedupe_kind = 'row'",
      )
    ).rows;
    await t.db.transaction((q) => listener(q, forward, block));
    await expandAll(t.db);
    const after = await t.db.query<{ delivery_id: string; status: string }>(
      "SELECT delivery_id, status FROM control.webhook_outbox WHERE dedupe_kind = 'row'",
    );
    expect(after.rows).toHaveLength(before.length);
    expect(after.rows.every((x) => x.status === "pending")).toBe(true);
    expect(after.rows.some((x) => before.some((b) => b.delivery_id === x.delivery_id))).toBe(false);
    // Without a reorg in between, the same changes write nothing new.
    await t.db.transaction((q) => listener(q, forward, block));
    await expandAll(t.db);
    expect(await outboxCount(t.db, "dedupe_kind = 'row'")).toBe(before.length);
  });
});
