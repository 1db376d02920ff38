/**
 * Simulated chains with forks: ingested through the observer HTTP
 * endpoint, they end with exactly the canonical chain and event counts the simulator reports.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../runtime/service.js";
import { postToObserver, simulateChain } from "../../../runtime/simulator/index.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { startTestService } from "../../support/service.js";

const SEED = process.env.SEED ?? `sim-${Date.now() % 100_000}`;

describe(`simulated chain ingestion (seed ${SEED})`, () => {
  let testDb: TestDb;
  let service: Service;
  beforeAll(async () => {
    testDb = await createTestDb();
    service = await startTestService(testDb.db, { NETWORK: "devnet" });
  });
  afterAll(async () => {
    await service?.stop();
    await testDb?.drop();
  });

  it("250 blocks with a 15% fork rate: canonical chain, reorgs and per-type counts match the ground truth", async () => {
    const { payloads, truth } = simulateChain({ seed: SEED, blocks: 250, eventsPerBlock: 12, forkRate: 0.15 });
    expect(truth.forks.some((f) => f.outcome === "won")).toBe(true);
    expect(truth.forks.some((f) => f.outcome === "lost")).toBe(true);
    const sent = await postToObserver(service.observerUrl, payloads, { asFastAsAccepted: true });
    expect(sent.requests).toBe(payloads.length);
    await service.idle();

    const { rows: canonical } = await testDb.db.query<{ h: string; height: number }>(
      "SELECT index_block_hash AS h, block_height AS height FROM chain.blocks WHERE canonical ORDER BY block_height",
    );
    expect(canonical.map((r) => [r.height, r.h])).toEqual(truth.canonical.map((b) => [b.height, b.indexBlockHash]));
    const { rows: counts } = await testDb.db.query<{ event_type: string; n: number }>(
      "SELECT event_type, count(*)::int AS n FROM chain.events WHERE canonical AND committed GROUP BY 1",
    );
    const got = Object.fromEntries(counts.map((r) => [r.event_type, r.n]));
    const want = Object.fromEntries(Object.entries(truth.eventCounts).filter(([, n]) => n > 0));
    expect(got).toEqual(want);
    const { rows: reorgs } = await testDb.db.query<{ n: number }>("SELECT count(*)::int AS n FROM chain.reorgs");
    expect(reorgs[0].n).toBe(truth.forks.filter((f) => f.outcome === "won").length);
    const { rows: txs } = await testDb.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM chain.transactions WHERE canonical",
    );
    expect(txs[0].n).toBe(truth.txCount);
  });
});
