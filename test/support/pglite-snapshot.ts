/**
 * A migrated, empty PGlite database as a dumped data directory: test databases start from it
 * instead of running initdb and the core migrations (several seconds per database on a loaded
 * machine). It is made once, by the first test process that needs it, and kept in .tmp/ under a
 * key naming the PGlite version and the migrations (and their runner), so a change makes a new one.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { CORE_MIGRATIONS, migrate } from "../../runtime/db/migrate.js";
import type { Db, Queryable } from "../../runtime/db/types.js";
import { REPO_ROOT } from "./fixtures.js";

/** SLUICE_TEST_SNAPSHOT_DIR lets a scratch copy of the repository share the snapshots of the original. */
export const SNAPSHOT_DIR = process.env.SLUICE_TEST_SNAPSHOT_DIR ?? path.join(REPO_ROOT, ".tmp", "pglite-snapshots");

function snapshotKey(): string {
  const pglite = readFileSync(path.join(REPO_ROOT, "node_modules", "@electric-sql", "pglite", "package.json"), "utf8");
  const { version } = JSON.parse(pglite) as { version: string };
  const runner = readFileSync(path.join(REPO_ROOT, "runtime", "db", "migrate.ts"), "utf8");
  return createHash("sha256").update(JSON.stringify({ version, runner, CORE_MIGRATIONS })).digest("hex").slice(0, 16);
}

/** Runs the core migrations on a bare PGlite (only what `migrate` uses of a Db). */
async function migrateBare(pg: PGlite): Promise<void> {
  const wrap = (q: Pick<PGlite, "query" | "exec">): Queryable => ({
    async exec(sql) {
      await q.exec(sql);
    },
    async query<T>(sql: string, params?: unknown[]) {
      const res = await q.query<T>(sql, params);
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
  });
  await migrate({ transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))) } as Db);
}

async function makeSnapshot(file: string): Promise<Blob> {
  const pg = await PGlite.create({ extensions: { pg_trgm } });
  try {
    await migrateBare(pg);
    const dump = await pg.dumpDataDir("none");
    // Written under a temporary name, then renamed: processes racing to make it never read half a file.
    mkdirSync(SNAPSHOT_DIR, { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
    return dump;
  } finally {
    await pg.close();
  }
}

let snapshot: Promise<Blob> | undefined;

/** The migrated snapshot, made on first use. */
export function migratedPgliteSnapshot(): Promise<Blob> {
  snapshot ??= (async () => {
    const file = path.join(SNAPSHOT_DIR, `migrated-${snapshotKey()}.tar`);
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    return makeSnapshot(file);
  })();
  return snapshot;
}

let dataDirTemplate: Promise<string> | undefined;

/** The migrated snapshot as a data directory on disk, made once (like the snapshot) and only copied. */
function migratedDataDirTemplate(): Promise<string> {
  dataDirTemplate ??= (async () => {
    const dir = path.join(SNAPSHOT_DIR, `migrated-${snapshotKey()}.pgdata`);
    if (existsSync(dir)) return dir;
    // Made under a temporary name, then renamed: a process racing to make it never copies half a
    // directory; the one that loses the race drops its own.
    const partial = `${dir}.${process.pid}.partial`;
    rmSync(partial, { recursive: true, force: true });
    const pg = await PGlite.create({
      dataDir: partial,
      loadDataDir: await migratedPgliteSnapshot(),
      extensions: { pg_trgm },
    });
    await pg.close();
    try {
      renameSync(partial, dir);
    } catch (err) {
      if (!existsSync(dir)) throw err;
      rmSync(partial, { recursive: true, force: true });
    }
    return dir;
  })();
  return dataDirTemplate;
}

/**
 * Gives DATA_DIR `dataDir` the migrated, empty embedded database the service or the CLI would
 * create there on first start: copying it takes a fraction of a second where a first start runs
 * initdb (several seconds of CPU). For tests whose subject is not the first start.
 */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  const target = path.join(dataDir, "pgdata");
  if (existsSync(target)) throw new Error(`${target} exists already`);
  cpSync(await migratedDataDirTemplate(), target, { recursive: true });
}
