/**
 * A hot-row chain through `sluice import`'s path (importReplayFile, many requests per transaction):
 * most events land on a few rows (an sBTC/STX pool and three busy holders, the simulator's hot mix),
 * a reorg happens inside a multi-block transaction, and in the same transaction a test-only subgraph
 * (`dip`) has a row refused by the database. The built-in tables must equal the expectation the test
 * computes from the input — holdings folded from the TSV's canonical events and checked against the
 * simulator's own ledger (truth.json), names from the BNS lifecycle, flows and transfers from the
 * sBTC events — while `dip` fails at its last good block and the other subgraphs stay ready at the tip.
 *
 * The refusal: `dip` counts committed sBTC transfers in a `uint`, and subtracts 10^12 per transfer in
 * block REFUSED (a canonical block below the reorg's fork point, in the same transaction; the test
 * picks it from the file).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../../runtime/config/index.js";
import { type GroundTruth, writeSimulation } from "../../../runtime/simulator/index.js";
import { type RawRequest, expectedChain } from "../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { importWithSpec } from "../../support/subgraph-import.js";
import { readContracts, readHoldings } from "../../support/subgraph-dump.js";
import {
  type RawBlock,
  canonicalBlocks,
  expectedContracts,
  expectedFlows,
  expectedHoldings,
  expectedTransfers,
} from "../../support/subgraph-expect.js";

const SIMULATION = {
  seed: "hot-row-chain",
  blocks: 120,
  eventsPerBlock: 24,
  accounts: 12,
  forkRate: 0.15,
  hotShare: 0.8,
  genesisStx: 2_000,
  network: "devnet" as const,
};
/** Requests per transaction of the second import (the first puts the whole file in one). */
const BATCH = 16;

function dipSpec(refused: number): string {
  return `name: dip
version: 1.0.0
description: Counts sBTC transfers in a uint that goes negative at one block.
sources:
  xfer:
    type: ft_transfer
    assetIdentifier: \${config.sbtcAssetIdentifier}
tables:
  level:
    columns:
      k: { type: text }
      n: { type: uint }
    uniqueKeys:
      - [k]
handlers:
  xfer:
    - increment: level
      key:
        k: same
      add:
        n: 1
    - increment: level
      when: block.height == ${refused}
      key:
        k: same
      add:
        n: -1000000000000
`;
}

interface Plan {
  /** The reorg: the first orphaned block's request and the request of the block that wins. */
  orphanedAt: number;
  winnerAt: number;
  forkPoint: number;
  /** The canonical block whose rows `dip` has refused. */
  refused: number;
}

/**
 * A reorg whose orphaned blocks and winning block are in one BATCH-request transaction, and a
 * canonical block in the same transaction below the fork point, alone at its height (no other
 * branch ever held it), holding sBTC transfers, with sBTC transfers before it.
 */
