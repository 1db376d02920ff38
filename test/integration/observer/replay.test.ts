/**
 * Replays every recorded fixture through the observer HTTP endpoint and checks the stored chain
 * against the independent model in test/support/chain-model.ts (DESIGN.md §2).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../runtime/service.js";
import { type ExpectedChain, type RawRequest, expectedChain } from "../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../../support/fixtures.js";
import { postObserver, startTestService } from "../../support/service.js";

const observerDir = path.join(FIXTURES_DIR, "observer");

function fixtureCases(): { name: string; requests: RawRequest[] }[] {
  if (!hasFixtures) return [];
  const cases: { name: string; requests: RawRequest[] }[] = [];
  const apiDir = path.join(observerDir, "stacks-blockchain-api");
  for (const f of fs.readdirSync(apiDir).sort()) {
    if (!/\.tsv(\.gz)?$/.test(f)) continue;
    cases.push({ name: f, requests: readReplayTsv(path.join(apiDir, f)).map((r) => ({ path: r.path, body: r.body })) });
  }
  const singles = [
    ...fs.readdirSync(path.join(apiDir, "single-blocks")).map((f) => path.join(apiDir, "single-blocks", f)),
    ...fs.readdirSync(path.join(observerDir, "sbtc")).map((f) => path.join(observerDir, "sbtc", f)),
  ].sort();
  for (const file of singles) {
    cases.push({
      name: path.relative(observerDir, file),
      requests: [{ path: "/new_block", body: fs.readFileSync(file, "utf8") }],
    });
  }
  return cases;
}

async function storedChain(db: TestDb["db"]) {
  const canonical = await db.query<{ index_block_hash: string }>(
    "SELECT index_block_hash FROM chain.blocks WHERE canonical",
  );
  const blocks = await db.query<{ n: string }>("SELECT count(*) AS n FROM chain.blocks");
  const txs = await db.query<{ n: string }>("SELECT count(*) AS n FROM chain.transactions WHERE canonical");
  const events = await db.query<{ event_type: string; n: string }>(
    "SELECT event_type, count(*) AS n FROM chain.events WHERE canonical AND committed GROUP BY event_type",
  );
  const keys = await db.query<{ k: string }>(
    "SELECT block_height || ':' || tx_id || ':' || node_event_index AS k FROM chain.events WHERE canonical AND committed",
  );
  const tip = await db.query<{ index_block_hash: string; block_height: number; canonical_events: string }>(
    "SELECT index_block_hash, block_height, canonical_events FROM control.chain_tip",
  );
  const reorgs = await db.query<{ fork_point_height: number }>(
    "SELECT fork_point_height FROM chain.reorgs ORDER BY id",
  );
  const malformed = await db.query<{ n: string }>(
    "SELECT count(*) AS n FROM control.journal WHERE state = 'malformed'",
  );
  return {
    canonicalHashes: new Set(canonical.rows.map((r) => r.index_block_hash)),
    storedBlocks: Number(blocks.rows[0].n),
    canonicalTxs: Number(txs.rows[0].n),
    eventCounts: Object.fromEntries(events.rows.map((r) => [r.event_type, Number(r.n)])),
    eventKeys: keys.rows.map((r) => r.k).sort(),
    tip: tip.rows[0],
    reorgForkPoints: reorgs.rows.map((r) => r.fork_point_height),
    malformed: Number(malformed.rows[0].n),
  };
}

describe.skipIf(!hasFixtures)("observer replay of recorded fixtures", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  for (const fixture of fixtureCases()) {
    it(`${fixture.name}: canonical chain, transactions and events match the fixture`, async () => {
      await testDb.reset();
      const service: Service = await startTestService(testDb.db);
      try {
        for (const r of fixture.requests) await postObserver(service.observerUrl, r.path, r.body);
        await service.idle();
        const want: ExpectedChain = expectedChain(fixture.requests);
        const got = await storedChain(testDb.db);
        expect(got.malformed).toBe(0);
        expect(got.storedBlocks).toBe(want.storedBlocks);
        expect(got.canonicalHashes).toEqual(want.canonicalHashes);
        expect(got.tip.index_block_hash).toBe(want.tipHash);
        expect(got.tip.block_height).toBe(want.tipHeight);
        expect(got.canonicalTxs).toBe(want.canonicalTxs);
        expect(got.eventCounts).toEqual(want.eventCounts);
        expect(got.eventKeys).toEqual(want.eventKeys);
        expect(Number(got.tip.canonical_events)).toBe(want.eventKeys.length);
        expect(got.reorgForkPoints).toEqual(want.reorgForkPoints);
      } finally {
        await service.stop();
      }
    });
  }

  it("the named quirks are present in the fixtures (guards the model itself)", () => {
    const byName = new Map(fixtureCases().map((c) => [c.name, expectedChain(c.requests)]));
    expect(byName.get("mainnet-reorg-scenario1.tsv")?.reorgForkPoints).toContain(30);
    expect(byName.get("mainnet-reorg-scenario2.tsv")?.reorgForkPoints).toEqual([2]);
    // balance-reorg: the late second h2 block never wins.
    expect(byName.get("balance-reorg.tsv.gz")?.reorgForkPoints).toEqual([]);
    const poison = fixtureCases().find((c) => c.name === "poisonmicroblock.tsv");
    const blockRows = poison?.requests.filter((r) => r.path === "/new_block") ?? [];
    expect(blockRows.length).toBe(2);
    expect(byName.get("poisonmicroblock.tsv")?.storedBlocks).toBe(1);
  });
});
