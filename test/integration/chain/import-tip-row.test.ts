/**
 * The chain tip row after import transactions of many blocks, on a simulated chain with many forks:
 * side blocks below the tip, ties, reorgs and burn blocks fall inside one transaction, where
 * extensions and side blocks change the tip in memory and the row is written once. Whatever the
 * batching, the row holds what an independent model of the requests computes
 * (test/support/chain-model.ts): every stored block counted, the canonical tip and its counters,
 * the reorgs, the burn height and the finality boundary.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIngestor } from "../../../runtime/chain/ingest.js";
import { importReplayFile } from "../../../runtime/cli/import.js";
import { silentLogger } from "../../../runtime/internal/logger.js";
import { writeSimulation } from "../../../runtime/simulator/index.js";
import { expectedChain, expectedFinality, type RawRequest } from "../../support/chain-model.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { readReplayTsv } from "../../support/fixtures.js";

const CONFIRMATIONS = 3;

describe("the tip row after multi-block import transactions", () => {
  let t: TestDb;
  let file: string;
  let requests: RawRequest[];
  beforeAll(async () => {
    t = await createTestDb();
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sluice-tip-row-")), "chain.tsv");
    await writeSimulation({ blocks: 120, eventsPerBlock: 4, forkRate: 0.25, network: "devnet", seed: "tip-row" }, file);
    requests = readReplayTsv(file).map((r) => ({ path: r.path, body: r.body }));
  });
  afterAll(async () => {
    await t?.drop();
    if (file) fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  const want = () => {
    const chain = expectedChain(requests);
    const finality = expectedFinality(requests, CONFIRMATIONS);
    let burn: number | null = null;
    for (const r of requests) {
      if (r.path !== "/new_block" && r.path !== "/new_burn_block") continue;
      const h = JSON.parse(r.body).burn_block_height;
      if (typeof h === "number") burn = Math.max(burn ?? h, h);
    }
    const last = finality.steps[finality.steps.length - 1];
    return {
      index_block_hash: chain.tipHash,
      block_height: chain.tipHeight,
      burn_block_height: burn,
      blocks_ingested: chain.storedBlocks,
      canonical_txs: chain.canonicalTxs,
      canonical_events: Object.values(chain.eventCounts).reduce((a, b) => a + b, 0),
      reorg_count: chain.reorgForkPoints.length,
      reorgs_below_finality: last.reorgsBelowFinality,
      finalized_height: last.finalizedHeight,
    };
  };

  it("the chain has what the test needs: side blocks below the tip, and reorgs", () => {
    const chain = expectedChain(requests);
    const blocks = requests.filter((r) => r.path === "/new_block").length;
    expect(chain.storedBlocks).toBeGreaterThan(chain.canonicalHashes.size + 10);
    expect(chain.reorgForkPoints.length).toBeGreaterThan(3);
    expect(blocks).toBeGreaterThanOrEqual(chain.storedBlocks);
  });

  for (const maxRequests of [5, 1024]) {
    it(`${maxRequests} request(s) per transaction: the row equals the model`, async () => {
      await t.reset();
      const ingestor = createIngestor({ db: t.db, logger: silentLogger, finalityBurnConfirmations: CONFIRMATIONS });
      await importReplayFile(file, ingestor, undefined, { batch: { maxRequests } });
      const { rows } = await t.db.query<Record<string, unknown>>(
        `SELECT index_block_hash, block_height, burn_block_height, blocks_ingested::int, canonical_txs::int,
                canonical_events::int, reorg_count::int, reorgs_below_finality::int, finalized_height
           FROM control.chain_tip`,
      );
      const got = Object.fromEntries(
        Object.entries(rows[0]).map(([k, v]) => [k, typeof v === "string" && k !== "index_block_hash" ? Number(v) : v]),
      );
      expect(got).toEqual(want());
    });
  }
});
