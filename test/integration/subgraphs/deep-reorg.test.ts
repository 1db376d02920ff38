/**
 * Subgraph tables after a reorg below the finality boundary (README "Finality"), on the recorded
 * mainnet-reorg-scenario1 with FINALITY_BURN_CONFIRMATIONS=0: block 30a is final the moment it is
 * the tip, 30b ties it, and 31 builds on 30b, orphaning 30a below the boundary.
 * - replayed live, 30a's row changes are still journaled (it was applied before it became
 *   final): the reorg reverts them exactly and no subgraph is rebuilt;
 * - when every subgraph was reindexed while 30a was final, the reindex applied 30a without
 *   journaling it: the reorg cannot revert its rows, so the engine rebuilds the subgraphs from the
 *   stored canonical blocks by itself, logs their names and says why in their progress; like a
 *   reindex, the rebuild sends subgraph webhooks nothing (no compensation for 30a, no rows for
 *   30b and 31), and live rows follow once it is ready;
 * - when a block built on 30a (31a, made here from 31 with another hash) was applied while 30a was
 *   final, the engine pruned 30a's journal entries: the reorg that 32 makes (orphaning 30a and
 *   31a) rebuilds them likewise.
 * Either way every table ends equal to what the fixture's canonical chain computes (holdings,
 * contracts, flows, transfers from subgraph-expect.ts, sharing no code with runtime/) and to a
 * fresh replay of only the winning chain.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIngestor } from "../../../runtime/chain/ingest.js";
import { parseConfig } from "../../../runtime/config/index.js";
import { createLogger } from "../../../runtime/internal/logger.js";
import { type Service, startService } from "../../../runtime/service.js";
import { createSubgraphEngine } from "../../../runtime/subgraphs/index.js";
import { expectedFinality, type RawRequest } from "../../support/chain-model.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../../support/fixtures.js";
import { startReceiver } from "../../support/receiver.js";
import { postObserver, waitFor } from "../../support/service.js";
import { dumpSubgraphTables, readContracts, readHoldings, reindexAll } from "../../support/subgraph-dump.js";
import {
  canonicalBlocks,
  expectedContracts,
  expectedFlows,
  expectedHoldings,
  expectedTransfers,
} from "../../support/subgraph-expect.js";
import { webhookClient } from "../../support/webhooks.js";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t?.drop();
});

const requests = (): RawRequest[] =>
  readReplayTsv(path.join(FIXTURES_DIR, "observer/stacks-blockchain-api/mainnet-reorg-scenario1.tsv")).map((r) => ({
    path: r.path,
    body: r.body,
  }));

type LogLine = Record<string, unknown>;

const config = (env: Record<string, string> = {}) =>
  parseConfig({
    API_PORT: "0",
    OBSERVER_PORT: "0",
    DATA_DIR: ".tmp/unused",
    NETWORK: "mainnet",
    FINALITY_BURN_CONFIRMATIONS: "0",
    ...env,
  });

const capture = (logged: LogLine[]) => createLogger({ level: "info", write: (line) => logged.push(JSON.parse(line)) });

async function service(logged: LogLine[], env: Record<string, string> = {}): Promise<Service> {
  await t.reset();
  return startService({ config: config(env), logger: capture(logged), db: t.db });
}

async function post(s: Service, rs: RawRequest[]): Promise<void> {
  for (const r of rs) await postObserver(s.observerUrl, r.path, r.body);
  await s.idle();
}

async function finalizedHeight(s: Service): Promise<number | null> {
  const body = (await (await fetch(`${s.apiUrl}/status`)).json()) as { tip: { finalized_height: number | null } };
  return body.tip.finalized_height;
}

/** Waits until no rebuild runs and every subgraph is ready. */
async function settle(s: Service): Promise<void> {
  await waitFor(async () => {
    await s.subgraphs.idle();
    for (const info of s.subgraphs.list())
      if ((await s.subgraphs.progress(info.name))?.status !== "ready") return false;
    return true;
  });
}

