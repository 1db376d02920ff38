/**
 * A subgraph whose rows the database refuses (runtime/subgraphs/
 * block-apply.ts): the block transaction runs without savepoints, fails, is rolled back and run
 * again with each subgraph isolated. The refusing subgraph is marked failed at its last good block;
 * every block is still ingested and the other subgraphs go on. Checked on the observer path (one
 * request per transaction) and on `sluice import` (many requests per transaction).
 *
 * The refusal: from block FROM on, `clash` inserts the same unique key for every STX transfer, so
 * the database refuses its rows in the first block that holds the second such transfer. The test
 * finds that block in the simulated payloads.
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

const FROM = 15;

const CLASH = `name: clash
version: 1.0.0
description: One row per STX transfer from a height on, all under one unique key (refused from the second on).
sources:
  xfer:
    type: stx_transfer
tables:
  once:
    columns:
      k: { type: text }
      amount: { type: uint }
    uniqueKeys:
      - [k]
handlers:
  xfer:
    - insert: once
      when: block.height >= ${FROM}
      values:
        k: same
        amount: \${event.amount}
`;

const SIMULATION = { seed: "subgraph-failure", blocks: 40, eventsPerBlock: 12, forkRate: 0 };

/** The first block holding the second committed STX transfer from FROM on, and how many came before it. */
function refusal(blocks: RawBlock[]): { height: number; rowsBefore: number } {
  let seen = 0;
  for (const b of blocks.filter((x) => x.block_height >= FROM)) {
    const here = b.events.filter((e: RawBlock) => e.committed && e.type === "stx_transfer_event").length;
    if (seen + here >= 2) return { height: b.block_height, rowsBefore: seen };
    seen += here;
  }
  throw new Error("the simulation has fewer than two STX transfers");
}

describe("a subgraph whose rows the database refuses", () => {
  let testDb: TestDb;
  let requests: RawRequest[];
  let blocks: RawBlock[];
  beforeAll(async () => {
    testDb = await createTestDb();
    requests = simulateChain(SIMULATION).payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    blocks = canonicalBlocks(requests);
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  async function expectIsolated(): Promise<void> {
    const db = testDb.db;
    const { height, rowsBefore } = refusal(blocks);
    const tip = blocks[blocks.length - 1].block_height;
    expect(height).toBeLessThan(tip); // blocks follow the refused one
    expect(blocks.map((b) => b.block_height)).toContain(height - 1); // the last good block

    const { rows: status } = await db.query<{ name: string; status: string; subgraph_height: number; error: string }>(
      `SELECT s.name, s.status, p.subgraph_height, s.error FROM control.subgraphs s
         JOIN control.subgraph_progress p USING (name) ORDER BY s.name`,
    );
    const clash = status.find((s) => s.name === "clash");
    expect(clash).toMatchObject({ status: "failed", subgraph_height: height - 1 });
    expect(clash?.error).toMatch(/duplicate key|unique/i);
    for (const other of status.filter((s) => s.name !== "clash"))
      expect(other, other.name).toMatchObject({ status: "ready", subgraph_height: tip });

    const { rows: kept } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM sg_clash.once");
    expect(kept[0].n).toBe(rowsBefore);

    const { rows: chain } = await db.query<{ block_height: number }>("SELECT block_height FROM control.chain_tip");
    expect(chain[0].block_height).toBe(tip);
    const { rows: refused } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM control.journal WHERE state = 'malformed'",
    );
    expect(refused[0].n).toBe(0);

    expect(await readHoldings(db)).toEqual(expectedHoldings(blocks));
    expect(await readContracts(db)).toEqual(expectedContracts(blocks));
  }

  it("observer path: the refusing subgraph fails at its last good block; every block and the other subgraphs go on", async () => {
    await testDb.reset();
    const service = await startTestService(testDb.db, { NETWORK: "devnet" });
    try {
      await service.subgraphs.deploy(CLASH, "yaml");
      await service.subgraphs.idle();
      for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
      await service.idle();
      await expectIsolated();
    } finally {
      await service.stop();
    }
  });

  it("import: the same, with many requests per transaction", async () => {
    await testDb.reset();
    const file = path.join(fs.mkdtempSync(path.join(".tmp", "subgraph-failure-")), "chain.tsv");
    try {
      await writeSimulation(SIMULATION, file);
      const summary = await importWithSpec(testDb.db, file, CLASH, 16);
      expect(summary.malformed).toBe(0);
      await expectIsolated();
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});
