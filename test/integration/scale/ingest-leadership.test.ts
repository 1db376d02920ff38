/**
 * The ingest leadership (runtime/scale/ingest-leadership.ts) on a real PostgreSQL server: one
 * holder at a time; a holder whose lock connection is terminated by the server stops counting
 * itself leader, and a standby takes the lock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDb } from "../../../runtime/db/postgres.js";
import { silentLogger } from "../../../runtime/internal/logger.js";
import { createIngestLeadership, INGEST_LEADER_LOCK } from "../../../runtime/scale/ingest-leadership.js";
import { TEST_DB_KIND, createPgDatabase } from "../../support/db.js";
import { waitFor } from "../../support/service.js";

describe.skipIf(TEST_DB_KIND !== "postgres")("ingest leadership", () => {
  let url = "";
  let drop: () => Promise<void> = async () => {};
  beforeAll(async () => {
    ({ url, drop } = await createPgDatabase());
  });
  afterAll(() => drop());

  it("one leader at a time; a terminated lock connection makes the holder a standby at once, and the lock is taken again", async () => {
    const one = createIngestLeadership({ databaseUrl: url, logger: silentLogger, retryMs: 100, pingMs: 100 });
    const two = createIngestLeadership({ databaseUrl: url, logger: silentLogger, retryMs: 100, pingMs: 100 });
    const changes: boolean[] = [];
    one.onChange((leader) => changes.push(leader));
    const db = await createPostgresDb(url, 1);
    try {
      await one.start();
      await two.start();
      expect(one.isLeader).toBe(true);
      expect(two.isLeader).toBe(false);

      // The server ends the holder's session, as when its connection drops.
      const holder = async () =>
        (
          await db.query<{ pid: number }>(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = $1::bigint",
            [INGEST_LEADER_LOCK],
          )
        ).rows[0]?.pid;
      const first = await holder();
      expect(first).toBeDefined();
      await db.query("SELECT pg_terminate_backend($1)", [first]);
      // The holder learns it lost the lock; then one of the two (whichever tries first) holds it.
      await waitFor(() => changes.includes(false), { timeoutMs: 30_000 });
      expect(changes.slice(0, 2)).toEqual([true, false]);
      await waitFor(async () => one.isLeader !== two.isLeader && (await holder()) !== undefined, {
        timeoutMs: 30_000,
      });
      expect(await holder()).not.toBe(first);

      // A clean stop releases the lock at once: the other takes it.
      const [leader, standby] = one.isLeader ? [one, two] : [two, one];
      await leader.stop();
      await waitFor(() => standby.isLeader, { timeoutMs: 30_000 });
    } finally {
      await one.stop();
      await two.stop();
      await db.close();
    }
  }, 120_000);
});
