/**
 * ETags of the list routes are derived from the query and the chain / subgraph stamp, not from
 * the body (runtime/api/events/page.ts pageEtag, runtime/api/subgraphs/read-routes.ts): over real
 * HTTP and real ingestion, a page's ETag stays the same while nothing changes (with the page cache
 * on or off), differs for another query, changes when a new block arrives (pages near the tip),
 * stays put on an immutable page, and a matching If-None-Match gets a 304. PGlite only: the
 * behaviour is the HTTP layer's, not the driver's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../../runtime/service.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import type { RawRequest } from "../../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { postObserver, startTestService } from "../../../support/service.js";

const requests: RawRequest[] = simulateChain({
  seed: "etag-basis",
  blocks: 30,
  eventsPerBlock: 8,
  forkRate: 0,
}).payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
const lastBlock = requests.map((r) => r.path).lastIndexOf("/new_block");

/** A near-tip Streams page, the same with another filter, a first (finalized) Index page, a subgraph list. */
const TIP_PAGE = "/v1/streams/events?limit=1000";
const OTHER_FILTER = "/v1/streams/events?limit=1000&types=stx_transfer";
/** Fewer events and rows than either limit: the same body as the page above, another query. */
const OTHER_LIMIT = "/v1/streams/events?limit=999";
const FIRST_PAGE = "/v1/index/events?limit=3";
const ROWS = "/v1/subgraphs/asset-holdings/holdings?_limit=1000";
const OTHER_ROWS = "/v1/subgraphs/asset-holdings/holdings?_limit=999";

// fetch adds `Cache-Control: no-cache` to a conditional request unless given one: send what a
// revalidating cache sends.
const revalidate = (etag: string) => ({ "if-none-match": etag, "cache-control": "max-age=0" });

async function etagOf(service: Service, path: string): Promise<{ etag: string; cacheControl: string }> {
  const res = await fetch(service.apiUrl + path);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${body}`);
  const etag = res.headers.get("etag") ?? "";
  expect(etag, path).toMatch(/^W\/"[^"]+"$/);
  return { etag, cacheControl: res.headers.get("cache-control") ?? "" };
}

describe("ETags from the query and the stamp", () => {
  let testDb: TestDb;
  let cached: Service;
  let uncached: Service;
  beforeAll(async () => {
    testDb = await createTestDb();
    cached = await startTestService(testDb.db);
    uncached = await startTestService(testDb.db, { PAGE_CACHE_MB: "0" });
    for (const r of requests.slice(0, lastBlock)) await postObserver(cached.observerUrl, r.path, r.body);
    await cached.idle();
    await cached.subgraphs.idle();
  });
  afterAll(async () => {
    await uncached?.stop();
    await cached?.stop();
    await testDb?.drop();
  });

  it("stay equal while nothing changes, differ by query, change with a new block; If-None-Match → 304", async () => {
    const before: Record<string, string> = {};
    for (const path of [TIP_PAGE, OTHER_FILTER, OTHER_LIMIT, FIRST_PAGE, ROWS, OTHER_ROWS]) {
      const first = await etagOf(cached, path);
      expect((await etagOf(cached, path)).etag, path).toBe(first.etag); // a cache hit
      expect((await etagOf(uncached, path)).etag, path).toBe(first.etag); // PAGE_CACHE_MB=0
      const notModified = await fetch(cached.apiUrl + path, { headers: revalidate(first.etag) });
      expect(notModified.status, path).toBe(304);
      expect(notModified.headers.get("etag"), path).toBe(first.etag);
      before[path] = first.etag;
    }
    expect(before[OTHER_FILTER]).not.toBe(before[TIP_PAGE]);
    expect(before[OTHER_LIMIT]).not.toBe(before[TIP_PAGE]);
    expect(before[OTHER_ROWS]).not.toBe(before[ROWS]);
    const firstPage = await etagOf(cached, FIRST_PAGE);
    expect(firstPage.cacheControl).toContain("immutable"); // three events of a 30-block chain are final

    for (const r of requests.slice(lastBlock)) await postObserver(cached.observerUrl, r.path, r.body);
    await cached.idle();
    await cached.subgraphs.idle();

    for (const path of [TIP_PAGE, ROWS]) {
      const after = await etagOf(cached, path);
      expect(after.etag, path).not.toBe(before[path]);
      expect((await etagOf(uncached, path)).etag, path).toBe(after.etag);
      const stale = await fetch(cached.apiUrl + path, { headers: revalidate(before[path]) });
      expect(stale.status, path).toBe(200);
      await stale.arrayBuffer();
    }
    // An immutable page's content cannot change: its ETag stays.
    expect((await etagOf(cached, FIRST_PAGE)).etag).toBe(before[FIRST_PAGE]);
  });
});
