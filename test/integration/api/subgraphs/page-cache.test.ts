/**
 * The subgraph list page cache (runtime/api/subgraphs/page-cache.ts) over real HTTP and real
 * ingestion: a repeated page is byte-identical to the one the service answers with the cache
 * off, and its ETag gets a 304; after more blocks, and after a reindex, the same URL answers what
 * the table holds now (read here with SQL), never the cached page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../../runtime/service.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import type { RawRequest } from "../../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { postObserver, startTestService } from "../../../support/service.js";

const PAGE = "/v1/subgraphs/asset-holdings/holdings?_limit=1000&_order=desc";

describe("subgraph list page cache", () => {
  let testDb: TestDb;
  let requests: RawRequest[];
  beforeAll(async () => {
    testDb = await createTestDb();
    const { payloads } = simulateChain({ seed: "page-cache", blocks: 40, eventsPerBlock: 10, forkRate: 0.1 });
    requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  /** The page as the table holds it now: [holder|asset, amount] by _id descending, and the chain tip. */
  async function fromTable(): Promise<{ rows: string[][]; tip: number }> {
    const { rows } = await testDb.db.query<{ key: string; amount: string }>(
      `SELECT holder || '|' || asset_identifier AS key, amount::text AS amount
         FROM sg_asset_holdings.holdings ORDER BY _id DESC LIMIT 1000`,
    );
    const { rows: tip } = await testDb.db.query<{ h: number }>("SELECT block_height AS h FROM control.chain_tip");
    return { rows: rows.map((r) => [r.key, r.amount]), tip: Number(tip[0].h) };
  }

  async function fetchPage(service: Service): Promise<{ text: string; rows: string[][]; tip: number }> {
    const res = await fetch(service.apiUrl + PAGE);
    expect(res.status).toBe(200);
    const text = await res.text();
    const body = JSON.parse(text) as {
      rows: { holder: string; asset_identifier: string; amount: string }[];
      tip: { block_height: number };
    };
    return {
      text,
      rows: body.rows.map((r) => [`${r.holder}|${r.asset_identifier}`, r.amount]),
      tip: body.tip.block_height,
    };
  }

  it("answers what the table holds after new blocks and after a reindex; the same bytes as with the cache off", async () => {
    await testDb.reset();
    const half = requests.findIndex((r) => r.path === "/new_block" && JSON.parse(r.body).block_height === 20);
    const service = await startTestService(testDb.db, { NETWORK: "devnet" });
    try {
      for (const r of requests.slice(0, half)) await postObserver(service.observerUrl, r.path, r.body);
      await service.idle();
      const first = await fetchPage(service);
      expect({ rows: first.rows, tip: first.tip }).toEqual(await fromTable());
      expect(first.rows.length).toBeGreaterThan(0);
      expect((await fetchPage(service)).text).toBe(first.text);
      const etag = (await fetch(service.apiUrl + PAGE)).headers.get("etag") ?? "";
      expect(etag).toMatch(/^W\/"/);
      // fetch adds `Cache-Control: no-cache` to a conditional request unless given one (no-cache asks
      // for a full answer): send what a revalidating cache sends.
      const revalidate = { "if-none-match": etag, "cache-control": "max-age=0" };
      const unchanged = await fetch(service.apiUrl + PAGE, { headers: revalidate });
      expect(unchanged.status).toBe(304);

      for (const r of requests.slice(half)) await postObserver(service.observerUrl, r.path, r.body);
      await service.idle();
      const later = await fetchPage(service);
      const now = await fromTable();
      expect(now).not.toEqual({ rows: first.rows, tip: first.tip }); // the blocks changed the table
      expect({ rows: later.rows, tip: later.tip }).toEqual(now);
      const changed = await fetch(service.apiUrl + PAGE, { headers: revalidate });
      expect(changed.status).toBe(200);

      await service.subgraphs.reindex("asset-holdings");
      await service.subgraphs.idle();
      const rebuilt = await fetchPage(service);
      expect({ rows: rebuilt.rows, tip: rebuilt.tip }).toEqual(await fromTable());

      const uncached = await startTestService(testDb.db, { NETWORK: "devnet", PAGE_CACHE_MB: "0" });
      try {
        const plain = await fetchPage(uncached);
        const cached = await fetchPage(service);
        expect(cached.text).toBe(plain.text);
      } finally {
        await uncached.stop();
      }
    } finally {
      await service.stop();
    }
  });
});
