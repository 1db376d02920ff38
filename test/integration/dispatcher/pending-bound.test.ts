/**
 * WEBHOOK_MAX_PENDING with the maintained bound of outstanding deliveries (migration 0019,
 * backlog-store.ts webhookLoads): the expander trusts the bound while a share fits under it and
 * counts when it may not, so deliveries that finished meanwhile make room again; requeued dead
 * letters count (a webhook past the limit gets nothing new); what does not fit is held and shows
 * in the backlog totals (GET /status `webhooks`). Expected counts follow from the steps below, not
 * from the code under test.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { insertDeliveryBatch } from "../../../runtime/dispatcher/batch-store.js";
import { readBacklogTotals } from "../../../runtime/dispatcher/backlog-store.js";
import { DeliveryBatchBuilder } from "../../../runtime/dispatcher/delivery-batch.js";
import { expandBatches } from "../../../runtime/dispatcher/expander.js";
import { requeueDead } from "../../../runtime/dispatcher/outbox-store.js";
import { insertWebhook, newWebhookId } from "../../../runtime/dispatcher/webhook-store.js";
import { createTestDb, type TestDb } from "../../support/db.js";

const LIMIT = 10;
let t: TestDb;
let seq = 0;

beforeAll(async () => {
  t = await createTestDb();
});

afterAll(async () => {
  await t?.drop();
});

beforeEach(async () => {
  await t.reset();
});

async function webhook(): Promise<string> {
  const id = newWebhookId();
  await insertWebhook(t.db, {
    id,
    name: id,
    kind: "chain",
    url: "http://127.0.0.1:9/hook",
    format: "standard-webhooks",
    triggers: [{ type: "stx_transfer" }],
    subgraphName: null,
    tableName: null,
    filter: null,
    startHeight: -1,
    timeoutMs: 1000,
    maxAttempts: 3,
    concurrency: 1,
    secretSealed: "unused",
  });
  return id;
}

/** Records one block's batch of `n` deliveries for the webhook and expands everything recorded. */
async function deliver(webhookId: string, n: number): Promise<void> {
  const block = `0xblock${++seq}`;
  const b = new DeliveryBatchBuilder();
  for (let i = 0; i < n; i++) {
    b.add(
      {
        eventType: "chain.stx_transfer.apply",
        kind: "apply",
        txId: `0x${seq}-${i}`,
        eventIndex: i,
        blockHash: block,
        blockHeight: seq,
        data: { n: i },
      },
      [webhookId],
    );
  }
  await insertDeliveryBatch(t.db, b, block);
  for (;;) {
    const r = await expandBatches(t.db, 5000, LIMIT);
    if (!r.more) break;
  }
}

async function count(sql: string, webhookId: string): Promise<number> {
  const { rows } = await t.db.query<{ n: string }>(sql, [webhookId]);
  return Number(rows[0].n ?? 0);
}
const pending = (w: string) =>
  count("SELECT count(*) AS n FROM control.webhook_outbox WHERE webhook_id = $1 AND status = 'pending'", w);
const held = (w: string) =>
  count("SELECT coalesce(sum(row_count), 0) AS n FROM control.webhook_held WHERE webhook_id = $1", w);

/** Finishes the webhook's `n` oldest pending deliveries with the given status (as recorded attempts would). */
async function finish(webhookId: string, n: number, status: "delivered" | "dead"): Promise<void> {
  await t.db.query(
    `UPDATE control.webhook_outbox SET status = $3, attempts = 1, finished_at = now()
      WHERE id IN (SELECT id FROM control.webhook_outbox WHERE webhook_id = $1 AND status = 'pending'
                    ORDER BY id LIMIT $2)`,
    [webhookId, n, status],
  );
}

describe("WEBHOOK_MAX_PENDING with the maintained bound", () => {
  it("finished deliveries make room again; what does not fit is held and reported", async () => {
    const a = await webhook();
    await deliver(a, 6);
    expect([await pending(a), await held(a)]).toEqual([6, 0]);
    // 5 finish: 1 outstanding. The next 8 fit (1 + 8 ≤ 10), though 6 + 8 recorded would not.
    await finish(a, 5, "delivered");
    await deliver(a, 8);
    expect([await pending(a), await held(a)]).toEqual([9, 0]);
    // 9 + 5: one fits, four are held.
    await deliver(a, 5);
    expect([await pending(a), await held(a)]).toEqual([10, 4]);
    const totals = await readBacklogTotals(t.db);
    expect(totals).toMatchObject({ outstanding: 10, held_deliveries: 4, throttled_webhooks: 1 });
    // All ten finish: the held four go out with the next expansion, then three more fit of the next five.
    await finish(a, 10, "delivered");
    await deliver(a, 5);
    expect([await pending(a), await held(a)]).toEqual([9, 0]);
  });

  it("requeued dead letters count: a webhook past the limit gets nothing new", async () => {
    const b = await webhook();
    await deliver(b, 10);
    await finish(b, 10, "dead");
    await deliver(b, 3); // nothing outstanding: all 3 fit
    expect([await pending(b), await held(b)]).toEqual([3, 0]);
    expect(await requeueDead(t.db, b)).toBe(10); // 13 outstanding: past the limit
    await deliver(b, 2);
    expect([await pending(b), await held(b)]).toEqual([13, 2]);
  });

  it("webhooks are limited each on their own", async () => {
    const c = await webhook();
    const d = await webhook();
    await deliver(c, 10);
    await deliver(d, 4);
    await deliver(c, 1);
    await deliver(d, 6);
    expect([await pending(c), await held(c), await pending(d), await held(d)]).toEqual([10, 1, 10, 0]);
  });
});
