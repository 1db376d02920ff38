/**
 * The per-block webhook snapshot (runtime/dispatcher/webhook-snapshot.ts) on a real database: it
 * holds exactly the chain and subgraph webhooks stored (as inserted here), the tip's finality and
 * the sweep progress; it is read once per transaction (every block of it shares the read) and
 * read again by the next transaction, which sees a webhook created in between.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Queryable } from "../../../runtime/db/types.js";
import { webhookSnapshot } from "../../../runtime/dispatcher/webhook-snapshot.js";
import { type TestDb, createTestDb } from "../../support/db.js";

async function insertWebhook(
  q: Queryable,
  w: { id: string; kind: "chain" | "subgraph"; triggers?: unknown; table?: string; filter?: unknown; start: number },
) {
  await q.query(
    `INSERT INTO control.webhooks (id, name, kind, url, format, triggers, subgraph_name, table_name, filter, start_height,
       timeout_ms, max_attempts, concurrency, secret_sealed)
     VALUES ($1, $1, $2, 'https://example.com/hook', 'sluice', $3, $4, $5, $6, $7, 5000, 5, 4, 'sealed')`,
    [
      w.id,
      w.kind,
      w.triggers === undefined ? null : JSON.stringify(w.triggers),
      w.kind === "subgraph" ? "asset-holdings" : null,
      w.table ?? null,
      w.filter === undefined ? null : JSON.stringify(w.filter),
      w.start,
    ],
  );
}

/** Counts the statements a Queryable runs (the database behind it is real). */
function counting(q: Queryable): { q: Queryable; count: () => number } {
  let n = 0;
  return {
    q: {
      query: (sql, params) => {
        n++;
        return q.query(sql, params);
      },
      exec: (sql) => q.exec(sql),
    },
    count: () => n,
  };
}

describe("webhook snapshot", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  it("lists the stored webhooks by kind with the tip's finality and the sweep progress", async () => {
    await testDb.reset();
    const db = testDb.db;
    const triggers = [{ type: "stx_transfer" }];
    await insertWebhook(db, { id: "wh_b", kind: "chain", triggers, start: 7 });
    await insertWebhook(db, { id: "wh_a", kind: "chain", start: -1 });
    await insertWebhook(db, { id: "wh_s", kind: "subgraph", table: "holdings", filter: { holder: "SP1" }, start: 3 });
    await db.query("UPDATE control.chain_tip SET finalized_height = 42");
    await db.query("UPDATE control.webhook_progress SET swept_confirmed_height = 40");

    const snapshot = await db.transaction((q) => webhookSnapshot(q));
    expect(snapshot).toEqual({
      chain: [
        { id: "wh_a", triggers: [], startHeight: -1 },
        { id: "wh_b", triggers, startHeight: 7 },
      ],
      subgraph: [
        { id: "wh_s", subgraph: "asset-holdings", table: "holdings", filter: { holder: "SP1" }, startHeight: 3 },
      ],
      finalizedHeight: 42,
      sweptConfirmedHeight: 40,
    });
  });

  it("is read once per transaction, and again by the next transaction", async () => {
    await testDb.reset();
    const db = testDb.db;
    const first = await db.transaction(async (tx) => {
      const { q, count } = counting(tx);
      const snapshot = await webhookSnapshot(q);
      expect(snapshot.chain).toEqual([]);
      expect(await webhookSnapshot(q)).toBe(snapshot); // the transaction's next block
      expect(count()).toBe(1);
      return snapshot;
    });
    await insertWebhook(db, { id: "wh_new", kind: "chain", start: 1 });
    await db.transaction(async (tx) => {
      const { q, count } = counting(tx);
      const second = await webhookSnapshot(q);
      expect(count()).toBe(1);
      expect(second).not.toBe(first);
      expect(second.chain.map((w) => w.id)).toEqual(["wh_new"]);
    });
  });
});
