/**
 * Delivery timings with an injected clock and random source (DESIGN.md
 * §5): the worker run one round at a time (`runOnce`) against a real database and a real receiver.
 * Backoff and Retry-After decide when a row is due again; dead after the last attempt; the circuit
 * opens after consecutive failures, lets one probe through after the cool-down, and closes on
 * success; a row leased by a worker that died is delivered once its lease ends, and the dead
 * worker's late write changes nothing; one statement records a batch of attempts with different
 * outcomes; two workers on one database (on PostgreSQL each with connections of its own, as two
 * processes have) share a backlog without delivering any row twice.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDispatcher, type Dispatcher } from "../../../runtime/dispatcher/dispatcher.js";
import { claimDueRows, completeAttempts, insertOutboxRows } from "../../../runtime/dispatcher/outbox-store.js";
import { createSecretBox } from "../../../runtime/dispatcher/secret-box.js";
import { generateSecret } from "../../../runtime/dispatcher/signing.js";
import { deleteWebhook, insertWebhook, newWebhookId } from "../../../runtime/dispatcher/webhook-store.js";
import { createPostgresDb } from "../../../runtime/db/postgres.js";
import type { Db } from "../../../runtime/db/types.js";
import { silentLogger } from "../../../runtime/internal/logger.js";
import { signingKeyFromSeed } from "../../../runtime/internal/signing-key.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { type Receiver, startReceiver } from "../../support/receiver.js";
import { waitFor } from "../../support/service.js";

let t: TestDb;
let receiver: Receiver;
let now = 0;
const box = createSecretBox(randomBytes(32));
const signer = signingKeyFromSeed(new Uint8Array(32).fill(3));
const dispatchers: Dispatcher[] = [];

beforeAll(async () => {
  t = await createTestDb();
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await t?.drop();
});

beforeEach(async () => {
  await t.reset();
  receiver.requests.length = 0;
  receiver.set({ status: 200, headers: {} });
  // The database stamps new rows with its own now(); the injected clock starts just after it.
  const { rows } = await t.db.query<{ ms: string }>("SELECT (extract(epoch FROM now()) * 1000)::bigint + 1000 AS ms");
  now = Number(rows[0].ms);
});

function dispatcher(breaker = { failureThreshold: 3, cooldownMs: 10_000 }): Dispatcher {
  const d = createDispatcher({
    db: t.db,
    logger: silentLogger,
    signer,
    secrets: box,
    allowPrivate: true,
    now: () => now,
    random: () => 0,
    retry: { baseDelayMs: 1000, maxDelayMs: 60_000, maxRetryAfterMs: 120_000 },
    breaker,
  });
  dispatchers.push(d);
  return d;
}

async function webhook(limits: { maxAttempts: number; concurrency: number }, timeoutMs = 2000): Promise<string> {
  const id = newWebhookId();
  await insertWebhook(t.db, {
    id,
    name: id,
    kind: "chain",
    url: receiver.url,
    format: "standard-webhooks",
    triggers: [{ type: "stx_transfer" }],
    subgraphName: null,
    tableName: null,
    filter: null,
    startHeight: -1,
    timeoutMs,
    secretSealed: box.seal(generateSecret(), id),
    ...limits,
  });
  return id;
}

async function enqueue(webhookId: string, n: number): Promise<void> {
  await insertOutboxRows(
    t.db,
    Array.from({ length: n }, (_, i) => ({
      webhookId,
      eventType: "chain.stx_transfer.apply",
      kind: "apply" as const,
      txId: `0x${i}`,
      eventIndex: i,
      blockHash: "0xb",
      blockHeight: 1,
      data: { n: i },
    })),
  );
}

async function attempts(webhookId: string): Promise<{ attempt: number; at: number; status: number | null }[]> {
  const { rows } = await t.db.query<{ attempt: number; attempted_at: Date; response_status: number | null }>(
    "SELECT attempt, attempted_at, response_status FROM control.webhook_attempts WHERE webhook_id = $1 ORDER BY id",
    [webhookId],
  );
  return rows.map((r) => ({ attempt: r.attempt, at: new Date(r.attempted_at).getTime(), status: r.response_status }));
}

async function row(webhookId: string): Promise<{ status: string; attempts: number; next: number }> {
  const { rows } = await t.db.query<{ status: string; attempts: number; next_attempt_at: Date }>(
    "SELECT status, attempts, next_attempt_at FROM control.webhook_outbox WHERE webhook_id = $1 ORDER BY id LIMIT 1",
    [webhookId],
  );
  return { status: rows[0].status, attempts: rows[0].attempts, next: new Date(rows[0].next_attempt_at).getTime() };
}

describe("retry schedule", () => {
  it("backs off 0.5 s, 1 s, 2 s (random 0: half of 1, 2, 4 s) and is dead after the last attempt", async () => {
    const d = dispatcher({ failureThreshold: 100, cooldownMs: 10_000 });
    const id = await webhook({ maxAttempts: 4, concurrency: 1 });
    await enqueue(id, 1);
    receiver.set({ status: 500 });
    const t0 = now;
    expect(await d.runOnce()).toBe(1);
    expect(await row(id)).toEqual({ status: "pending", attempts: 1, next: t0 + 500 });
    now = t0 + 499;
    expect(await d.runOnce()).toBe(0);
    now = t0 + 500;
    expect(await d.runOnce()).toBe(1);
    expect((await row(id)).next).toBe(t0 + 1500);
    now = t0 + 1499;
    expect(await d.runOnce()).toBe(0);
    now = t0 + 1500;
    await d.runOnce();
    expect((await row(id)).next).toBe(t0 + 3500);
    now = t0 + 3500;
    await d.runOnce();
    expect(await row(id)).toMatchObject({ status: "dead", attempts: 4 });
    expect((await attempts(id)).map((a) => [a.attempt, a.at - t0, a.status])).toEqual([
      [1, 0, 500],
      [2, 500, 500],
      [3, 1500, 500],
      [4, 3500, 500],
    ]);
    now = t0 + 3_600_000;
    expect(await d.runOnce()).toBe(0);
    expect(receiver.requests).toHaveLength(4);
  });

  it("honours Retry-After when it asks for longer than the backoff", async () => {
    const d = dispatcher({ failureThreshold: 100, cooldownMs: 10_000 });
    const id = await webhook({ maxAttempts: 5, concurrency: 1 });
    await enqueue(id, 1);
    receiver.set({ status: 429, headers: { "retry-after": "30" } });
    const t0 = now;
    await d.runOnce();
    expect((await row(id)).next).toBe(t0 + 30_000);
    receiver.set({ status: 200, headers: {} });
    now = t0 + 29_999;
    expect(await d.runOnce()).toBe(0);
    now = t0 + 30_000;
    expect(await d.runOnce()).toBe(1);
    expect(await row(id)).toMatchObject({ status: "delivered", attempts: 2 });
  });
});

describe("circuit breaker", () => {
  it("opens after 3 consecutive failures, probes once per cool-down, closes on success", async () => {
    const d = dispatcher({ failureThreshold: 3, cooldownMs: 10_000 });
    const id = await webhook({ maxAttempts: 20, concurrency: 1 });
    await enqueue(id, 5);
    receiver.set({ status: 503 });
    const t0 = now;
    await d.runOnce();
    expect(receiver.requests).toHaveLength(3);
    const circuit = async () =>
      (
        await t.db.query<{ circuit_state: string; circuit_failures: number; circuit_opened_at: Date | null }>(
          "SELECT circuit_state, circuit_failures, circuit_opened_at FROM control.webhooks WHERE id = $1",
          [id],
        )
      ).rows[0];
    expect(await circuit()).toMatchObject({ circuit_state: "open", circuit_failures: 3 });
    expect(new Date((await circuit()).circuit_opened_at as Date).getTime()).toBe(t0);

    now = t0 + 9_999; // every row's backoff is over, but the circuit is open
    expect(await d.runOnce()).toBe(0);
    expect(receiver.requests).toHaveLength(3);

    now = t0 + 10_000; // half-open: exactly one probe, which fails and reopens
    await d.runOnce();
    expect(receiver.requests).toHaveLength(4);
    expect(await circuit()).toMatchObject({ circuit_state: "open", circuit_failures: 4 });
    expect(new Date((await circuit()).circuit_opened_at as Date).getTime()).toBe(t0 + 10_000);

    receiver.set({ status: 200 });
    now = t0 + 19_999;
    expect(await d.runOnce()).toBe(0);
    now = t0 + 20_000; // the probe succeeds: closed, and the rest follows in the same round
    await d.runOnce();
    expect(await circuit()).toMatchObject({ circuit_state: "closed", circuit_failures: 0, circuit_opened_at: null });
    const { rows } = await t.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM control.webhook_outbox WHERE webhook_id = $1 AND status = 'delivered'",
      [id],
    );
    expect(Number(rows[0].n)).toBe(5);
  });

  it("an open circuit on one endpoint does not hold back another", async () => {
    const d = dispatcher({ failureThreshold: 2, cooldownMs: 60_000 });
    const bad = await webhook({ maxAttempts: 20, concurrency: 1 });
    const good = await webhook({ maxAttempts: 20, concurrency: 2 });
    await enqueue(bad, 5);
    await enqueue(good, 5);
    const { rows } = await t.db.query<{ delivery_id: string }>(
      "SELECT delivery_id FROM control.webhook_outbox WHERE webhook_id = $1",
      [bad],
    );
    const badIds = new Set(rows.map((r) => r.delivery_id));
    receiver.decide((req) => (badIds.has(String(req.headers["webhook-id"])) ? { status: 500 } : undefined));
    await d.runOnce();
    receiver.decide(null);
    const counts = await t.db.query<{ webhook_id: string; status: string; n: string }>(
      "SELECT webhook_id, status, count(*) AS n FROM control.webhook_outbox GROUP BY 1, 2 ORDER BY 1, 2",
    );
    const byHook = Object.fromEntries(
      counts.rows.map((r) => [`${r.webhook_id === bad ? "bad" : "good"}:${r.status}`, Number(r.n)]),
    );
    expect(byHook).toEqual({ "bad:pending": 5, "good:delivered": 5 });
    expect(receiver.requests.filter((r) => badIds.has(String(r.headers["webhook-id"])))).toHaveLength(2);
  });
});

describe("crash safety of a claim", () => {
  it("a row leased by a worker that died is delivered when the lease ends; the dead worker's late write is ignored", async () => {
    const id = await webhook({ maxAttempts: 5, concurrency: 1 });
    await enqueue(id, 1);
    const t0 = now;
    const [claimed] = await claimDueRows(t.db, [{ webhookId: id, cap: 1, leaseMs: 7000 }], new Date(t0), "wrk_dead:1");
    expect(claimed).toBeDefined();
    const d = dispatcher();
    now = t0 + 6_999;
    expect(await d.runOnce()).toBe(0);
    now = t0 + 7_000;
    expect(await d.runOnce()).toBe(1);
    expect(await row(id)).toMatchObject({ status: "delivered", attempts: 1 });
    const late = await completeAttempts(t.db, [
      {
        outboxId: claimed.id,
        leaseToken: claimed.leaseToken,
        webhookId: id,
        attempt: 1,
        startedAt: new Date(t0),
        durationMs: 10,
        success: false,
        responseStatus: 500,
        responseExcerpt: null,
        error: "late",
        next: { status: "pending", at: new Date(t0 + 1000) },
      },
    ]);
    expect(late.size).toBe(0);
    expect(await row(id)).toMatchObject({ status: "delivered" });
  });
});

describe("recording a batch of attempts", () => {
  it("one statement records delivered, retried, dead and stale attempts: each row's state as its lease allows, every attempt logged", async () => {
    const a = await webhook({ maxAttempts: 2, concurrency: 4 });
    const b = await webhook({ maxAttempts: 2, concurrency: 4 });
    await enqueue(a, 4);
    await enqueue(b, 1);
    const t0 = now;
    const claimed = await claimDueRows(
      t.db,
      [
        { webhookId: a, cap: 4, leaseMs: 60_000 },
        { webhookId: b, cap: 1, leaseMs: 60_000 },
      ],
      new Date(t0),
      "wrk_batch:1",
    );
    expect(claimed.map((r) => r.webhookId)).toEqual([a, a, a, a, b]);
    const [delivered, retried, dead, stale] = claimed;
    const base = {
      leaseToken: "wrk_batch:1",
      startedAt: new Date(t0),
      durationMs: 12,
      responseExcerpt: null,
    };
    const recorded = await completeAttempts(t.db, [
      {
        ...base,
        outboxId: delivered.id,
        webhookId: a,
        attempt: 1,
        success: true,
        responseStatus: 200,
        error: null,
        next: { status: "delivered" },
      },
      {
        ...base,
        outboxId: retried.id,
        webhookId: a,
        attempt: 1,
        success: false,
        responseStatus: 503,
        error: "endpoint answered 503",
        next: { status: "pending", at: new Date(t0 + 5000) },
      },
      {
        ...base,
        outboxId: dead.id,
        webhookId: a,
        attempt: 2,
        success: false,
        responseStatus: 500,
        error: "endpoint answered 500",
        next: { status: "dead" },
      },
      // A claim that is no longer this worker's: logged, the row left as the newer claim has it.
      {
        ...base,
        leaseToken: "wrk_other:9",
        outboxId: stale.id,
        webhookId: a,
        attempt: 1,
        success: true,
        responseStatus: 200,
        error: null,
        next: { status: "delivered" },
      },
      {
        ...base,
        outboxId: claimed[4].id,
        webhookId: b,
        attempt: 1,
        success: true,
        responseStatus: 204,
        error: null,
        next: { status: "delivered" },
      },
    ]);
    expect([...recorded].sort()).toEqual([delivered.id, retried.id, dead.id, claimed[4].id].sort());
    const { rows } = await t.db.query<{
      id: string;
      status: string;
      attempts: number;
      next_attempt_at: Date;
      leased: boolean;
      last_status: number | null;
      finished: boolean;
    }>(
      `SELECT id::text, status, attempts, next_attempt_at, lease_token IS NOT NULL AS leased, last_status,
              finished_at IS NOT NULL AS finished
         FROM control.webhook_outbox ORDER BY id`,
    );
    const state = new Map(rows.map((r) => [r.id, r]));
    expect(state.get(delivered.id)).toMatchObject({
      status: "delivered",
      attempts: 1,
      leased: false,
      last_status: 200,
      finished: true,
    });
    expect(state.get(retried.id)).toMatchObject({
      status: "pending",
      attempts: 1,
      leased: false,
      last_status: 503,
      finished: false,
    });
    expect(new Date(state.get(retried.id)?.next_attempt_at as Date).getTime()).toBe(t0 + 5000);
    expect(state.get(dead.id)).toMatchObject({
      status: "dead",
      attempts: 2,
      leased: false,
      last_status: 500,
      finished: true,
    });
    expect(state.get(stale.id)).toMatchObject({ status: "pending", attempts: 0, leased: true, last_status: null });
    expect(state.get(claimed[4].id)).toMatchObject({ status: "delivered", attempts: 1, last_status: 204 });
    // The log: one entry per attempt, under the webhook its delivery belongs to.
    const log = await t.db.query<{
      outbox_id: string;
      webhook_id: string;
      attempt: number;
      response_status: number;
      success: boolean;
    }>(
      "SELECT outbox_id::text, webhook_id, attempt, response_status, success FROM control.webhook_attempts ORDER BY outbox_id",
    );
    expect(log.rows).toEqual(
      [
        { outbox_id: delivered.id, webhook_id: a, attempt: 1, response_status: 200, success: true },
        { outbox_id: retried.id, webhook_id: a, attempt: 1, response_status: 503, success: false },
        { outbox_id: dead.id, webhook_id: a, attempt: 2, response_status: 500, success: false },
        { outbox_id: stale.id, webhook_id: a, attempt: 1, response_status: 200, success: true },
        { outbox_id: claimed[4].id, webhook_id: b, attempt: 1, response_status: 204, success: true },
      ].sort((x, y) => Number(x.outbox_id) - Number(y.outbox_id)),
    );
    // Deleting a webhook takes its deliveries and their log with it; the other's stay.
    expect(await deleteWebhook(t.db, a)).toBe(true);
    const left = await t.db.query<{ webhook_id: string }>("SELECT webhook_id FROM control.webhook_attempts");
    expect(left.rows).toEqual([{ webhook_id: b }]);
    // An attempt finished after its webhook was deleted is not logged.
    const late = await completeAttempts(t.db, [
      {
        ...base,
        outboxId: retried.id,
        webhookId: a,
        attempt: 2,
        success: true,
        responseStatus: 200,
        error: null,
        next: { status: "delivered" },
      },
    ]);
    expect(late.size).toBe(0);
    expect((await t.db.query("SELECT 1 FROM control.webhook_attempts")).rows).toHaveLength(1);
  });
});

describe("several workers", () => {
  it("two workers on one database share a backlog; no row is delivered twice", async () => {
    // Claims are what this checks: a timeout no send reaches on a loaded machine (a send that
    // timed out is sent again, as at-least-once allows, and the receiver would count it twice).
    const hooks = [
      await webhook({ maxAttempts: 5, concurrency: 4 }, 60_000),
      await webhook({ maxAttempts: 5, concurrency: 4 }, 60_000),
    ];
    for (const id of hooks) await enqueue(id, 150);
    // On PostgreSQL the second worker has a connection pool of its own, as a second process has.
    const pools: Db[] = [t.db];
    if (t.url) pools.push(await createPostgresDb(t.url, 4));
    const workers = [0, 1].map((i) =>
      createDispatcher({
        db: pools[i] ?? t.db,
        logger: silentLogger,
        signer,
        secrets: box,
        allowPrivate: true,
        pollIntervalMs: 50,
      }),
    );
    for (const w of workers) await w.start();
    try {
      await waitForDelivered(300);
    } finally {
      for (const w of workers) await w.stop();
      for (const p of pools.slice(1)) await p.close();
    }
    const ids = receiver.requests.map((r) => String(r.headers["webhook-id"]));
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
  });
});

async function waitForDelivered(n: number): Promise<void> {
  await waitFor(async () => {
    const { rows } = await t.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM control.webhook_outbox WHERE status = 'delivered'",
    );
    return Number(rows[0].n) >= n;
  });
}
