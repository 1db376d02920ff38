/**
 * The Index / Streams page cache (runtime/api/events/page-cache.ts) over real HTTP: while a
 * simulated chain with forks is ingested block by block, the tip pages read after each block
 * equal an independent model of the chain so far (a cached page is never older than the
 * database, reorgs included); immutable pages answer the same events and ETag with the current
 * tip; a service with PAGE_CACHE_MB=0 answers byte for byte the same bodies; while the listening
 * connection is down (PostgreSQL), an immutable page is checked against the tip row instead.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChainHub } from "../../../../runtime/api/events/chain-hub.js";
import { LISTENER_APPLICATION_NAME } from "../../../../runtime/db/pg-listener.js";
import { silentLogger } from "../../../../runtime/internal/logger.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import type { RawRequest } from "../../../support/chain-model.js";
import { PG_ADMIN_URL, TEST_DB_KIND, type TestDb, createTestDb } from "../../../support/db.js";
import { postObserver, startTestService, waitFor } from "../../../support/service.js";
import { modelChain, pick } from "../../../support/read-api-model.js";

type Page = {
  events: Record<string, unknown>[];
  next_cursor: string;
  tip: { block_height: number | null; finalized_height: number | null };
};

const requests: RawRequest[] = simulateChain({
  seed: "page-cache",
  blocks: 40,
  eventsPerBlock: 12,
  forkRate: 0.2,
}).payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));

async function get(url: string): Promise<{ page: Page; body: string; etag: string | null }> {
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${body}`);
  return { page: JSON.parse(body) as Page, body, etag: res.headers.get("etag") };
}

describe("Index / Streams page cache", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  it("never answers a page older than the database while blocks and reorgs arrive", async () => {
    await testDb.reset();
    const service = await startTestService(testDb.db);
    try {
      const base = service.apiUrl;
      let reorgsSeen = 0;
      for (let i = 0; i < requests.length; i++) {
        await postObserver(service.observerUrl, requests[i].path, requests[i].body);
        if (requests[i].path !== "/new_block") continue;
        await service.idle();
        const model = modelChain(requests.slice(0, i + 1));
        // Read twice: the second read is the cached one.
        for (let twice = 0; twice < 2; twice++) {
          const all = await get(`${base}/v1/index/events?limit=1000`);
          expect(all.page.events.map(pick)).toEqual(model.events);
          expect(all.page.tip.block_height).toBe(model.tipHeight);
          const prints = await get(`${base}/v1/streams/events?types=print,ft_transfer&limit=1000`);
          expect(prints.page.events.map(pick)).toEqual(
            model.events.filter((e) => e.event_type === "print" || e.event_type === "ft_transfer"),
          );
        }
        reorgsSeen = model.orphanedHashes.size;
      }
      expect(reorgsSeen).toBeGreaterThan(0);
    } finally {
      await service.stop();
    }
  });

  it("answers an immutable page from memory with the current tip; PAGE_CACHE_MB=0 gives the same bodies", async () => {
    await testDb.reset();
    const cached = await startTestService(testDb.db);
    const uncached = await startTestService(testDb.db, { PAGE_CACHE_MB: "0" });
    try {
      for (const r of requests) await postObserver(cached.observerUrl, r.path, r.body);
      await cached.idle();
      const model = modelChain(requests);
      const first = await get(`${cached.apiUrl}/v1/index/events?limit=5`);
      const fin = first.page.tip.finalized_height;
      expect(fin).not.toBeNull();
      const lastHeight = first.page.events.at(-1)?.block_height as number;
      expect(lastHeight).toBeLessThanOrEqual(fin as number);
      const again = await get(`${cached.apiUrl}/v1/index/events?limit=5`);
      expect(again.body).toBe(first.body);
      expect(again.etag).toBe(first.etag);
      expect(again.page.events.map(pick)).toEqual(model.events.slice(0, 5));
      const queries = [
        "/v1/index/events?limit=5",
        "/v1/index/events?limit=1000",
        `/v1/index/events?limit=7&cursor=${model.events[20].cursor}`,
        "/v1/streams/events?types=print&limit=3",
        `/v1/streams/events?not_types=print&limit=50&cursor=${model.events[10].cursor}`,
      ];
      for (const q of queries) {
        const a = await get(`${cached.apiUrl}${q}`);
        const b = await get(`${cached.apiUrl}${q}`);
        const c = await get(`${uncached.apiUrl}${q}`);
        expect(b.body).toBe(a.body);
        expect(c.body).toBe(a.body);
        expect(c.etag).toBe(a.etag);
      }
    } finally {
      await uncached.stop();
      await cached.stop();
    }
  });

  it.skipIf(TEST_DB_KIND !== "postgres")(
    "while the listening connection is down, an immutable page is checked against the tip row",
    async () => {
      await testDb.reset();
      const service = await startTestService(testDb.db);
      // A second hub on the same driver shares its listening connection: it tells when it is down.
      const watcher = await createChainHub({ db: testDb.db, logger: silentLogger });
      const database = pg.escapeIdentifier(new URL(testDb.url as string).pathname.slice(1));
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL }); // ALTER DATABASE from outside it
      await admin.connect();
      try {
        for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
        await service.idle();
        const url = `${service.apiUrl}/v1/index/events?limit=5`;
        const before = await get(url);
        expect(before.page.events.at(-1)?.block_height as number).toBeLessThanOrEqual(
          before.page.tip.finalized_height as number,
        );
        expect((await get(url)).etag).toBe(before.etag); // cached, immutable
        // The listening connection cannot be made again until the end (open pool connections stay).
        await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
        const { rows } = await testDb.db.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1",
          [LISTENER_APPLICATION_NAME],
        );
        await testDb.db.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) pid", [rows.map((r) => r.pid)]);
        await waitFor(() => !watcher.live, { intervalMs: 1 });
        // A reorg below finality nobody is notified of: the immutable page must be read again.
        await testDb.db.query("UPDATE control.chain_tip SET reorgs_below_finality = reorgs_below_finality + 1");
        const during = await get(url);
        expect(during.etag, "not answered from the hub's last notification").not.toBe(before.etag);
        expect(during.page.events).toEqual(before.page.events);
      } finally {
        await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
        await admin.end();
        await waitFor(() => watcher.live, { timeoutMs: 15_000 });
        await watcher.close();
        await service.stop();
      }
    },
  );
});
