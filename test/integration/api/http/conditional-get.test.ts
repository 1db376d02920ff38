/**
 * Conditional GET from real clients (SPEC.md print-schema cache, "304"; RFC 9110 §13.1.2,
 * §15.4.5): Node's own `fetch()` with If-None-Match — which adds `Cache-Control: no-cache` to the
 * request — gets a 304 keeping ETag and Cache-Control on every route that sends an ETag, and a
 * 200 with the full body when the tag does not match.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../../runtime/service.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { postObserver, startTestService } from "../../../support/service.js";

let testDb: TestDb;
let service: Service;
let printingContract: string;

beforeAll(async () => {
  testDb = await createTestDb();
  service = await startTestService(testDb.db, { NETWORK: "devnet" });
  const { payloads } = simulateChain({ seed: "conditional-get", blocks: 30, eventsPerBlock: 10, forkRate: 0 });
  for (const p of payloads) await postObserver(service.observerUrl, p.path, JSON.stringify(p.body));
  await service.idle();
  await service.subgraphs.idle();
  const { rows } = await testDb.db.query<{ contract_id: string }>(
    "SELECT contract_id FROM chain.events WHERE event_type = 'print' AND canonical AND committed LIMIT 1",
  );
  printingContract = rows[0].contract_id;
});
afterAll(async () => {
  await service?.stop();
  await testDb?.drop();
});

/** The headers Node's fetch really sends for a request with If-None-Match (seen by a bare server). */
async function headersFetchSends(init: RequestInit): Promise<IncomingHttpHeaders> {
  let seen: IncomingHttpHeaders = {};
  const server = createServer((req, res) => {
    seen = req.headers;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, init)).text();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  return seen;
}

/** Every route that sends an ETag, by name (the print-schema URL needs the contract found above). */
const ROUTES: [string, () => string][] = [
  ["print-schema", () => `/v1/index/contracts/${printingContract}/print-schema`],
  ["Index page", () => "/v1/index/events?limit=5"],
  ["Streams page", () => "/v1/streams/events?limit=5&types=ft_transfer"],
  ["subgraph list page", () => "/v1/subgraphs/asset-holdings/holdings?_limit=5"],
  ["signing key", () => "/public/streams/signing-key"],
];

describe("If-None-Match with Node's fetch", () => {
  it("fetch adds Cache-Control: no-cache to a conditional request (the premise)", async () => {
    const headers = await headersFetchSends({ headers: { "if-none-match": 'W/"x"' } });
    expect(headers["if-none-match"]).toBe('W/"x"');
    expect(headers["cache-control"]).toBe("no-cache");
  });

  it.each(ROUTES)("%s: a matching weak ETag gets 304 keeping ETag and Cache-Control", async (_name, url) => {
    const route = url();
    const first = await fetch(service.apiUrl + route);
    expect(first.status, route).toBe(200);
    const body = await first.text();
    expect(body.length, route).toBeGreaterThan(2);
    const etag = first.headers.get("etag") as string;
    expect(etag, route).toMatch(/^W\/"[^"]+"$/);

    const revalidated = await fetch(service.apiUrl + route, { headers: { "if-none-match": etag } });
    expect(revalidated.status, route).toBe(304);
    expect(await revalidated.text(), route).toBe("");
    expect(revalidated.headers.get("etag"), route).toBe(etag);
    expect(revalidated.headers.get("cache-control"), route).toBe(first.headers.get("cache-control"));

    // Weak comparison ignores W/; a list matches when any member does; `*` matches any tag.
    const strong = etag.slice(2);
    for (const condition of [strong, `W/"other", ${etag}`, "*"]) {
      const res = await fetch(service.apiUrl + route, { headers: { "if-none-match": condition } });
      expect(res.status, `${route} If-None-Match: ${condition}`).toBe(304);
    }
  });

  it.each(ROUTES)("%s: a tag that does not match gets 200 with the whole body", async (_name, url) => {
    const route = url();
    const first = await fetch(service.apiUrl + route);
    const body = await first.text();
    const etag = first.headers.get("etag") as string;
    const other = `W/"${etag.slice(3, -1)}x"`;
    const res = await fetch(service.apiUrl + route, { headers: { "if-none-match": other } });
    expect(res.status, route).toBe(200);
    expect(res.headers.get("etag"), route).toBe(etag);
    expect(await res.text(), route).toBe(body);
  });
});
