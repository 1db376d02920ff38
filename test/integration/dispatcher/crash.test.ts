/**
 * Crash safety of deliveries (DESIGN.md §2 "one block is the unit of
 * atomicity", §5): the service runs as a child process (`node --import tsx runtime/main.ts`) and
 * is killed with SIGKILL while a batch of deliveries is in flight. After a restart on the same
 * database every expected delivery arrives — none lost — and no event reaches the receiver under
 * two delivery ids (a receiver deduplicating on `webhook-id` applies each effect once). Re-posting
 * every block afterwards delivers nothing more.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { startServiceProcess } from "../../support/cli.js";
import { createPgliteDb } from "../../../runtime/db/pglite.js";
import { createPostgresDb } from "../../../runtime/db/postgres.js";
import { TEST_DB_KIND, createPgDatabase } from "../../support/db.js";
import { seedPgliteDataDir } from "../../support/pglite-snapshot.js";
import { startReceiver } from "../../support/receiver.js";
import { postObserver, waitFor } from "../../support/service.js";
import { webhookClient } from "../../support/webhooks.js";

const NODE_TYPES = ["stx_transfer_event", "ft_mint_event", "ft_transfer_event", "nft_mint_event", "contract_event"];
const TRIGGERS = [
  { type: "stx_transfer" },
  { type: "ft_mint" },
  { type: "ft_transfer" },
  { type: "nft_mint" },
  { type: "print_event" },
];

describe("a dispatcher killed with kill -9 mid-batch", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-webhooks-crash-"));
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
    fs.rmSync(root, { recursive: true, force: true });
  });

  // Generous bounds: on a contended 2-core machine one PGlite process can take minutes here.
  it("loses no delivery and duplicates no effect", { timeout: 480_000 }, async () => {
    const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE: "true", NETWORK: "devnet", LOG_LEVEL: "info" };
    if (TEST_DB_KIND === "postgres") {
      const created = await createPgDatabase();
      cleanups.push(created.drop);
      env.DATABASE_URL = created.url;
    } else {
      env.DATA_DIR = path.join(root, "data");
      // Starts from a migrated database: the first start's initdb is not what is under test.
      await seedPgliteDataDir(env.DATA_DIR);
    }
    // Slow enough that a batch is in flight when the process dies.
    const receiver = await startReceiver({ delayMs: 10 });
    cleanups.push(() => receiver.close());

    const { payloads } = simulateChain({ seed: "webhooks-crash", blocks: 12, eventsPerBlock: 40, forkRate: 0 });
    const requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    // Independent expectation from the payloads: one delivery per committed event of the triggers' types.
    let expected = 0;
    for (const r of requests) {
      if (r.path !== "/new_block") continue;
      for (const e of JSON.parse(r.body).events) if (e.committed && NODE_TYPES.includes(e.type)) expected++;
    }
    expect(expected).toBeGreaterThan(200);

    const first = await startServiceProcess(env);
    const exitFirst = first.exited;
    cleanups.push(async () => {
      if (first.child.exitCode === null) first.child.kill("SIGKILL");
    });
    const api = webhookClient(first.apiUrl);
    const created = await api.create({
      name: "crash",
      url: receiver.url,
      triggers: TRIGGERS,
      concurrency: 4,
      timeoutMs: 2000,
    });
    expect(created.status).toBe(201);
    for (const r of requests) await postObserver(first.observerUrl, r.path, r.body);
    await waitFor(() => receiver.requests.filter((r) => r.status === 200).length >= expected / 4, {
      timeoutMs: 180_000,
    });
    first.child.kill("SIGKILL");
    expect((await exitFirst).signal).toBe("SIGKILL");
    const atKill = receiver.requests.length;
    expect(atKill).toBeLessThan(expected); // it died mid-way

    const second = await startServiceProcess(env);
    cleanups.push(async () => {
      if (second.child.exitCode === null) second.child.kill("SIGKILL");
    });
    const keyOf = (body: string) => {
      const d = JSON.parse(body).data;
      return `${d.block_hash}:${d.tx_id}:${d.event.event_index}`;
    };
    // Rows the dead process had claimed come back when their lease ends (timeout + margin) and are
    // sent again under the same delivery id; wait until the log shows every row delivered.
    const live = webhookClient(second.apiUrl);
    await waitFor(
      async () => {
        const log = (await live.deliveries("crash", "?limit=1000")).body.deliveries as {
          deliveryId: string;
          deliveryStatus: string;
        }[];
        const seen = new Set<string>();
        for (const entry of log) if (entry.deliveryStatus === "delivered") seen.add(entry.deliveryId);
        // (the log pages newest first; 1000 is more than this test's rows plus their retries)
        return seen.size === expected;
      },
      { timeoutMs: 240_000, intervalMs: 250 },
    );

    const delivered = receiver.requests.filter((r) => r.status === 200);
    const idsByKey = new Map<string, Set<string>>();
    for (const r of delivered) {
      const key = keyOf(r.body);
      const ids = idsByKey.get(key) ?? new Set<string>();
      ids.add(String(r.headers["webhook-id"]));
      idsByKey.set(key, ids);
    }
    expect(idsByKey.size).toBe(expected); // nothing lost
    for (const [key, ids] of idsByKey) expect(ids.size, key).toBe(1); // one delivery id per event: no duplicate effect

    // Re-posting every block is a no-op; then stop cleanly and read the outbox.
    for (const r of requests) await postObserver(second.observerUrl, r.path, r.body);
    const status = async () =>
      (await (await fetch(`${second.apiUrl}/status`)).json()) as { counts: { journal_pending: number } };
    await waitFor(async () => (await status()).counts.journal_pending === 0);
    second.child.kill("SIGTERM");
    expect((await second.exited).code).toBe(0);

    const db = env.DATABASE_URL
      ? await createPostgresDb(env.DATABASE_URL, 1)
      : await createPgliteDb(path.join(env.DATA_DIR, "pgdata"));
    try {
      const { rows } = await db.query<{ status: string; n: string }>(
        "SELECT status, count(*) AS n FROM control.webhook_outbox GROUP BY status",
      );
      const byStatus = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
      // One row per expected event (re-posting added none); none lost; rows the dead process had
      // claimed were delivered again after their lease (the same delivery id, at least once).
      expect(byStatus).toEqual({ delivered: expected });
    } finally {
      await db.close();
    }
  });
});
