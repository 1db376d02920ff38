/**
 * The observer contract (DESIGN.md §4): malformed bodies are journaled,
 * answered 200, counted in /status and never block later blocks; duplicates change nothing; a
 * 65 MB body is accepted.
 */
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Service } from "../../../runtime/service.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../../support/fixtures.js";
import { postObserver, startTestService } from "../../support/service.js";

const scenario2 = () =>
  readReplayTsv(path.join(FIXTURES_DIR, "observer/stacks-blockchain-api/mainnet-reorg-scenario2.tsv")).filter(
    (r) => r.path === "/new_block",
  );

async function journalStates(db: TestDb["db"]): Promise<Record<string, number>> {
  const { rows } = await db.query<{ state: string; n: string }>(
    "SELECT state, count(*) AS n FROM control.journal GROUP BY state",
  );
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

async function getStatus(service: Service) {
  const res = await fetch(`${service.apiUrl}/status`);
  expect(res.status).toBe(200);
  return (await res.json()) as { counts: { malformed_payloads: number; blocks: number } };
}

describe.skipIf(!hasFixtures)("observer robustness", () => {
  let testDb: TestDb;
  let service: Service;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  beforeEach(async () => {
    await service?.stop();
    await testDb.reset();
    service = await startTestService(testDb.db);
  });
  afterAll(async () => {
    await service?.stop();
    await testDb?.drop();
  });

  it("answers 200 to malformed bodies, records why, and keeps ingesting later blocks", async () => {
    const [first, second] = scenario2();
    const bad = JSON.parse(first.body);
    const cases: [string, string][] = [
      ["/new_block", "{not json"],
      ["/new_block", JSON.stringify({ ...bad, index_block_hash: undefined })],
      [
        "/new_block",
        JSON.stringify({
          ...bad,
          transactions: bad.transactions.map((t: object, i: number) => (i === 0 ? { ...t, raw_tx: "0xzz" } : t)),
        }),
      ],
      ["/new_burn_block", JSON.stringify({ burn_block_hash: 42 })],
    ];
    for (const [p, body] of cases) await postObserver(service.observerUrl, p, body);
    await postObserver(service.observerUrl, first.path, first.body);
    await postObserver(service.observerUrl, second.path, second.body);
    await service.idle();

    const { rows } = await testDb.db.query<{ error: string }>(
      "SELECT error FROM control.journal WHERE state = 'malformed' ORDER BY id",
    );
    expect(rows.map((r) => r.error)).toEqual([
      expect.stringMatching(/not JSON/),
      expect.stringMatching(/index_block_hash/),
      expect.stringMatching(/raw_tx/),
      expect.stringMatching(/burn_block_hash/),
    ]);
    const status = await getStatus(service);
    expect(status.counts.malformed_payloads).toBe(cases.length);
    const blocks = await testDb.db.query("SELECT 1 FROM chain.blocks");
    expect(blocks.rows.length).toBe(2);
  });

  it("a block the database refuses is recorded with the database's reason, and later blocks go on", async () => {
    const [first, second] = scenario2();
    const block = JSON.parse(first.body);
    // A microblock sequence beyond the column's range: decodes, but the database refuses it (a
    // data exception, so on every run), while the hooks' statements queue behind the insert.
    const refused = JSON.stringify({
      ...block,
      transactions: block.transactions.map((t: object, i: number) =>
        i === 0 ? { ...t, microblock_sequence: 2 ** 40 } : t,
      ),
    });
    await postObserver(service.observerUrl, first.path, refused);
    await postObserver(service.observerUrl, first.path, first.body);
    await postObserver(service.observerUrl, second.path, second.body);
    await service.idle();

    const { rows } = await testDb.db.query<{ error: string }>(
      "SELECT error FROM control.journal WHERE state = 'malformed' ORDER BY id",
    );
    expect(rows.map((r) => r.error)).toEqual([expect.stringMatching(/database rejected the data: .*out of range/)]);
    expect(rows[0].error).not.toMatch(/transaction is aborted/);
    const blocks = await testDb.db.query("SELECT 1 FROM chain.blocks");
    expect(blocks.rows.length).toBe(2);
  });

  it("stores a block posted twice once; the second post changes nothing", async () => {
    const [first] = scenario2();
    await postObserver(service.observerUrl, first.path, first.body);
    await service.idle();
    const before = await testDb.db.query("SELECT * FROM control.chain_tip");
    const eventsBefore = await testDb.db.query("SELECT count(*) AS n FROM chain.events");
    await postObserver(service.observerUrl, first.path, first.body);
    await service.idle();
    const after = await testDb.db.query("SELECT * FROM control.chain_tip");
    const eventsAfter = await testDb.db.query("SELECT count(*) AS n FROM chain.events");
    expect(eventsAfter.rows).toEqual(eventsBefore.rows);
    expect({ ...after.rows[0], last_block_at: null }).toEqual({ ...before.rows[0], last_block_at: null });
    expect(await journalStates(testDb.db)).toEqual({ done: 2 });
  });

  it("journals requests on every observer path and unknown paths alike, answering 200", async () => {
    for (const p of [
      "/new_mempool_tx",
      "/drop_mempool_tx",
      "/new_microblocks",
      "/attachments/new",
      "/stackerdb_chunks",
      "/proposal_response",
      "/something_new",
    ]) {
      await postObserver(service.observerUrl, p, "[]");
    }
    await service.idle();
    expect(await journalStates(testDb.db)).toEqual({ done: 7 });
  });

  it("accepts a 65 MB block body and stores the block", async () => {
    const [first] = scenario2();
    const big = JSON.stringify({ ...JSON.parse(first.body), padding: "x".repeat(65 * 1024 * 1024) });
    expect(Buffer.byteLength(big)).toBeGreaterThan(65 * 1024 * 1024);
    await postObserver(service.observerUrl, "/new_block", big);
    await service.idle();
    const { rows } = await testDb.db.query<{ body_bytes: number }>("SELECT body_bytes FROM control.journal");
    expect(rows[0].body_bytes).toBe(Buffer.byteLength(big));
    const blocks = await testDb.db.query("SELECT 1 FROM chain.blocks WHERE canonical");
    expect(blocks.rows.length).toBe(1);
  });
});
