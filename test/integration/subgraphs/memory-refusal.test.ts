/**
 * A refusal that writing each row once per transaction could hide (runtime/subgraphs/
 * transaction-rows.ts, row-fold.ts): a `uint` counter goes negative in one block and back above
 * zero in a later block of the same transaction. Written once at the end, the database would see
 * only the positive total; block by block it refuses the negative one. The subgraph must fail at
 * the block before the dip, exactly as with one statement per block, and keep the rows it had then;
 * every block is ingested and the other subgraphs go on. Checked with the whole chain in one import
 * transaction, and on the observer path (one block per transaction).
 *
 * The dip: `dip` adds 1 per committed STX transfer, minus 10^12 per transfer in the first block at
 * or above DIP that holds one (found by the test in the simulated payloads), and plus 10^12 per
 * transfer in every later block.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simulateChain, writeSimulation } from "../../../runtime/simulator/index.js";
import type { RawRequest } from "../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { importWithSpec } from "../../support/subgraph-import.js";
import { postObserver, startTestService } from "../../support/service.js";
import { readContracts, readHoldings } from "../../support/subgraph-dump.js";
import { canonicalBlocks, expectedContracts, expectedHoldings, type RawBlock } from "../../support/subgraph-expect.js";

const DIP = 15;
const SIMULATION = { seed: "subgraph-memory-refusal", blocks: 40, eventsPerBlock: 12, forkRate: 0 };

const transfersIn = (b: RawBlock): number =>
  b.events.filter((e: RawBlock) => e.committed && e.type === "stx_transfer_event").length;

function dipSpec(dipAt: number): string {
  return `name: dip
version: 1.0.0
description: A counter that dips below zero in one block and recovers in the next ones.
sources:
  xfer:
    type: stx_transfer
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
      when: block.height == ${dipAt}
      key:
        k: same
      add:
        n: -1000000000000
    - increment: level
      when: block.height > ${dipAt}
      key:
        k: same
      add:
        n: 1000000000000
`;
}

describe("a counter refused in one block and valid again at the transaction's end", () => {
  let testDb: TestDb;
  let requests: RawRequest[];
  let blocks: RawBlock[];
  let dipAt: number;
  let before: number;
  beforeAll(async () => {
    testDb = await createTestDb();
    requests = simulateChain(SIMULATION).payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    blocks = canonicalBlocks(requests);
    const dipBlock = blocks.find((b) => b.block_height >= DIP && transfersIn(b) > 0);
    if (dipBlock === undefined) throw new Error("the simulation has no STX transfer at or above DIP");
    dipAt = dipBlock.block_height;
    before = blocks.filter((b) => b.block_height < dipAt).reduce((n, b) => n + transfersIn(b), 0);
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  async function expectFailedBeforeDip(): Promise<void> {
    const db = testDb.db;
    const tip = blocks[blocks.length - 1].block_height;
    // The recovery must fall after the dip for the test to mean anything.
    expect(blocks.filter((b) => b.block_height > dipAt).reduce((n, b) => n + transfersIn(b), 0)).toBeGreaterThan(1);
    expect(blocks.map((b) => b.block_height)).toContain(dipAt - 1);

    const { rows: status } = await db.query<{ name: string; status: string; subgraph_height: number; error: string }>(
      `SELECT s.name, s.status, p.subgraph_height, s.error FROM control.subgraphs s
         JOIN control.subgraph_progress p USING (name) ORDER BY s.name`,
    );
    const dip = status.find((s) => s.name === "dip");
    expect(dip).toMatchObject({ status: "failed", subgraph_height: dipAt - 1 });
    expect(dip?.error).toMatch(/check constraint|violates/i);
    for (const other of status.filter((s) => s.name !== "dip"))
      expect(other, other.name).toMatchObject({ status: "ready", subgraph_height: tip });

    const { rows: level } = await db.query<{ n: string }>("SELECT n::text FROM sg_dip.level");
    expect(level).toEqual([{ n: String(before) }]);

    const { rows: chain } = await db.query<{ block_height: number }>("SELECT block_height FROM control.chain_tip");
    expect(chain[0].block_height).toBe(tip);
    expect(await readHoldings(db)).toEqual(expectedHoldings(blocks));
    expect(await readContracts(db)).toEqual(expectedContracts(blocks));
  }

  it("import: the whole chain in one transaction", async () => {
    await testDb.reset();
    const file = path.join(fs.mkdtempSync(path.join(".tmp", "subgraph-memory-refusal-")), "chain.tsv");
    try {
      await writeSimulation(SIMULATION, file);
      const summary = await importWithSpec(testDb.db, file, dipSpec(dipAt), requests.length);
      expect(summary.malformed).toBe(0);
      await expectFailedBeforeDip();
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });

  it("observer path: one block per transaction", async () => {
    await testDb.reset();
    const service = await startTestService(testDb.db, { NETWORK: "devnet" });
    try {
      await service.subgraphs.deploy(dipSpec(dipAt), "yaml");
      await service.subgraphs.idle();
      for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
      await service.idle();
      await expectFailedBeforeDip();
    } finally {
      await service.stop();
    }
  });
});

/**
 * A key the database cannot even look up (text in a `uint` key column) in one block of an import
 * transaction: the transaction's read-ahead meets it first (runtime/subgraphs/read-ahead.ts) and
 * must not fail the import; the block's own application then meets it where refusals are handled,
 * so the subgraph stops at the block before it and everything else goes on.
 */
