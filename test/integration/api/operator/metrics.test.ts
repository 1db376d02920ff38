/**
 * GET /metrics on a running service (README "Metrics"): the exposition is parsed with an
 * independent Prometheus text parser and each figure is checked against work the test did or
 * computed itself: blocks and events from the posted payloads, reorgs from a fork-choice model of
 * those payloads, rows from SELECT count(*), deliveries from a real receiver's 200 answers,
 * requests per route from the requests made, SSE clients from a stream opened and closed. Also
 * the instance-token rules of /metrics and /api/node with a token set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../../runtime/service.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { type Receiver, startReceiver } from "../../../support/receiver.js";
import { scrape } from "../../../support/scrape.js";
import { postObserver, startTestService, waitFor } from "../../../support/service.js";
import { type NodeBlock, blocksOf } from "../../../support/simulator-blocks.js";
import { openSse } from "../../../support/sse.js";
import { waitForOutboxDrained, webhookClient } from "../../../support/webhooks.js";

const TOKEN = "tok_operator-metrics-test";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const SEED = "operator-metrics";

let t: TestDb;
let svc: Service;
let receiver: Receiver;
let blocks: NodeBlock[];
let requests: { path: string; body: string }[];

/**
 * Reorgs the posted order causes under the documented fork choice (the highest block wins, a tie
 * keeps the first seen): a block that becomes the tip without the old tip among its ancestors.
 */
function countReorgs(posted: NodeBlock[]): number {
  const byHash = new Map<string, NodeBlock>();
  let tip: NodeBlock | null = null;
  let reorgs = 0;
  for (const b of posted) {
    byHash.set(b.index_block_hash, b);
    if (tip !== null && b.block_height <= tip.block_height) continue;
    if (tip !== null) {
      let a: NodeBlock | undefined = b;
      while (a && a.block_height > tip.block_height) a = byHash.get(a.parent_index_block_hash);
      if (a?.index_block_hash !== tip.index_block_hash) reorgs++;
    }
    tip = b;
  }
  return reorgs;
}

beforeAll(async () => {
  t = await createTestDb();
  svc = await startTestService(t.db, { WEBHOOK_ALLOW_PRIVATE: "true", INSTANCE_TOKEN: TOKEN });
  receiver = await startReceiver();
  const created = await webhookClient(svc.apiUrl, { token: TOKEN }).create({
    name: "metrics-hook",
    url: receiver.url,
    triggers: [{ type: "stx_transfer" }, { type: "ft_transfer" }],
  });
  if (created.status !== 201) throw new Error(`webhook not created: ${JSON.stringify(created.body)}`);
  const { payloads } = simulateChain({ seed: SEED, blocks: 16, eventsPerBlock: 6, forkRate: 0.25 });
  requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
  blocks = blocksOf(payloads);
  for (const r of requests) await postObserver(svc.observerUrl, r.path, r.body);
  // A block sent again (a node does after a restart): counted as a duplicate, its events not again.
  const resent = requests.find((r) => r.path === "/new_block");
  if (!resent) throw new Error("the simulation posted no block");
  await postObserver(svc.observerUrl, resent.path, resent.body);
  // One body no decoder accepts: journaled, acknowledged, counted as malformed.
  await postObserver(svc.observerUrl, "/new_block", '{"block_height": "not a block"}');
  await svc.idle();
  await svc.subgraphs.idle();
  await waitForOutboxDrained(t.db);
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
  await t?.drop();
});

