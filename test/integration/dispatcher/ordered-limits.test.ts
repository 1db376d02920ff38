/**
 * Ordered webhooks and the webhook limits (README "Webhooks"):
 * - `ordered: true`: every attempt, retries included, arrives in block order — no attempt of a
 *   later delivery before an earlier one succeeded — while the receiver fails for a while;
 * - WEBHOOK_MAX_COUNT: one webhook past it is 409 WEBHOOK_LIMIT_REACHED;
 * - WEBHOOK_MAX_PENDING: a replay on a webhook with that many deliveries outstanding is 429
 *   WEBHOOK_BACKLOG_FULL;
 * - `ordered` validation (a boolean; no concurrency above 1 beside it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../runtime/service.js";
import { chainFeed } from "../../support/chain-feed.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { type Receiver, startReceiver } from "../../support/receiver.js";
import { startTestService, waitFor } from "../../support/service.js";
import { waitForExpanded, waitForOutboxDrained, webhookClient } from "../../support/webhooks.js";

let t: TestDb;
let svc: Service;
let api: ReturnType<typeof webhookClient>;
const receivers: Receiver[] = [];

const chain = chainFeed("webhooks-ordered");
const ingest = (blocks: number) => chain.ingest(svc, blocks);

async function tip(): Promise<number> {
  const { rows } = await t.db.query<{ h: number | null }>("SELECT block_height AS h FROM control.chain_tip");
  return rows[0].h ?? -1;
}

beforeAll(async () => {
  t = await createTestDb();
  svc = await startTestService(
    t.db,
    { WEBHOOK_ALLOW_PRIVATE: "true", NETWORK: "devnet", WEBHOOK_MAX_COUNT: "3", WEBHOOK_MAX_PENDING: "5" },
    {
      dispatcher: {
        retry: { baseDelayMs: 30, maxDelayMs: 120 },
        breaker: { failureThreshold: 1000, cooldownMs: 100 },
        pollIntervalMs: 50,
      },
    },
  );
  api = webhookClient(svc.apiUrl);
  await ingest(2);
});

afterAll(async () => {
  await svc?.stop();
  for (const r of receivers) await r.close();
  await t?.drop();
});

describe("ordered webhooks", () => {
  it("every attempt arrives in block order, retries included", async () => {
    const r = await startReceiver({ status: 500 });
    receivers.push(r);
    const created = await api.create({
      name: "ordered",
      url: r.url,
      ordered: true,
      triggers: [{ type: "stx_transfer" }, { type: "ft_transfer" }, { type: "print_event" }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ordered: true, concurrency: 1 });
    const start = await tip();
    await ingest(3);
    // The receiver fails the first attempts (each retried before anything after it), then recovers.
    await waitFor(() => r.requests.length >= 6);
    r.set({ status: 200 });
    await waitForOutboxDrained(t.db, String(created.body.id));

    // Independent expectation: the canonical committed events of those types above the start, in block order.
    const { rows } = await t.db.query<{ k: string }>(
      `SELECT e.tx_id || ':' || e.event_index AS k FROM chain.events e
        WHERE e.canonical AND e.committed AND e.event_type IN ('stx_transfer', 'ft_transfer', 'print')
          AND e.block_height > $1
        ORDER BY e.block_height, e.event_index`,
      [start],
    );
    const order = rows.map((x) => x.k);
    expect(order.length).toBeGreaterThan(5);
    const keyOf = (body: string) => {
      const d = JSON.parse(body).data;
      return `${d.tx_id}:${d.event.event_index}`;
    };
    const attempts = r.requests.map((q) => order.indexOf(keyOf(q.body)));
    expect(attempts.every((i) => i >= 0)).toBe(true);
    // Never a step back: a delivery's retries all come before the next delivery's first attempt.
    for (let i = 1; i < attempts.length; i++) expect(attempts[i]).toBeGreaterThanOrEqual(attempts[i - 1]);
    const delivered = r.requests.filter((q) => q.status === 200).map((q) => keyOf(q.body));
    expect(delivered).toEqual(order);
    expect(r.requests.filter((q) => q.status === 500).length).toBeGreaterThanOrEqual(6);
    await api.remove("ordered");
  });

  it("refuses a non-boolean ordered and a concurrency above 1 beside it", async () => {
    const base = { url: "http://127.0.0.1:9/x", triggers: [{ type: "stx_transfer" }] };
    const bad = await api.create({ ...base, name: "bad-ordered", ordered: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ details: { field: "ordered" } });
    const both = await api.create({ ...base, name: "bad-concurrency", ordered: true, concurrency: 4 });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ details: { field: "concurrency" } });
    const plain = await api.create({ ...base, name: "plain", concurrency: 4 });
    expect(plain.body).toMatchObject({ ordered: false, concurrency: 4 });
    const patched = await api.update("plain", { ordered: true });
    expect(patched.body).toMatchObject({ ordered: true, concurrency: 1 });
    expect((await api.update("plain", { concurrency: 3 })).status).toBe(400);
    await api.remove("plain");
  });
});

describe("limits", () => {
  it("WEBHOOK_MAX_COUNT: the webhook past the limit is 409 WEBHOOK_LIMIT_REACHED", async () => {
    const base = { url: "http://127.0.0.1:9/x", triggers: [{ type: "stx_transfer" }] };
    const listed = (await api.list()).body as { webhooks: unknown[] };
    expect(listed.webhooks).toHaveLength(0);
    for (const name of ["one", "two", "three"]) expect((await api.create({ ...base, name })).status).toBe(201);
    const over = await api.create({ ...base, name: "four" });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ code: "WEBHOOK_LIMIT_REACHED", details: { limit: 3, count: 3 } });
    await api.remove("three");
    expect((await api.create({ ...base, name: "four" })).status).toBe(201);
    for (const name of ["one", "two", "four"]) await api.remove(name);
  });

  it("WEBHOOK_MAX_PENDING: a replay on a full backlog is 429 WEBHOOK_BACKLOG_FULL", async () => {
    const created = await api.create({
      name: "backlog",
      url: "http://127.0.0.1:9/x",
      triggers: [{ type: "stx_transfer" }, { type: "ft_transfer" }, { type: "print_event" }],
    });
    expect(created.status).toBe(201);
    await api.pause("backlog"); // paused: deliveries are recorded and wait
    await ingest(2);
    await waitForExpanded(t.db);
    const full = await api.replay("backlog", { fromBlock: 1, toBlock: 2 });
    expect(full.status).toBe(429);
    expect(full.body).toMatchObject({ code: "WEBHOOK_BACKLOG_FULL", details: { limit: 5 } });
    await api.remove("backlog");
  });
});
