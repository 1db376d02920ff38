/**
 * Test databases (STYLE.md "Tests"): PGlite in memory by default; PostgreSQL when
 * SLUICE_TEST_DB=postgres, as a uniquely named database created for the test file and dropped after.
 * Names carry the run id test/run.mjs hands down (SLUICE_TEST_RUN_ID), so the run drops whatever a
 * failed or interrupted test file left behind.
 */
import pg from "pg";
import { migrate } from "../../runtime/db/migrate.js";
import { createPgliteDb } from "../../runtime/db/pglite.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import type { Db } from "../../runtime/db/types.js";
import { migratedPgliteSnapshot } from "./pglite-snapshot.js";
import { newDatabaseName, newRunId } from "./test-databases.mjs";

export const TEST_DB_KIND: "pglite" | "postgres" = process.env.SLUICE_TEST_DB === "postgres" ? "postgres" : "pglite";
export const PG_ADMIN_URL = process.env.SLUICE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** Outside test/run.mjs (a plain `vitest run`), each worker process is a run of its own. */
const RUN_ID = process.env.SLUICE_TEST_RUN_ID ?? newRunId();

export interface TestDb {
  db: Db;
  /** Set for PostgreSQL: a URL other processes (CLI children) can open. */
  url: string | null;
  /** Drops every schema the service created and re-applies the core migrations. */
  reset(): Promise<void>;
  drop(): Promise<void>;
}

export function pgUrlFor(database: string): string {
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function createPgDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = newDatabaseName(RUN_ID);
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: pgUrlFor(name),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function createTestDb(): Promise<TestDb> {
  let db: Db;
  let url: string | null = null;
  let dropDatabase = async () => {};
  if (TEST_DB_KIND === "postgres") {
    const created = await createPgDatabase();
    url = created.url;
    dropDatabase = created.drop;
    db = await createPostgresDb(url, 4);
  } else {
    db = await createPgliteDb(undefined, await migratedPgliteSnapshot());
  }
  const reset = async () => {
    const { rows } = await db.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname IN ('chain', 'control') OR nspname LIKE 'sg\\_%'`,
    );
    for (const r of rows) await db.exec(`DROP SCHEMA "${r.nspname}" CASCADE`);
    await migrate(db);
  };
  // The PGlite snapshot is migrated already; a new PostgreSQL database is empty.
  if (TEST_DB_KIND === "postgres") await reset();
  return {
    db,
    url,
    reset,
    async drop() {
      await db.close();
      await dropDatabase();
    },
  };
}