function badKeySpec(badAt: number): string {
  return `name: badkey
version: 1.0.0
description: One row per block holding STX transfers, keyed by height; one block's key is text.
sources:
  xfer:
    type: stx_transfer
tables:
  per_block:
    columns:
      h: { type: uint }
      n: { type: uint }
    uniqueKeys:
      - [h]
handlers:
  xfer:
    - increment: per_block
      when: block.height != ${badAt}
      key:
        h: \${block.height}
      add:
        n: 1
    - increment: per_block
      when: block.height == ${badAt}
      key:
        h: \${event.payload.sender}
      add:
        n: 1
`;
}

describe("a key the database refuses to look up, in an import transaction", () => {
  it("fails that subgraph at the block before, the chain and the other subgraphs go on", async () => {
    const testDb = await createTestDb();
    const dir = fs.mkdtempSync(path.join(".tmp", "subgraph-bad-key-"));
    try {
      const requests = simulateChain(SIMULATION).payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
      const blocks = canonicalBlocks(requests);
      const badBlock = blocks.find((b) => b.block_height >= DIP && transfersIn(b) > 0);
      if (badBlock === undefined) throw new Error("the simulation has no STX transfer at or above DIP");
      const badAt = badBlock.block_height;
      const file = path.join(dir, "chain.tsv");
      await writeSimulation(SIMULATION, file);
      const summary = await importWithSpec(testDb.db, file, badKeySpec(badAt), requests.length);
      expect(summary.malformed).toBe(0);

      const tip = blocks[blocks.length - 1].block_height;
      const { rows: status } = await testDb.db.query<{ name: string; status: string; subgraph_height: number }>(
        `SELECT s.name, s.status, p.subgraph_height FROM control.subgraphs s
           JOIN control.subgraph_progress p USING (name) ORDER BY s.name`,
      );
      expect(status.find((s) => s.name === "badkey")).toMatchObject({ status: "failed", subgraph_height: badAt - 1 });
      for (const other of status.filter((s) => s.name !== "badkey"))
        expect(other, other.name).toMatchObject({ status: "ready", subgraph_height: tip });

      const want = blocks
        .filter((b) => b.block_height < badAt && transfersIn(b) > 0)
        .map((b) => ({ h: String(b.block_height), n: String(transfersIn(b)) }));
      const { rows } = await testDb.db.query<{ h: string; n: string }>(
        "SELECT h::text AS h, n::text AS n FROM sg_badkey.per_block ORDER BY per_block.h",
      );
      expect(rows).toEqual(want);
      expect(await readHoldings(testDb.db)).toEqual(expectedHoldings(blocks));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await testDb.drop();
    }
  });
});
