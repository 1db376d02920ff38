/**
 * The embedded database's data-directory template (runtime/db/pglite-template.ts, README
 * "Start-up"): a new DATA_DIR copied from it has the schema, the migration ledger and the built-in
 * subgraphs of one made by initdb, the migrations and the subgraph engine's first start, which then
 * finds nothing to create; only migrations newer than the template run; a template made from
 * other migrations, or damaged, or missing, is ignored with a log line and the database is created
 * with initdb. Real PGlite data directories throughout.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../../runtime/config/index.js";
import { openDb } from "../../../runtime/db/index.js";
import { CORE_MIGRATIONS, migrate } from "../../../runtime/db/migrate.js";
import { MANIFEST_FILE, TEMPLATE_PGDATA } from "../../../runtime/db/pglite-template.js";
import { buildPgliteTemplate } from "../../../runtime/db/pglite-template-build.js";
import type { Db } from "../../../runtime/db/types.js";
import { createLogger, silentLogger } from "../../../runtime/internal/logger.js";
import { createSubgraphEngine } from "../../../runtime/subgraphs/index.js";
import { builtinSubgraphs } from "../../../runtime/subgraphs/module-loader.js";
import { TEST_DB_KIND } from "../../support/db.js";

/** Everything a migration defines, as sorted text rows (no oids, no timestamps). */
async function catalog(db: Db): Promise<Record<string, string[]>> {
  const user = "NOT IN ('pg_catalog', 'information_schema', 'pg_toast')";
  const queries: Record<string, string> = {
    relations: `SELECT n.nspname || '.' || c.relname || ' ' || c.relkind::text AS r FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname ${user}`,
    columns: `SELECT table_schema || '.' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
      || ' ' || coalesce(column_default, '-') AS r FROM information_schema.columns WHERE table_schema ${user}`,
    indexes: `SELECT schemaname || ' ' || indexdef AS r FROM pg_indexes WHERE schemaname ${user}`,
    constraints: `SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(c.oid) AS r
      FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname ${user}`,
    functions: `SELECT n.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') '
      || md5(p.prosrc) AS r FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname ${user}`,
    triggers: "SELECT pg_get_triggerdef(oid) AS r FROM pg_trigger WHERE NOT tgisinternal",
    extensions: "SELECT extname || ' ' || extversion AS r FROM pg_extension",
    schemas: `SELECT nspname AS r FROM pg_namespace WHERE nspname ${user} AND nspname NOT LIKE 'pg_temp%' AND nspname NOT LIKE 'pg_toast_temp%'`,
  };
  const out: Record<string, string[]> = {};
  for (const [name, sql] of Object.entries(queries)) {
    const { rows } = await db.query<{ r: string }>(sql);
    out[name] = rows.map((row) => row.r).sort();
  }
  return out;
}

/** Starts and stops the subgraph engine with the built-in subgraphs, as a service start does. */
async function startSubgraphs(db: Db): Promise<void> {
  const engine = createSubgraphEngine({ db, config: parseConfig({ DATA_DIR: ".tmp/unused" }), logger: silentLogger });
  await engine.init();
  await engine.close();
}

/** The built-in subgraphs' control rows, without the times. */
async function subgraphRows(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ r: string }>(
    "SELECT name || ' ' || kind || ' ' || version || ' ' || module_hash || ' ' || status AS r FROM control.subgraphs ORDER BY name",
  );
  return rows.map((row) => row.r);
}

async function ledger(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ version: number; name: string }>(
    "SELECT version, name FROM control.migrations ORDER BY version",
  );
  return rows.map((r) => `${r.version} ${r.name}`);
}

