/**
 * Opens the configured database (DESIGN.md §2): PostgreSQL when DATABASE_URL is set, else the
 * embedded PGlite in DATA_DIR, guarded by a lock file so two processes never open it at once.
 */
import fs from "node:fs";
import path from "node:path";
import { explainDatabaseError } from "../internal/startup-errors.js";
import { createPgliteDb } from "./pglite.js";
import { createPostgresDb } from "./postgres.js";
import type { Db } from "./types.js";

export type { Db, Queryable, QueryResult } from "./types.js";
export { migrate } from "./migrate.js";

export interface OpenDbOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** PGLITE_SHARED_BUFFERS_MB (the embedded database only); default runtime/db/pglite-settings.ts. */
  pgliteSharedBuffersMb?: number;
}

export async function openDb(options: OpenDbOptions): Promise<Db> {
  if (options.databaseUrl) {
    const url = options.databaseUrl;
    return createPostgresDb(url).catch((err) => Promise.reject(explainDatabaseError(err, url)));
  }
  const dir = path.join(options.dataDir, "pgdata");
  fs.mkdirSync(dir, { recursive: true });
  const release = acquireDataDirLock(options.dataDir);
  try {
    const db = await createPgliteDb(dir, undefined, { sharedBuffersMb: options.pgliteSharedBuffersMb });
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
