/**
 * The Db interface (DESIGN.md §2 "Storage"): the same behaviour on PGlite and PostgreSQL —
 * lossless numbers, transactions, NOTIFY at commit, a lost listening connection made again
 * (PostgreSQL), idempotent and concurrent migrations.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIngestor } from "../../../runtime/chain/ingest.js";
import { acquireDataDirLock } from "../../../runtime/db/index.js";
import { CORE_MIGRATIONS, migrate } from "../../../runtime/db/migrate.js";
import { LISTENER_APPLICATION_NAME } from "../../../runtime/db/pg-listener.js";
import { silentLogger } from "../../../runtime/internal/logger.js";
import { type TestDb, TEST_DB_KIND, createTestDb } from "../../support/db.js";
import { waitFor } from "../../support/service.js";

describe(`Db on ${TEST_DB_KIND}`, () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("returns int8 and numeric as exact strings, jsonb parsed, timestamptz as Date", async () => {
    const { rows } = await t.db.query<{ n: string; b: string; j: unknown; ts: Date }>(
      "SELECT 340282366920938463463374607431768211455::numeric AS n, 9007199254740993::int8 AS b, '{\"k\":[1]}'::jsonb AS j, now() AS ts",
    );
    expect(rows[0].n).toBe("340282366920938463463374607431768211455");
    expect(rows[0].b).toBe("9007199254740993");
    expect(rows[0].j).toEqual({ k: [1] });
    expect(rows[0].ts).toBeInstanceOf(Date);
  });

  it("commits a transaction and rolls back a failed one entirely", async () => {
    await t.db.exec("CREATE TABLE IF NOT EXISTS control.t_tx (v int)");
    await t.db.transaction(async (q) => {
      await q.query("INSERT INTO control.t_tx VALUES (1)");
    });
    await expect(
      t.db.transaction(async (q) => {
        await q.query("INSERT INTO control.t_tx VALUES (2)");
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    const { rows } = await t.db.query<{ v: number }>("SELECT v FROM control.t_tx ORDER BY v");
    expect(rows.map((r) => r.v)).toEqual([1]);
  });

  it("delivers NOTIFY sent inside a transaction only after it commits", async () => {
    const got: string[] = [];
    const unlisten = await t.db.listen("sluice_test", (p) => got.push(p));
    let notifiedBeforeCommit = 0;
    await t.db.transaction(async (q) => {
      await q.query("SELECT pg_notify('sluice_test', 'one')");
      await new Promise((r) => setTimeout(r, 100));
      notifiedBeforeCommit = got.length;
    });
    await waitFor(() => got.length === 1);
    expect(notifiedBeforeCommit).toBe(0);
    await t.db.notify("sluice_test", "two");
    await waitFor(() => got.length === 2);
    expect(got).toEqual(["one", "two"]);
    await unlisten();
  });

  it.skipIf(TEST_DB_KIND !== "postgres")(
    "makes a terminated listening connection again, says so, and delivers what is sent after",
    async () => {
      const got: string[] = [];
      const events: string[] = [];
      const unlisten = await t.db.listen("sluice_test_lost", (p) => got.push(p), {
        onLost: () => events.push("lost"),
        onResume: () => events.push("resumed"),
      });
      await t.db.notify("sluice_test_lost", "before");
      await waitFor(() => got.length === 1);
      const listeners = async () =>
        (
          await t.db.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity
              WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()`,
            [LISTENER_APPLICATION_NAME],
          )
        ).rows.map((r) => r.pid);
      const [old] = await listeners();
      expect(old, "the listening connection is named in pg_stat_activity").toBeDefined();
      await t.db.query("SELECT pg_terminate_backend($1)", [old]);
      await waitFor(() => events.join(",") === "lost,resumed", { timeoutMs: 10_000 });
      const now = await listeners();
      expect(now.length).toBe(1);
      expect(now[0]).not.toBe(old);
      await t.db.notify("sluice_test_lost", "after");
      await waitFor(() => got.length === 2);
      expect(got).toEqual(["before", "after"]);
      await unlisten();
    },
  );

  it("applies migrations once: a second run and two concurrent runs apply nothing more", async () => {
    expect(await migrate(t.db)).toEqual([]);
    const concurrent = await Promise.all([migrate(t.db), migrate(t.db)]);
    expect(concurrent).toEqual([[], []]);
    const { rows } = await t.db.query<{ version: number }>("SELECT version FROM control.migrations ORDER BY version");
    expect(rows.map((r) => r.version)).toEqual(CORE_MIGRATIONS.map((m) => m.version).sort((a, b) => a - b));
  });

  it("plans with random_page_cost 1.1 on every session while the server keeps the default 4", async () => {
    const reads = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.db.query<{ now: string; server: string }>(
          "SELECT current_setting('random_page_cost') AS now, reset_val AS server FROM pg_settings WHERE name = 'random_page_cost'",
        ),
      ),
    );
    for (const { rows } of reads) expect(rows[0].now).toBe(rows[0].server === "4" ? "1.1" : rows[0].server);
  });

  it("migration 5 moves each subgraph's height into control.subgraph_progress", async () => {
    for (const schema of ["chain", "control"]) await t.db.exec(`DROP SCHEMA ${schema} CASCADE`);
    await migrate(
      t.db,
      CORE_MIGRATIONS.filter((m) => m.version < 5),
    );
    const heights: Record<string, number> = { alpha: 41, beta: -1 };
    for (const [name, height] of Object.entries(heights)) {
      await t.db.query(
        `INSERT INTO control.subgraphs (name, kind, version, schema_hash, module_hash, tables, status, subgraph_height)
         VALUES ($1, 'deployed', '1.0.0', 'h', 'm', '{}', 'ready', $2)`,
        [name, height],
      );
    }
    expect(
      await migrate(
        t.db,
        CORE_MIGRATIONS.filter((m) => m.version <= 5),
      ),
    ).toEqual([5]);
    const { rows } = await t.db.query<{ name: string; subgraph_height: number }>(
      "SELECT name, subgraph_height FROM control.subgraph_progress ORDER BY name",
    );
    expect(Object.fromEntries(rows.map((r) => [r.name, r.subgraph_height]))).toEqual(heights);
    await t.db.query("DELETE FROM control.subgraphs WHERE name = 'alpha'");
    const left = await t.db.query<{ name: string }>("SELECT name FROM control.subgraph_progress");
    expect(left.rows.map((r) => r.name)).toEqual(["beta"]);
  });

  it("migration 7 turns stored fork points (common ancestor) into the lowest orphaned height", async () => {
    for (const schema of ["chain", "control"]) await t.db.exec(`DROP SCHEMA ${schema} CASCADE`);
    await migrate(
      t.db,
      CORE_MIGRATIONS.filter((m) => m.version < 7),
    );
    // As written before: a reorg whose common ancestor is 29 orphaned block 30.
    await t.db.query(
      `INSERT INTO chain.reorgs (fork_point_height, orphaned_from_height, orphaned_to_height, orphaned_blocks,
         applied_blocks, old_tip_hash, old_tip_height, new_tip_hash, new_tip_height)
       VALUES (29, 30, 30, '[]', '[]', '0xa', 30, '0xb', 31)`,
    );
    await t.db.query(
      `INSERT INTO control.webhooks (id, name, kind, url, format, timeout_ms, max_attempts, concurrency, secret_sealed)
       VALUES ('wh_1', 'one', 'chain', 'http://127.0.0.1:1/', 'standard-webhooks', 1000, 3, 1, 'sealed')`,
    );
    const rollback = '{"action":"rollback","fork_point_height":29,"orphaned":[{"tx_id":"0x1"}],"truncated":true}';
    for (const [delivery, status] of [
      ["msg_pending", "pending"],
      ["msg_dead", "dead"],
      ["msg_sent", "delivered"],
    ]) {
      await t.db.query(
        `INSERT INTO control.webhook_outbox (webhook_id, delivery_id, event_type, dedupe_kind, tx_id, event_index,
           block_hash, block_height, data, status)
         VALUES ('wh_1', $1, 'chain.reorg.rollback', 'rollback', '', -1, $1, 29, $2, $3)`,
        [delivery, rollback, status],
      );
    }
    expect(
      await migrate(
        t.db,
        CORE_MIGRATIONS.filter((m) => m.version <= 7),
      ),
    ).toEqual([7]);
    const reorgs = await t.db.query<{ fork_point_height: number }>("SELECT fork_point_height FROM chain.reorgs");
    expect(reorgs.rows.map((r) => r.fork_point_height)).toEqual([30]);
    const outbox = await t.db.query<{ delivery_id: string; block_height: number; data: string }>(
      "SELECT delivery_id, block_height, data::text AS data FROM control.webhook_outbox ORDER BY delivery_id",
    );
    const converted = rollback.replace('"fork_point_height":29', '"fork_point_height":30');
    // Not yet delivered: converted, keys in the same order; delivered: kept as it was sent.
    expect(outbox.rows.map((r) => [r.delivery_id, r.block_height, JSON.stringify(JSON.parse(r.data))])).toEqual([
      ["msg_dead", 30, converted],
      ["msg_pending", 30, converted],
      ["msg_sent", 29, rollback],
    ]);
  });

  it("migration 8 finds the undecided branch tying the tip; the service's recomputation keeps finality below it", async () => {
    for (const schema of ["chain", "control"]) await t.db.exec(`DROP SCHEMA ${schema} CASCADE`);
    await migrate(
      t.db,
      CORE_MIGRATIONS.filter((m) => m.version < 8),
    );
    // Canonical a1..a5 (burn 101..105); b4 → b5 a branch from a3 tying the tip; c2 a stale side block.
    const blocks: [string, number, string, number, boolean][] = [
      ["a1", 1, "a0", 101, true],
      ["a2", 2, "a1", 102, true],
      ["a3", 3, "a2", 103, true],
      ["a4", 4, "a3", 104, true],
      ["a5", 5, "a4", 105, true],
      ["b4", 4, "a3", 104, false],
      ["b5", 5, "b4", 105, false],
      ["c2", 2, "a1", 102, false],
    ];
    for (const [hash, height, parent, burn, canonical] of blocks) {
      await t.db.query(
        `INSERT INTO chain.blocks (index_block_hash, block_hash, block_height, parent_index_block_hash, parent_block_hash,
           burn_block_hash, burn_block_height, burn_block_time, block_time, tx_count, event_count, canonical)
         VALUES ($1, $1, $2, $3, $3, 'burn', $4, 0, 0, 0, 0, $5)`,
        [hash, height, parent, burn, canonical],
      );
    }
    // As the boundary was computed before (from the burn tip): everything final.
    await t.db.query(
      "UPDATE control.chain_tip SET index_block_hash = 'a5', block_height = 5, burn_block_height = 200, finalized_height = 5",
    );
    expect(
      await migrate(
        t.db,
        CORE_MIGRATIONS.filter((m) => m.version <= 8),
      ),
    ).toEqual([8]);
    const tip = async () =>
      (
        await t.db.query<{ contested: number | null; high: number | null; fin: number | null; below: string }>(
          `SELECT contested_from_height AS contested, finalized_high_water AS high, finalized_height AS fin,
                  reorgs_below_finality AS below FROM control.chain_tip`,
        )
      ).rows[0];
    expect(await tip()).toEqual({ contested: 4, high: 5, fin: 5, below: "0" });
    // One confirmation: a4 is deep enough (burn 104 <= 105 - 1) but contested by b4; a3 is final.
    await createIngestor({ db: t.db, logger: silentLogger, finalityBurnConfirmations: 1 }).refreshFinality();
    expect(await tip()).toEqual({ contested: 4, high: 5, fin: 3, below: "0" });
  });

  it("migration 9 takes existing subgraphs' undo journal to be gone up to the highest boundary reported", async () => {
    for (const schema of ["chain", "control"]) await t.db.exec(`DROP SCHEMA ${schema} CASCADE`);
    await migrate(
      t.db,
      CORE_MIGRATIONS.filter((m) => m.version < 9),
    );
    await t.db.query(
      `INSERT INTO control.subgraphs (name, kind, version, schema_hash, module_hash, tables, status)
       VALUES ('alpha', 'deployed', '1.0.0', 'h', 'm', '{}', 'ready')`,
    );
    await t.db.query("INSERT INTO control.subgraph_progress (name, subgraph_height) VALUES ('alpha', 40)");
    // A tie lowered the boundary to 35 after 38 had been reported final.
    await t.db.query("UPDATE control.chain_tip SET finalized_height = 35, finalized_high_water = 38");
    expect(
      await migrate(
        t.db,
        CORE_MIGRATIONS.filter((m) => m.version <= 9),
      ),
    ).toEqual([9]);
    const read = async () =>
      (
        await t.db.query<{ name: string; unjournaled_height: number; operation_reason: string | null }>(
          `SELECT name, unjournaled_height, operation_reason
             FROM control.subgraph_progress JOIN control.subgraphs USING (name) ORDER BY name`,
        )
      ).rows;
    expect(await read()).toEqual([{ name: "alpha", unjournaled_height: 38, operation_reason: null }]);
    // A subgraph added later has applied nothing unjournaled yet.
    await t.db.query(
      `INSERT INTO control.subgraphs (name, kind, version, schema_hash, module_hash, tables, status)
       VALUES ('beta', 'deployed', '1.0.0', 'h', 'm', '{}', 'ready')`,
    );
    await t.db.query("INSERT INTO control.subgraph_progress (name) VALUES ('beta')");
    expect((await read())[1]).toEqual({ name: "beta", unjournaled_height: -1, operation_reason: null });
  });
});

describe("DATA_DIR lock (embedded database)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-lock-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("refuses a second holder with a clear message and frees on release", () => {
    const release = acquireDataDirLock(dir);
    // A live process other than us holds it: simulate with our parent's pid.
    fs.writeFileSync(path.join(dir, "sluice.lock"), String(process.ppid));
    expect(() => acquireDataDirLock(dir)).toThrow(/in use by process \d+; stop it or use another DATA_DIR/);
    fs.writeFileSync(path.join(dir, "sluice.lock"), String(process.pid));
    release();
    expect(fs.existsSync(path.join(dir, "sluice.lock"))).toBe(false);
  });

  it("takes over a lock left by a crashed process", () => {
    fs.writeFileSync(path.join(dir, "sluice.lock"), "999999999");
    const release = acquireDataDirLock(dir);
    expect(fs.readFileSync(path.join(dir, "sluice.lock"), "utf8")).toBe(String(process.pid));
    release();
  });
});
