/**
 * Opens the configured database (DESIGN.md §2): PostgreSQL when DATABASE_URL is set, else the
 * embedded PGlite in DATA_DIR, guarded by a lock file so two processes never open it at once.
 */
import fs from "node:fs";
import path from "node:path";
import { createLogger, type Logger } from "../internal/logger.js";
import { explainDatabaseError } from "../internal/startup-errors.js";
import { createPgliteDb } from "./pglite.js";
import { isEmptyDir, redrawSql, seedFromTemplate } from "./pglite-template.js";
import type { Db } from "./types.js";

export type { Db, Queryable, QueryResult } from "./types.js";
export { migrate } from "./migrate.js";

export interface OpenDbOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** PGLITE_SHARED_BUFFERS_MB (the embedded database only); default runtime/db/pglite-settings.ts. */
  pgliteSharedBuffersMb?: number;
  /**
   * PGLITE_TEMPLATE (the embedded database only): the data-directory template a new database is
   * copied from (runtime/db/pglite-template.ts), or null/undefined for initdb (databases that do
   * not hold the core migrations, and PGLITE_TEMPLATE=off).
   */
  pgliteTemplate?: string | null;
  /** Says whether a new embedded database came from the template, and why not. */
  logger?: Logger;
}

export async function openDb(options: OpenDbOptions): Promise<Db> {
  if (options.databaseUrl) {
    const url = options.databaseUrl;
    // Loaded only here: the embedded database's start-up does not pay for the pg driver.
    const { createPostgresDb } = await import("./postgres.js");
    return createPostgresDb(url).catch((err) => Promise.reject(explainDatabaseError(err, url)));
  }
  const dir = path.join(options.dataDir, "pgdata");
  fs.mkdirSync(options.dataDir, { recursive: true });
  const release = acquireDataDirLock(options.dataDir);
  try {
    const db = await openPglite(dir, options);
    return {
      ...db,
      async close() {
        try {
          await db.close();
        } finally {
          release();
        }
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Opens the embedded database in `dir`. A new one (no or an empty directory) is copied from the
 * template when there is a usable one; if the template is missing, made by other code or damaged,
 * or the copy does not open, the database is created by initdb as without a template.
 */
async function openPglite(dir: string, options: OpenDbOptions): Promise<Db> {
  const settings = { sharedBuffersMb: options.pgliteSharedBuffersMb };
  const template = options.pgliteTemplate;
  if (!template || !isEmptyDir(dir)) {
    fs.mkdirSync(dir, { recursive: true });
    return createPgliteDb(dir, undefined, settings);
  }
  const logger = options.logger ?? createLogger({ level: "warn", format: "pretty" });
  const started = performance.now();
  const seed = seedFromTemplate(template, dir);
  if (!seed.seeded) {
    // A missing template is the ordinary case when running from source without a build.
    (seed.missing ? logger.info : logger.warn)({
      msg: "database template not used; creating the database with initdb",
      template,
      reason: seed.reason,
    });
    fs.mkdirSync(dir, { recursive: true });
    return createPgliteDb(dir, undefined, settings);
  }
  let db: Db | undefined;
  try {
    db = await createPgliteDb(dir, undefined, settings);
    for (const sql of redrawSql(seed.manifest)) await db.query(sql);
  } catch (err) {
    await db?.close().catch(() => undefined);
    logger.warn({
      msg: "database copied from the template did not open; creating it with initdb",
      template,
      error: err,
    });
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    return createPgliteDb(dir, undefined, settings);
  }
  logger.info({
    msg: "database created from the template",
    template,
    migrations: seed.manifest.migrations.length,
    ms: Math.round(performance.now() - started),
  });
  return db;
}

/** An exclusive lock on DATA_DIR: the embedded database must have exactly one process. */
export function acquireDataDirLock(dataDir: string): () => void {
  const file = path.join(dataDir, "sluice.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: "wx" });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = Number(fs.readFileSync(file, "utf8"));
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new Error(`DATA_DIR ${dataDir} is in use by process ${holder}; stop it or use another DATA_DIR`);
      }
      fs.rmSync(file, { force: true }); // stale lock from a crashed process
    }
  }
  throw new Error(`could not lock DATA_DIR ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