/** Every built-in table against the fixture's canonical chain, and the whole dump. */
async function expectCanonicalTables(s: Pick<Service, "config">, all: RawRequest[]): Promise<void> {
  const blocks = canonicalBlocks(all);
  expect(await readHoldings(t.db)).toEqual(expectedHoldings(blocks));
  expect(await readContracts(t.db)).toEqual(expectedContracts(blocks));
  const registry = s.config.contracts.sbtcRegistryContractId;
  const flows = await t.db.query<Record<string, string | null>>(
    "SELECT topic, amount, sender, request_id::text AS request_id, burn_height::text AS burn_height, bitcoin_txid FROM sg_sbtc_flows.flows",
  );
  expect(
    flows.rows.map((r) => [r.topic, r.amount, r.sender, r.request_id, r.burn_height, r.bitcoin_txid]).sort(),
  ).toEqual(expectedFlows(blocks, registry));
  const { sbtcAssetIdentifier, sbtcTokenContractId } = s.config.contracts;
  const transfers = await t.db.query<Record<string, string | null>>(
    "SELECT sender, recipient, amount::text AS amount, event_index::text AS event_index, memo FROM sg_sbtc_flows.transfers",
  );
  expect(transfers.rows.map((r) => [r.sender, r.recipient, r.amount, r.event_index, r.memo]).sort()).toEqual(
    expectedTransfers(blocks, sbtcAssetIdentifier, sbtcTokenContractId),
  );
}

/** The tables of a fresh replay of only the winning chain, in height order. */
async function winningChainDump(all: RawRequest[]): Promise<Awaited<ReturnType<typeof dumpSubgraphTables>>> {
  const fresh = await service([]);
  try {
    await post(
      fresh,
      canonicalBlocks(all).map((b) => ({ path: "/new_block", body: JSON.stringify(b) })),
    );
    await settle(fresh);
    return await dumpSubgraphTables(t.db, fresh.subgraphs);
  } finally {
    await fresh.stop();
  }
}

const REBUILD_LOG = "subgraphs rebuilding: a reorg orphaned blocks whose row changes can no longer be reverted";