function findPlan(requests: RawRequest[], canonical: RawBlock[]): Plan {
  const bodies = requests.map((r) => (r.path === "/new_block" ? JSON.parse(r.body) : null));
  const canonicalHashes = new Set(canonical.map((b) => b.index_block_hash));
  const atHeight = new Map<number, number>();
  for (const b of bodies) if (b) atHeight.set(b.block_height, (atHeight.get(b.block_height) ?? 0) + 1);
  const sbtcTransfers = (b: RawBlock) =>
    b.events.filter(
      (e: RawBlock) =>
        e.committed && e.type === "ft_transfer_event" && e.ft_transfer_event.asset_identifier.endsWith("::sbtc-token"),
    ).length;
  const transfersBelow = (height: number) =>
    canonical.filter((b) => b.block_height < height).reduce((n, b) => n + sbtcTransfers(b), 0);
  for (const forkPoint of expectedChain(requests).reorgForkPoints) {
    const orphanedAt = bodies.findIndex(
      (b) => b && b.block_height === forkPoint && !canonicalHashes.has(b.index_block_hash),
    );
    // The competing branch starts at the fork point after the old branch; the reorg comes with its
    // first block above the old branch's highest.
    const competitorAt = bodies.findIndex(
      (b, i) => i > orphanedAt && b && b.block_height === forkPoint && canonicalHashes.has(b.index_block_hash),
    );
    let oldTip = forkPoint;
    for (let i = orphanedAt; i < competitorAt; i++) {
      const b = bodies[i];
      if (b && !canonicalHashes.has(b.index_block_hash)) oldTip = Math.max(oldTip, b.block_height);
    }
    const winnerAt = bodies.findIndex(
      (b, i) => i > competitorAt && b && canonicalHashes.has(b.index_block_hash) && b.block_height > oldTip,
    );
    if (competitorAt < 0) continue;
    if (orphanedAt < 0 || winnerAt < 0) continue;
    const batch = Math.floor(orphanedAt / BATCH);
    if (Math.floor(winnerAt / BATCH) !== batch) continue;
    for (let i = orphanedAt - 1; i >= batch * BATCH; i--) {
      const b = bodies[i];
      if (!b || !canonicalHashes.has(b.index_block_hash) || b.block_height >= forkPoint) continue;
      if (atHeight.get(b.block_height) !== 1 || sbtcTransfers(b) === 0 || transfersBelow(b.block_height) === 0)
        continue;
      return { orphanedAt, winnerAt, forkPoint, refused: b.block_height };
    }
  }
  throw new Error(`seed ${SIMULATION.seed}: no reorg with a refusable block in one ${BATCH}-request transaction`);
}

