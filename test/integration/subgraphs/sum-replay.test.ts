/**
 * Backfills that sum settled blocks in SQL (runtime/subgraphs/sum-replay.ts), on both drivers:
 * - asset-holdings summed over the finalized blocks of a simulated chain with forks holds the
 *   balances the test computes from those blocks' payloads, and exactly the rows (in `_id` order,
 *   with `_block_height` and `_tx_id`) that replaying the same blocks one operation at a time gives;
 * - a reindex sums (its log says so) and rebuilds the live tables;
 * - a spec whose key can be null is not summed: it ends with the rows the replay gives, one row
 *   per null-keyed increment, as the test counts them in the payloads.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subgraphs as builtins } from "../../../generated/index.js";
import { parseConfig } from "../../../runtime/config/index.js";
import type { Db, Queryable } from "../../../runtime/db/types.js";
import { createLogger, silentLogger } from "../../../runtime/internal/logger.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { applyBlocks } from "../../../runtime/subgraphs/block-apply.js";
import { readCanonicalRange } from "../../../runtime/subgraphs/block-reader.js";
import { buildDispatchIndex } from "../../../runtime/subgraphs/dispatch.js";
import { createSubgraphEngine } from "../../../runtime/subgraphs/index.js";
import { replaySums } from "../../../runtime/subgraphs/sum-replay.js";
import { createTraitResolver } from "../../../runtime/subgraphs/trait-resolver.js";
import type { RawRequest } from "../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { ingestThroughService } from "../../support/service.js";
import { dumpSubgraphTables } from "../../support/subgraph-dump.js";
import { canonicalBlocks, expectedHoldings, type RawBlock } from "../../support/subgraph-expect.js";

const SIMULATION = { seed: "sum-replay", blocks: 120, eventsPerBlock: 12, forkRate: 0.1 };
const HOLDINGS = builtins.find((m) => m.name === "asset-holdings");
const config = parseConfig({ NETWORK: "devnet", DATA_DIR: ".tmp/unused" });

const NULL_KEYS = `name: null-keys
version: 1.0.0
description: STX received per recipient; a mint has no sender, so its row has a null holder.
sources:
  xfer:
    type: stx_transfer
  mint:
    type: stx_mint
tables:
  received:
    columns:
      holder:
        type: principal
        attributes: [nullable]
      amount:
        type: int
    uniqueKeys:
      - [holder]
handlers:
  xfer:
    - increment: received
      key:
        holder: \${event.recipient}
      add:
        amount: \${event.amount}
  mint:
    - increment: received
      key:
        holder: \${event.sender}
      add:
        amount: \${event.amount}
`;

/** Runs `fn` in a transaction that is rolled back, and gives back its result. */
async function rolledBack<T>(db: Db, fn: (q: Queryable) => Promise<T>): Promise<T> {
  const undo = new Error("roll back");
  let result: T | undefined;
  await db
    .transaction(async (q) => {
      result = await fn(q);
      throw undo;
    })
    .catch((err) => {
      if (err !== undo) throw err;
    });
  return result as T;
}

/** Holdings in `_id` order, with the columns that depend on the chain (not `_id` or `_created_at` themselves). */
async function holdingsById(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<Record<string, string>>(
    `SELECT kind, asset_identifier, holder, amount::text AS amount, _block_height::text AS h, _tx_id
       FROM sg_asset_holdings.holdings ORDER BY _id`,
  );
  return rows.map((r) => [r.kind, r.asset_identifier, r.holder, r.amount, r.h, r._tx_id].join("|"));
}

