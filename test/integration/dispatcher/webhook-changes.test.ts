/**
 * A webhook changed through the API reaches the dispatcher by itself: the dispatcher re-reads that
 * one webhook, not the whole list (creating many webhooks one by one would otherwise read the
 * list once per creation, a cost that grows with the square of their number). The periodic full
 * read is pushed out of the test's reach (an hour), so every change below takes effect only
 * through the announcement naming the webhook.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../runtime/db/types.js";
import type { Service } from "../../../runtime/service.js";
import { chainFeed } from "../../support/chain-feed.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { type Receiver, startReceiver } from "../../support/receiver.js";
import { startTestService, waitFor } from "../../support/service.js";
import { webhookClient } from "../../support/webhooks.js";

const TRIGGERS = [{ type: "ft_transfer" }, { type: "stx_transfer" }];
let t: TestDb;
let svc: Service;
let api: ReturnType<typeof webhookClient>;
let r: Receiver;
/** Webhook rows the service's plain queries returned (what the dispatcher reads them with). */
let webhookRowsRead = 0;

const chain = chainFeed("webhook-changes");
const ingest = (blocks: number) => chain.ingest(svc, blocks);

/** Canonical events of the triggers' types above a height: the deliveries each webhook is owed. */
async function owed(aboveHeight: number): Promise<number> {
  const { rows } = await t.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM chain.events
      WHERE canonical AND committed AND event_type IN ('ft_transfer', 'stx_transfer') AND block_height > $1`,
    [aboveHeight],
  );
  return Number(rows[0].n);
}

async function tip(): Promise<number> {
  const { rows } = await t.db.query<{ h: number | null }>("SELECT block_height AS h FROM control.chain_tip");
  return rows[0].h ?? -1;
}

const deliveredTo = (path: string) => r.requests.filter((q) => q.path.endsWith(path) && q.status === 200).length;

/** The database with its plain queries counted (the same database answers). */
function counting(db: Db): Db {
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === "query")
        return async (sql: string, params?: unknown[]) => {
          const result = await target.query(sql, params);
          if (/^\s*SELECT\b/i.test(sql) && /\bFROM control\.webhooks\b/.test(sql) && !/count\(/i.test(sql))
            webhookRowsRead += result.rows.length;
          return result;
        };
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

beforeAll(async () => {
  t = await createTestDb();
  r = await startReceiver();
  svc = await startTestService(
    counting(t.db),
    { WEBHOOK_ALLOW_PRIVATE: "true", NETWORK: "devnet" },
    { dispatcher: { refreshIntervalMs: 3_600_000, pollIntervalMs: 100 } },
  );
  api = webhookClient(svc.apiUrl);
  await ingest(2);
});

afterAll(async () => {
  await svc?.stop();
  await r?.close();
  await t?.drop();
});

describe("webhook changes announced by id", () => {
  it("a webhook created after the dispatcher started is delivered to", async () => {
    const created = await api.create({ name: "a", url: `${r.url}/a`, triggers: TRIGGERS });
    expect(created.status).toBe(201);
    const from = await tip();
    await ingest(3);
    const expected = await owed(from);
    expect(expected).toBeGreaterThan(0);
    await waitFor(() => deliveredTo("/a") === expected);
  });

  it("creating webhooks one by one reads each new one, not the list again each time", async () => {
    const before = webhookRowsRead;
    const count = 20;
    for (let i = 0; i < count; i++) {
      const created = await api.create({ name: `bulk-${i}`, url: `${r.url}/bulk`, triggers: TRIGGERS });
      expect(created.status).toBe(201);
    }
    await new Promise((resolve) => setTimeout(resolve, 300)); // the last announcements are read
    const read = webhookRowsRead - before;
    // Re-reading the list per creation reads 2 + 3 + … + 21 = 230 rows; one row per announcement
    // (the process hears its own creation twice: in-process and through NOTIFY) reads at most 40.
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThanOrEqual(2 * count);
  });

  it("pause holds a webhook's deliveries and resume sends them, without a full re-read", async () => {
    const b = await api.create({ name: "b", url: `${r.url}/b`, triggers: TRIGGERS });
    expect(b.status).toBe(201);
    expect((await api.pause("a")).status).toBe(200);
    const from = await tip();
    const aBefore = deliveredTo("/a");
    await ingest(3);
    const expected = await owed(from);
    // b (active) gets the new blocks' deliveries; a (paused) none of them meanwhile.
    await waitFor(() => deliveredTo("/b") === expected);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(deliveredTo("/a")).toBe(aBefore);
    expect((await api.resume("a")).status).toBe(200);
    await waitFor(() => deliveredTo("/a") === aBefore + expected);
  });

  it("a deleted webhook gets nothing more", async () => {
    expect((await api.remove("b")).status).toBe(204);
    const bBefore = deliveredTo("/b");
    const aBefore = deliveredTo("/a");
    const from = await tip();
    await ingest(2);
    const expected = await owed(from);
    await waitFor(() => deliveredTo("/a") === aBefore + expected);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(deliveredTo("/b")).toBe(bBefore);
  });
});