describe("a hot-row chain imported with many requests per transaction", () => {
  let testDb: TestDb;
  let dir: string;
  let file: string;
  let truth: GroundTruth;
  let requests: RawRequest[];
  let canonical: RawBlock[];
  let plan: Plan;
  beforeAll(async () => {
    testDb = await createTestDb();
    fs.mkdirSync(".tmp", { recursive: true });
    dir = fs.mkdtempSync(path.join(".tmp", "hot-row-chain-"));
    file = path.join(dir, "chain.tsv");
    ({ truth } = await writeSimulation(SIMULATION, file));
    requests = fs
      .readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => {
        const [, , p, body] = line.split("\t");
        return { path: p, body };
      });
    canonical = canonicalBlocks(requests);
    plan = findPlan(requests, canonical);
  });
  afterAll(async () => {
    await testDb?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`seed ${SIMULATION.seed}: the chain is hot: a few rows take most balance changes`, () => {
    const touches = new Map<string, number>();
    let events = 0;
    for (const b of canonical)
      for (const e of b.events) {
        const body = e[e.type];
        if (!e.committed || e.type === "contract_event" || e.type === "stx_lock_event") continue;
        events++;
        for (const holder of new Set([body.sender, body.recipient].filter(Boolean)))
          touches.set(holder, (touches.get(holder) ?? 0) + 1);
      }
    const top = [...touches.values()].sort((a, b) => b - a).slice(0, 4);
    expect(top.reduce((a, b) => a + b, 0)).toBeGreaterThan(events * 0.8);
    expect(top[0], "the busiest holder changes in hundreds of events").toBeGreaterThan(300);
  });

  async function importWith(batchSize: number): Promise<void> {
    await testDb.reset();
    const summary = await importWithSpec(testDb.db, file, dipSpec(plan.refused), batchSize);
    expect(summary.malformed).toBe(0);
  }

  async function expectTables(): Promise<void> {
    const db = testDb.db;
    const tip = canonical[canonical.length - 1].block_height;
    const { rows: tipRow } = await db.query<{ block_height: number; index_block_hash: string }>(
      "SELECT block_height, index_block_hash FROM control.chain_tip",
    );
    expect(tipRow[0]).toEqual({ block_height: tip, index_block_hash: truth.tip.indexBlockHash });
    const { rows: reorgs } = await db.query<{ fork_point_height: number }>(
      "SELECT fork_point_height FROM chain.reorgs ORDER BY id",
    );
    expect(reorgs.map((r) => r.fork_point_height)).toContain(plan.forkPoint);

    // dip failed at its last good block, keeping the transfers counted before it.
    const { rows: status } = await db.query<{ name: string; status: string; subgraph_height: number; error: string }>(
      `SELECT s.name, s.status, p.subgraph_height, s.error FROM control.subgraphs s
         JOIN control.subgraph_progress p USING (name) ORDER BY s.name`,
    );
    const dip = status.find((s) => s.name === "dip");
    expect(dip).toMatchObject({ status: "failed", subgraph_height: plan.refused - 1 });
    expect(dip?.error).toMatch(/check constraint|violates/i);
    const counted = canonical
      .filter((b) => b.block_height < plan.refused)
      .flatMap((b) => b.events)
      .filter(
        (e: RawBlock) =>
          e.committed &&
          e.type === "ft_transfer_event" &&
          e.ft_transfer_event.asset_identifier.endsWith("::sbtc-token"),
      ).length;
    const { rows: level } = await db.query<{ n: string }>("SELECT n::text FROM sg_dip.level");
    expect(level).toEqual([{ n: String(counted) }]);

    // The other subgraphs are at the tip, their tables equal to the expectation from the input.
    const others = status.filter((s) => s.name !== "dip");
    expect(others.map((s) => s.name)).toEqual(["asset-holdings", "bns-names", "contract-deployments", "sbtc-flows"]);
    for (const other of others) expect(other, other.name).toMatchObject({ status: "ready", subgraph_height: tip });

    const holdings = await readHoldings(db);
    expect(holdings).toEqual(expectedHoldings(canonical));
    const nonZero = [...holdings].filter(([, amount]) => amount !== 0n).map(([key, amount]) => [key, String(amount)]);
    expect(Object.fromEntries(nonZero.sort(([a], [b]) => (a < b ? -1 : 1)))).toEqual(truth.balances);

    const names = await db.query<{ fqn: string; owner: string | null }>("SELECT fqn, owner FROM sg_bns_names.names");
    expect(Object.fromEntries(names.rows.map((r) => [r.fqn, r.owner]))).toEqual(truth.bnsNames);
    expect(Object.keys(truth.bnsNames).length).toBeGreaterThan(0);

    const { sbtcRegistryContractId, sbtcAssetIdentifier, sbtcTokenContractId } = parseConfig({
      NETWORK: "devnet",
      DATA_DIR: ".tmp/unused",
    }).contracts;
    const flows = await db.query<Record<string, string | null>>(
      "SELECT topic, amount, sender, request_id::text AS request_id, burn_height::text AS burn_height, bitcoin_txid FROM sg_sbtc_flows.flows",
    );
    expect(
      flows.rows.map((r) => [r.topic, r.amount, r.sender, r.request_id, r.burn_height, r.bitcoin_txid]).sort(),
    ).toEqual(expectedFlows(canonical, sbtcRegistryContractId));
    const transfers = await db.query<Record<string, string | null>>(
      "SELECT sender, recipient, amount::text AS amount, event_index::text AS event_index, memo FROM sg_sbtc_flows.transfers",
    );
    const wantTransfers = expectedTransfers(canonical, sbtcAssetIdentifier, sbtcTokenContractId);
    expect(wantTransfers.length).toBeGreaterThan(200);
    expect(transfers.rows.map((r) => [r.sender, r.recipient, r.amount, r.event_index, r.memo]).sort()).toEqual(
      wantTransfers,
    );
    expect(await readContracts(db)).toEqual(expectedContracts(canonical));

    const orphanedUndo = await db.query<{ n: string }>(
      "SELECT count(*) AS n FROM control.subgraph_undo u JOIN chain.blocks b USING (index_block_hash) WHERE NOT b.canonical",
    );
    expect(Number(orphanedUndo.rows[0].n)).toBe(0);
  }

  it("the whole file in one transaction: every reorg and the refusal in it", async () => {
    await importWith(requests.length);
    await expectTables();
  });

  it(`${BATCH} requests per transaction: a reorg and the refusal share one`, async () => {
    expect(Math.floor(plan.orphanedAt / BATCH)).toBe(Math.floor(plan.winnerAt / BATCH));
    await importWith(BATCH);
    await expectTables();
  });
});