describe("summed backfill", () => {
  let testDb: TestDb;
  let requests: RawRequest[];
  let blocks: RawBlock[];
  let finalized: number;

  beforeAll(async () => {
    testDb = await createTestDb();
    requests = simulateChain(SIMULATION).payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    blocks = canonicalBlocks(requests);
    await ingestThroughService(testDb.db, requests, { NETWORK: "devnet" });
    const { rows } = await testDb.db.query<{ f: number | null }>("SELECT finalized_height AS f FROM control.chain_tip");
    finalized = Number(rows[0].f);
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  it("sums asset-holdings over the finalized blocks to the payloads' balances and the replay's rows", async () => {
    if (HOLDINGS === undefined) throw new Error("asset-holdings is not built in");
    const settled = blocks.filter((b) => b.block_height <= finalized);
    expect(settled.length, "the chain has finalized blocks").toBeGreaterThan(50);
    expect(HOLDINGS.sumReplay, "asset-holdings is summable").toBeDefined();

    const summed = await rolledBack(testDb.db, async (q) => {
      await q.query("DELETE FROM sg_asset_holdings.holdings");
      expect(await replaySums(q, HOLDINGS, 0, finalized)).toBe(settled.length);
      const { rows } = await q.query<{ key: string; amount: string }>(
        "SELECT kind || '|' || asset_identifier || '|' || holder AS key, amount::text AS amount FROM sg_asset_holdings.holdings",
      );
      expect(new Map(rows.map((r) => [r.key, BigInt(r.amount)]))).toEqual(expectedHoldings(settled));
      return holdingsById(q);
    });

    const replayed = await rolledBack(testDb.db, async (q) => {
      await q.query("DELETE FROM sg_asset_holdings.holdings");
      const index = buildDispatchIndex(HOLDINGS, { ...config.contracts });
      const stored = await readCanonicalRange(q, 0, finalized, index.eventTypes, index.txLevel);
      const result = await applyBlocks(q, [{ module: HOLDINGS, index }], stored, {
        journal: null,
        collect: false,
        cache: new Map(),
        traits: createTraitResolver(),
        logger: silentLogger,
        config: { ...config.contracts },
      });
      expect(result.failed).toEqual([]);
      return holdingsById(q);
    });
    expect(summed.length).toBeGreaterThan(20);
    expect(summed).toEqual(replayed);
  });

  it("reindexes by summing and rebuilds the live tables", async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "debug", write: (line) => lines.push(line) });
    const engine = createSubgraphEngine({ db: testDb.db, config, logger });
    await engine.init();
    try {
      const live = await dumpSubgraphTables(testDb.db, engine);
      await engine.reindex("asset-holdings");
      await engine.idle();
      expect((await engine.progress("asset-holdings"))?.status).toBe("ready");
      expect(await dumpSubgraphTables(testDb.db, engine)).toEqual(live);
      const summedBlocks = lines
        .map((l) => JSON.parse(l))
        .filter((r) => r.msg === "subgraph blocks summed" && r.subgraph === "asset-holdings")
        .reduce((n, r) => n + (r.blocks ?? 0), 0);
      expect(summedBlocks).toBe(blocks.filter((b) => b.block_height <= finalized).length);
    } finally {
      await engine.close();
    }
  });

  it("does not sum a subgraph whose key is null: each such increment makes its own row, as replayed", async () => {
    const outcomes: { rows: string[]; status: string | undefined }[] = [];
    for (const sumReplay of [true, false]) {
      const engine = createSubgraphEngine({ db: testDb.db, config, logger: silentLogger, sumReplay });
      await engine.init();
      try {
        await engine.deploy(NULL_KEYS, "yaml");
        await engine.idle();
        const { rows } = await testDb.db.query<{ holder: string | null; amount: string }>(
          "SELECT holder, amount::text AS amount FROM sg_null_keys.received ORDER BY _id",
        );
        outcomes.push({
          rows: rows.map((r) => `${r.holder}|${r.amount}`),
          status: (await engine.progress("null-keys"))?.status,
        });
        await engine.remove("null-keys");
      } finally {
        await engine.close();
      }
    }
    const mints = blocks.flatMap((b) =>
      b.events.filter((e: { committed: boolean; type: string }) => e.committed && e.type === "stx_mint_event"),
    );
    expect(mints.length, "the chain mints STX").toBeGreaterThan(0);
    expect(outcomes[0].status).toBe("ready");
    expect(outcomes[0].rows.filter((r) => r.startsWith("null|")).length).toBe(mints.length);
    expect(outcomes[0]).toEqual(outcomes[1]);
  });
});
