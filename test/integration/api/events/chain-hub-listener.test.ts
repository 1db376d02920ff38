/**
 * The chain hub when its listening connection is lost (runtime/api/events/chain-hub.ts,
 * runtime/db/pg-listener.ts), on PostgreSQL: the connection is terminated with
 * pg_terminate_backend and a block and a reorg commit while it is down, so their notifications
 * are lost. The hub stops being live, listens again, and signals the reorg and the new tip from
 * the tables, with its safety-net poll set far beyond the test's length: only the catch-up after
 * the reconnection can explain the signals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChainHub, type HubSignal, createChainHub } from "../../../../runtime/api/events/chain-hub.js";
import { LISTENER_APPLICATION_NAME } from "../../../../runtime/db/pg-listener.js";
import { createLogger } from "../../../../runtime/internal/logger.js";
import { TEST_DB_KIND, type TestDb, createTestDb } from "../../../support/db.js";
import { waitFor } from "../../../support/service.js";
import { commitBlock, commitReorg } from "../../../support/subgraph-read.js";

describe.skipIf(TEST_DB_KIND !== "postgres")("chain hub across a lost listening connection", () => {
  let testDb: TestDb;
  let hub: ChainHub | null = null;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await hub?.close();
    await testDb?.drop();
  });

  it("is not live while the connection is down, then signals what committed meanwhile", async () => {
    const { db } = testDb;
    await db.exec('CREATE TABLE control.t_hub_rows ("_id" bigint)');
    const logged: string[] = [];
    const logger = createLogger({ level: "info", write: (line) => logged.push(JSON.parse(line).msg) });
    hub = await createChainHub({ db, logger, pollIntervalMs: 3_600_000 });
    const signals: HubSignal[] = [];
    hub.subscribe((s) => signals.push(s));
    expect(hub.live).toBe(true);

    const first = await commitBlock(db);
    await waitFor(() => hub?.state.tipHeight === first);

    const { rows } = await db.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1",
      [LISTENER_APPLICATION_NAME],
    );
    expect(rows.length).toBe(1);
    await db.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
    await waitFor(() => hub?.live === false, { intervalMs: 1 });
    // Committed while nobody listens (the first try to listen again waits 100 ms).
    await commitBlock(db);
    await commitReorg(db, "control.t_hub_rows", 0, first);
    const tipNow = Number((await db.query<{ h: number }>("SELECT block_height AS h FROM control.chain_tip")).rows[0].h);

    await waitFor(() => hub?.live === true && hub.state.tipHeight === tipNow, { timeoutMs: 10_000 });
    const reorgs = signals.filter((s) => s.kind === "reorg");
    expect(reorgs.length).toBe(1);
    expect(reorgs[0].kind === "reorg" && reorgs[0].reorg.fork_point_height).toBe(first);
    expect(logged).toContain("chain notifications resumed");

    // And notifications flow again.
    const next = await commitBlock(db);
    await waitFor(() => hub?.state.tipHeight === next, { timeoutMs: 5_000 });
  });
});