describe("GET /metrics", () => {
  it("answers the Prometheus text format with sluice_ metrics and process metrics", async () => {
    const res = await fetch(`${svc.apiUrl}/metrics`, { headers: AUTH });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = await scrape(svc.apiUrl, AUTH);
    expect(m.value("sluice_process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(m.families.has("sluice_nodejs_eventloop_lag_seconds")).toBe(true);
    expect(m.families.has("sluice_node_reachable"), "no STACKS_NODE_RPC_URL: no node gauges").toBe(false);
    for (const [name, f] of m.families) {
      expect(name.startsWith("sluice_"), name).toBe(true);
      if (f.type === "COUNTER") expect(name.endsWith("_total"), name).toBe(true);
      if (f.type === "HISTOGRAM") expect(name.endsWith("_seconds"), name).toBe(true);
    }
  });

  it("ingest: blocks, events, apply-time observations, reorgs, malformed payloads and the tip", async () => {
    const m = await scrape(svc.apiUrl, AUTH);
    const distinct = new Map(blocks.map((b) => [b.index_block_hash, b]));
    const stored =
      m.sum("sluice_ingest_blocks_total") - (m.value("sluice_ingest_blocks_total", { result: "duplicate" }) ?? 0);
    expect(stored).toBe(distinct.size);
    expect(m.value("sluice_ingest_blocks_total", { result: "duplicate" })).toBe(1);
    const events = [...distinct.values()].reduce((n, b) => n + b.events.length, 0);
    expect(m.value("sluice_ingest_events_total")).toBe(events);
    // Every block request was timed, the re-sent one too (the malformed one has no block).
    expect(m.count("sluice_ingest_block_apply_seconds")).toBe(blocks.length + 1);
    const reorgs = countReorgs(blocks);
    expect(reorgs, `seed ${SEED} should fork`).toBeGreaterThan(0);
    expect(m.value("sluice_ingest_reorgs_total")).toBe(reorgs);
    expect(m.value("sluice_ingest_malformed_payloads_total")).toBe(1);
    expect(m.value("sluice_ingest_tip_height")).toBe(Math.max(...blocks.map((b) => b.block_height)));
    expect(m.value("sluice_ingest_journal_backlog")).toBe(0);
    expect(m.value("sluice_ingest_burn_lag_blocks")).toBeGreaterThanOrEqual(0);
  });

  it("subgraphs: rows per table equal SELECT count(*), heights reach the tip, no failures", async () => {
    const m = await scrape(svc.apiUrl, AUTH);
    const tip = Math.max(...blocks.map((b) => b.block_height));
    const rowLabels = m.labels("sluice_subgraph_rows");
    expect(rowLabels.length).toBeGreaterThan(0);
    let nonEmpty = 0;
    for (const { subgraph, table } of rowLabels) {
      const { rows: schema } = await t.db.query<{ schema: string }>("SELECT 'sg_' || replace($1, '-', '_') AS schema", [
        subgraph,
      ]);
      const { rows } = await t.db.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema[0].schema}"."${table}"`);
      expect(m.value("sluice_subgraph_rows", { subgraph, table }), `${subgraph}.${table}`).toBe(Number(rows[0].n));
      if (Number(rows[0].n) > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(0);
    for (const { subgraph } of m.labels("sluice_subgraph_height")) {
      expect(m.value("sluice_subgraph_height", { subgraph }), subgraph).toBe(tip);
      expect(m.value("sluice_subgraph_status", { subgraph, status: "ready" }), subgraph).toBe(1);
    }
    // Live blocks were applied to the subgraphs and timed.
    expect(m.sum("sluice_subgraph_failures_total")).toBe(0);
    const timed = m.labels("sluice_subgraph_apply_seconds").filter((l) => l.subgraph !== undefined);
    expect(timed.length).toBeGreaterThan(0);
  });

  it("webhooks: delivered attempts equal the receiver's 200 answers; nothing pending or dead", async () => {
    const answered200 = receiver.requests.filter((r) => r.status === 200).length;
    expect(answered200).toBeGreaterThan(0);
    const m = await scrape(svc.apiUrl, AUTH);
    expect(m.value("sluice_webhook_attempts_total", { outcome: "delivered" })).toBe(answered200);
    expect(m.value("sluice_webhook_attempts_total", { outcome: "dead" })).toBe(0);
    expect(m.count("sluice_webhook_attempt_seconds")).toBe(receiver.requests.length);
    expect(m.value("sluice_webhook_outbox_pending")).toBe(0);
    expect(m.value("sluice_webhook_dead_letters")).toBe(0);
    const [hook] = m.labels("sluice_webhook_circuit_state").map((l) => l.webhook);
    expect(m.value("sluice_webhook_circuit_state", { webhook: hook, state: "closed" })).toBe(1);
    expect(m.value("sluice_webhook_circuit_state", { webhook: hook, state: "open" })).toBe(0);
  });

  it("api: requests counted by route pattern and status, never by raw URL", async () => {
    const before = await scrape(svc.apiUrl, AUTH);
    const route = "/v1/subgraphs/:name";
    const at = (s: typeof before, labels: Record<string, string>) => s.value("sluice_api_requests_total", labels) ?? 0;
    const names = ["bns-names", "no-such-subgraph", "another-missing"];
    const statuses: Record<string, number> = {};
    for (const name of names) {
      const res = await fetch(`${svc.apiUrl}/v1/subgraphs/${name}`);
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
    for (let i = 0; i < 2; i++) await (await fetch(`${svc.apiUrl}/no/such/path/${i}`)).arrayBuffer();
    await (await fetch(`${svc.apiUrl}/metrics`)).arrayBuffer(); // no token: 401
    const after = await scrape(svc.apiUrl, AUTH);
    for (const [status, n] of Object.entries(statuses)) {
      expect(at(after, { method: "GET", route, status }) - at(before, { method: "GET", route, status })).toBe(n);
    }
    expect(at(after, { route: "unmatched", status: "404" }) - at(before, { route: "unmatched", status: "404" })).toBe(
      2,
    );
    expect(at(after, { route: "/metrics", status: "401" }) - at(before, { route: "/metrics", status: "401" })).toBe(1);
    const routes = new Set(after.labels("sluice_api_requests_total").map((l) => l.route));
    for (const r of routes) expect(r === "unmatched" || r.startsWith("/"), r).toBe(true);
    expect([...routes].some((r) => r.includes("bns-names") || r.includes("no-such"))).toBe(false);
    expect(after.count("sluice_api_request_seconds", { method: "GET", route })).toBe(
      (before.count("sluice_api_request_seconds", { method: "GET", route }) ?? 0) + names.length,
    );
  });

  it("api: an events page and a subgraph page, each read twice, are a page-cache miss, then a hit", async () => {
    const lookups = (s: Awaited<ReturnType<typeof scrape>>, cache: string, result: string) =>
      s.value("sluice_api_page_cache_lookups_total", { cache, result }) ?? 0;
    const before = await scrape(svc.apiUrl, AUTH);
    const [table] = before.labels("sluice_subgraph_rows");
    const urls = {
      events: `${svc.apiUrl}/v1/index/events?limit=3&from_height=1`,
      subgraphs: `${svc.apiUrl}/v1/subgraphs/${table.subgraph}/${table.table}?_limit=2`,
    };
    for (const url of Object.values(urls)) {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(url);
        expect(res.status, url).toBe(200);
        await res.arrayBuffer();
      }
    }
    const after = await scrape(svc.apiUrl, AUTH);
    for (const cache of Object.keys(urls)) {
      expect(lookups(after, cache, "miss") - lookups(before, cache, "miss"), cache).toBe(1);
      expect(lookups(after, cache, "hit") - lookups(before, cache, "hit"), cache).toBe(1);
    }
  });

  it("api: the SSE clients gauge is 1 while a stream is open and 0 after it closes", async () => {
    const clients = async () => (await scrape(svc.apiUrl, AUTH)).value("sluice_api_sse_clients");
    expect(await clients()).toBe(0);
    const stream = await openSse(`${svc.apiUrl}/v1/streams/events/stream`);
    try {
      expect(stream.status).toBe(200);
      expect(await clients()).toBe(1);
    } finally {
      stream.close();
    }
    await waitFor(async () => (await clients()) === 0);
  });
});

describe("instance token set", () => {
  for (const path of ["/metrics", "/api/node"]) {
    it(`${path}: 401 without the token or with a wrong one, 200 with it`, async () => {
      const none = await fetch(`${svc.apiUrl}${path}`);
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(((await none.json()) as { code: string }).code).toBe("UNAUTHORIZED");
      const wrong = await fetch(`${svc.apiUrl}${path}`, { headers: { authorization: "Bearer tok_wrong" } });
      expect(wrong.status).toBe(401);
      await wrong.arrayBuffer();
      const right = await fetch(`${svc.apiUrl}${path}`, { headers: AUTH });
      expect(right.status).toBe(200);
      await right.arrayBuffer();
    });
  }
});