describe.skipIf(TEST_DB_KIND === "postgres")("the embedded database's data-directory template", () => {
  let root: string;
  let fullTemplate: string;
  let reference: { catalog: Record<string, string[]>; ledger: string[] };
  /** The same after the subgraph engine's first start: what a service has once started. */
  let started: { catalog: Record<string, string[]>; subgraphs: string[] };
  let builtAt: number;
  const logged: string[] = [];
  const logger = createLogger({ level: "info", write: (line) => logged.push(line) });
  let n = 0;

  /** Opens (creating) the embedded database of a new DATA_DIR, migrates it, and hands it to `fn`. */
  async function withNewDataDir<T>(
    template: string | null,
    fn: (db: Db, applied: number[], dataDir: string) => Promise<T>,
  ): Promise<T> {
    const dataDir = path.join(root, `data-${++n}`);
    const db = await openDb({ databaseUrl: null, dataDir, pgliteTemplate: template, logger });
    try {
      return await fn(db, await migrate(db), dataDir);
    } finally {
      await db.close();
    }
  }

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-template-"));
    fullTemplate = path.join(root, "template-full");
    builtAt = Date.now();
    expect((await buildPgliteTemplate(fullTemplate)).built).toBe(true);
    // The reference: initdb and every migration, as without a template; then the engine's first start.
    reference = await withNewDataDir(null, async (db, applied) => {
      expect(applied).toEqual(CORE_MIGRATIONS.map((m) => m.version));
      const core = { catalog: await catalog(db), ledger: await ledger(db) };
      await startSubgraphs(db);
      started = { catalog: await catalog(db), subgraphs: await subgraphRows(db) };
      return core;
    });
  });
  afterAll(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it("gives a new data directory the schema, ledger and built-in subgraphs of one created the normal way", async () => {
    expect(reference.ledger).toEqual(CORE_MIGRATIONS.map((m) => `${m.version} ${m.name}`));
    expect(reference.catalog.columns.length).toBeGreaterThan(100);
    // The engine's first start adds every built-in subgraph's tables.
    expect(started.subgraphs.map((r) => r.split(" ")[0])).toEqual(builtinSubgraphs.map((m) => m.name).sort());
    expect(started.catalog.relations.length).toBeGreaterThan(reference.catalog.relations.length);
    logged.length = 0;
    await withNewDataDir(fullTemplate, async (db, applied) => {
      expect(applied).toEqual([]); // every migration came with the template
      expect(await ledger(db)).toEqual(reference.ledger);
      expect(await catalog(db)).toEqual(started.catalog);
      expect(await subgraphRows(db)).toEqual(started.subgraphs);
      // Nothing left for the engine's start to create or change.
      const before = await db.query<{ x: string }>("SELECT txid_current()::text AS x");
      await startSubgraphs(db);
      expect(await catalog(db)).toEqual(started.catalog);
      expect(await subgraphRows(db)).toEqual(started.subgraphs);
      const { rows } = await db.query<{ n: string }>(
        "SELECT count(*)::text AS n FROM pg_class WHERE xmin::text::bigint > $1::bigint",
        [before.rows[0].x],
      );
      expect(rows[0].n).toBe("0");
    });
    expect(logged.join("\n")).toContain("database created from the template");
  });

  it("dates a copy's built-in subgraphs from the copy, not from the template's build", async () => {
    const times = await withNewDataDir(fullTemplate, async (db) => {
      const { rows } = await db.query<{ deployed: string; updated: string }>(
        "SELECT min(deployed_at)::text AS deployed, min(updated_at)::text AS updated FROM control.subgraphs",
      );
      return rows[0];
    });
    const manifestWritten = fs.statSync(path.join(fullTemplate, MANIFEST_FILE)).mtimeMs;
    expect(builtAt).toBeLessThan(manifestWritten);
    expect(Date.parse(times.deployed)).toBeGreaterThan(manifestWritten);
    expect(Date.parse(times.updated)).toBeGreaterThan(manifestWritten);
  });

  it("removes the half copy a process that died while copying left behind", async () => {
    const dataDir = path.join(root, "after-a-crash");
    const half = path.join(dataDir, "pgdata.template-999999999");
    fs.mkdirSync(path.join(half, "base"), { recursive: true });
    fs.writeFileSync(path.join(half, "PG_VERSION"), "17\n");
    const db = await openDb({ databaseUrl: null, dataDir, pgliteTemplate: fullTemplate, logger });
    try {
      expect(await migrate(db)).toEqual([]);
    } finally {
      await db.close();
    }
    expect(fs.readdirSync(dataDir).filter((f) => f.startsWith("pgdata"))).toEqual(["pgdata"]);
  });

  it("draws the per-database webhook token afresh for each copy", async () => {
    const token = (db: Db) =>
      db.query<{ t: string }>("SELECT webhooks_token AS t FROM control.webhook_progress").then((r) => r.rows[0].t);
    const a = await withNewDataDir(fullTemplate, token);
    const b = await withNewDataDir(fullTemplate, token);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
  });

  it("keeps a template that is up to date instead of building it again", async () => {
    const before = fs.statSync(path.join(fullTemplate, MANIFEST_FILE)).mtimeMs;
    expect((await buildPgliteTemplate(fullTemplate)).built).toBe(false);
    expect(fs.statSync(path.join(fullTemplate, MANIFEST_FILE)).mtimeMs).toBe(before);
  });

  it("runs only the migrations newer than an older template", async () => {
    const older = CORE_MIGRATIONS.slice(0, CORE_MIGRATIONS.length - 2);
    const dir = path.join(root, "template-older");
    await buildPgliteTemplate(dir, older, []);
    await withNewDataDir(dir, async (db, applied) => {
      expect(applied).toEqual(CORE_MIGRATIONS.slice(-2).map((m) => m.version));
      expect(await ledger(db)).toEqual(reference.ledger);
      expect(await catalog(db)).toEqual(reference.catalog);
    });
  });

  it("ignores a template made from other migrations and creates the database with initdb", async () => {
    // The last migration altered: a template holding it must not be used by this code.
    const last = CORE_MIGRATIONS[CORE_MIGRATIONS.length - 1];
    const other = [
      ...CORE_MIGRATIONS.slice(0, -1),
      { ...last, sql: `${last.sql};\nCREATE TABLE control.only_in_the_other_template (x int);` },
    ];
    const dir = path.join(root, "template-other");
    await buildPgliteTemplate(dir, other, []);
    logged.length = 0;
    await withNewDataDir(dir, async (db, applied) => {
      expect(applied).toEqual(CORE_MIGRATIONS.map((m) => m.version));
      expect(await catalog(db)).toEqual(reference.catalog);
    });
    const line = logged.find((l) => l.includes("database template not used"));
    expect(line).toContain(`migration ${last.version} (${last.name}) differs`);
  });

  it("ignores a damaged template and creates the database with initdb", async () => {
    const dir = path.join(root, "template-damaged");
    fs.cpSync(fullTemplate, dir, { recursive: true });
    // One byte changed in the largest file of the template.
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), "utf8")) as {
      files: { path: string; size: number }[];
    };
    const largest = manifest.files.reduce((a, b) => (b.size > a.size ? b : a));
    const file = path.join(dir, TEMPLATE_PGDATA, largest.path);
    const bytes = fs.readFileSync(file);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    fs.writeFileSync(file, bytes);
    logged.length = 0;
    await withNewDataDir(dir, async (db, applied, dataDir) => {
      expect(applied).toEqual(CORE_MIGRATIONS.map((m) => m.version));
      expect(await catalog(db)).toEqual(reference.catalog);
      // Nothing of the refused copy is left beside the database.
      expect(fs.readdirSync(dataDir).filter((f) => f.startsWith("pgdata."))).toEqual([]);
    });
    expect(logged.find((l) => l.includes("database template not used"))).toContain(
      `its file ${largest.path} does not match the manifest`,
    );
  });

  it("ignores a template whose manifest is not JSON, or that is missing", async () => {
    const dir = path.join(root, "template-bad-manifest");
    fs.cpSync(fullTemplate, dir, { recursive: true });
    fs.writeFileSync(path.join(dir, MANIFEST_FILE), "{ not json");
    logged.length = 0;
    await withNewDataDir(dir, async (_db, applied) => {
      expect(applied).toEqual(CORE_MIGRATIONS.map((m) => m.version));
    });
    expect(logged.find((l) => l.includes("database template not used"))).toContain("its manifest is not JSON");
    logged.length = 0;
    await withNewDataDir(path.join(root, "no-such-template"), async (_db, applied) => {
      expect(applied).toEqual(CORE_MIGRATIONS.map((m) => m.version));
    });
    expect(logged.find((l) => l.includes("database template not used"))).toContain("no template at");
  });

  it("leaves an existing database alone", async () => {
    const dataDir = path.join(root, "existing");
    const first = await openDb({ databaseUrl: null, dataDir, pgliteTemplate: fullTemplate, logger });
    await migrate(first);
    await first.exec("CREATE TABLE control.kept_across_restarts (x int)");
    await first.close();
    logged.length = 0;
    const again = await openDb({ databaseUrl: null, dataDir, pgliteTemplate: fullTemplate, logger });
    try {
      expect(await migrate(again)).toEqual([]);
      const { rows } = await again.query("SELECT to_regclass('control.kept_across_restarts') IS NOT NULL AS kept");
      expect(rows[0]).toEqual({ kept: true });
    } finally {
      await again.close();
    }
    expect(logged.filter((l) => l.includes("template"))).toEqual([]);
  });
});