describe.skipIf(!hasFixtures)("subgraphs after a reorg below finality (FINALITY_BURN_CONFIRMATIONS=0)", () => {
  const all = hasFixtures ? requests() : []; // the body is collected even when skipped
  const blockAt = (height: number, nth: number) =>
    all.findIndex(
      (r, i) =>
        r.path === "/new_block" &&
        JSON.parse(r.body).block_height === height &&
        all.slice(0, i).filter((p) => p.path === "/new_block" && JSON.parse(p.body).block_height === height).length ===
          nth,
    );
  const first30 = blockAt(30, 0);
  const second30 = blockAt(30, 1);
  const block31 = blockAt(31, 0);
  const hashOf = (i: number) => JSON.parse(all[i].body).index_block_hash as string;

  it("the premise: 30a is final once it is the tip, and 31 orphans it below the boundary", () => {
    const model = expectedFinality(all, 0);
    expect(model.steps[first30].finalizedHeight).toBe(30);
    expect(model.reorgs).toEqual([{ forkPointHeight: 30, belowFinality: true }]);
    expect(all[block31].path).toBe("/new_block");
  });

  it("replayed live: the journal still reverts 30a, nothing is rebuilt, the tables equal the canonical chain's", async () => {
    const logged: LogLine[] = [];
    const s = await service(logged);
    let live: Awaited<ReturnType<typeof dumpSubgraphTables>>;
    try {
      await post(s, all);
      await settle(s);
      await expectCanonicalTables(s, all);
      expect(logged.filter((l) => l.msg === REBUILD_LOG)).toEqual([]);
      for (const info of s.subgraphs.list()) expect((await s.subgraphs.progress(info.name))?.reason).toBeNull();
      live = await dumpSubgraphTables(t.db, s.subgraphs);
    } finally {
      await s.stop();
    }
    expect(live).toEqual(await winningChainDump(all));
  });

  it("reindexed while 30a was final: the reorg rebuilds every subgraph by itself, and the tables equal the canonical chain's", async () => {
    const logged: LogLine[] = [];
    const s = await service(logged, { WEBHOOK_ALLOW_PRIVATE: "true" });
    const receiver = await startReceiver();
    let rebuilt: Awaited<ReturnType<typeof dumpSubgraphTables>>;
    try {
      const hook = await webhookClient(s.apiUrl).create({
        name: "holdings",
        url: receiver.url,
        subgraphName: "asset-holdings",
        tableName: "holdings",
      });
      expect(hook.status).toBe(201);
      await post(s, all.slice(0, first30 + 1));
      expect(await finalizedHeight(s)).toBe(30);
      // The reindex applies the final blocks, 30a among them, without journaling them.
      await reindexAll(s.subgraphs);

      await post(s, all.slice(first30 + 1, block31 + 1));
      // Every subgraph had applied 30a (none starts above it); each is being rebuilt, or is already.
      const names = s.subgraphs
        .list()
        .filter((info) => (info.module.startBlock ?? 0) <= 30)
        .map((info) => info.name);
      expect(names.length).toBeGreaterThan(0);
      const logs = logged.filter((l) => l.msg === REBUILD_LOG);
      expect(logs.map((l) => [l.fork_point_height, l.subgraphs])).toEqual([[30, names]]);
      for (const name of names) {
        const p = await s.subgraphs.progress(name);
        expect(p?.status, name).toMatch(/^(reindexing|ready)$/);
        expect(p?.reason, name).toMatch(/reorg at height 30/);
      }
      await settle(s); // the rebuild reaches the tip: the next blocks are applied live

      await post(s, all.slice(block31 + 1));
      await settle(s);
      await expectCanonicalTables(s, all);

      const { rows: sent } = await t.db.query<{ block_hash: string; block_height: number; dedupe_kind: string }>(
        "SELECT block_hash, block_height, dedupe_kind FROM control.webhook_outbox WHERE webhook_id = $1",
        [hook.body.id],
      );
      expect(sent.some((r) => r.block_hash === hashOf(first30))).toBe(true);
      expect(sent.filter((r) => r.dedupe_kind !== "row")).toEqual([]);
      expect(sent.filter((r) => [hashOf(second30), hashOf(block31)].includes(r.block_hash))).toEqual([]);
      expect(sent.some((r) => r.block_height > 31)).toBe(true);
      for (const name of names) {
        const p = await s.subgraphs.progress(name);
        expect(p?.operationFinishedAt, name).not.toBeNull();
        expect(p?.reason, name).toMatch(/reorg at height 30/);
        const read = (await (await fetch(`${s.apiUrl}/v1/subgraphs/${name}`)).json()) as {
          progress: { status: string; reason: string | null };
        };
        expect(read.progress).toMatchObject({ status: "ready", reason: p?.reason });
      }
      rebuilt = await dumpSubgraphTables(t.db, s.subgraphs);
    } finally {
      await s.stop();
      await receiver.close();
    }
    expect(rebuilt).toEqual(await winningChainDump(all));
  });
  it("30a's journal pruned by a block built on it while it was final: the reorg rebuilds every subgraph", async () => {
    // 31a: block 31 re-hashed onto 30a. Applied while 30a is final, it prunes 30a's undo entries
    // (every block here); 31 then ties it, and 32 orphans 30a and 31a.
    const a = JSON.parse(all[first30].body);
    const b31 = JSON.parse(all[block31].body);
    const rehash = (hash: string) => `0x31a${hash.slice(5)}`;
    const block31a = {
      ...b31,
      index_block_hash: rehash(b31.index_block_hash),
      block_hash: rehash(b31.block_hash),
      parent_index_block_hash: a.index_block_hash,
      parent_block_hash: a.block_hash,
    };
    const replay: RawRequest[] = [
      ...all.slice(0, first30 + 1),
      { path: "/new_block", body: JSON.stringify(block31a) },
      ...all.slice(first30 + 1),
    ];
    expect(expectedFinality(replay, 0).reorgs).toEqual([{ forkPointHeight: 30, belowFinality: true }]);

    await t.reset();
    const logged: LogLine[] = [];
    const logger = capture(logged);
    const engine = createSubgraphEngine({ db: t.db, config: config(), logger, pruneEveryBlocks: 1 });
    await engine.init();
    const ingestor = createIngestor({ db: t.db, logger, finalityBurnConfirmations: 0, hooks: [engine.hooks] });
    try {
      for (const [i, r] of replay.entries()) await ingestor.importRequest(r.path, r.body, `deep-reorg:${i}`);
      await engine.idle();
      const names = engine
        .list()
        .filter((info) => (info.module.startBlock ?? 0) <= 30)
        .map((info) => info.name);
      const logs = logged.filter((l) => l.msg === REBUILD_LOG);
      expect(logs.map((l) => [l.fork_point_height, l.subgraphs])).toEqual([[30, names]]);
      for (const info of engine.list()) expect((await engine.progress(info.name))?.status).toBe("ready");
      await expectCanonicalTables({ config: config() }, replay);
    } finally {
      await engine.close();
    }
  });
});
