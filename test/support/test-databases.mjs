/**
 * Names and clean-up of the PostgreSQL databases the suite creates. Every name is
 * `sluice_test_<run id>_<suffix>`, and a run id starts with the run's start time in 8 base-36
 * digits, so test/run.mjs can drop what its own run created (when the run ends or is interrupted)
 * and, at start, what runs that died long ago left behind. Plain JavaScript: run.mjs loads it
 * without a TypeScript loader.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

const PREFIX = "sluice_test_";
const TIME_DIGITS = 8;

/** A new run id: the start time, then random hex so runs started together differ. */
export function newRunId(now = Date.now()) {
  return `${now.toString(36).padStart(TIME_DIGITS, "0")}${randomBytes(3).toString("hex")}`;
}

/** The name prefix of every database created under `runId` (checked: it ends up in SQL). */
export function runDatabasePrefix(runId) {
  if (!/^[0-9a-z]+$/.test(runId)) throw new Error(`run id ${JSON.stringify(runId)} is not lowercase base-36`);
  return `${PREFIX}${runId}_`;
}

/** A fresh database name for `runId`. */
export function newDatabaseName(runId) {
  return `${runDatabasePrefix(runId)}${randomBytes(4).toString("hex")}`;
}

/** When the run that created `name` started (ms), or null for a name this module did not make. */
export function runStartedAt(name) {
  if (!name.startsWith(PREFIX)) return null;
  const digits = name.slice(PREFIX.length, PREFIX.length + TIME_DIGITS);
  return /^[0-9a-z]{8}$/.test(digits) ? Number.parseInt(digits, 36) : null;
}

/** Drops every test database `shouldDrop` accepts, closing their connections; returns the names dropped. */
export async function dropTestDatabases(adminUrl, shouldDrop) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query("SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [PREFIX]);
    const names = rows.map((r) => r.datname).filter(shouldDrop);
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    return names;
  } finally {
    await admin.end();
  }
}

function quoteIdent(name) {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Drops the databases of one run. */
export function dropRunDatabases(adminUrl, runId) {
  const prefix = runDatabasePrefix(runId);
  return dropTestDatabases(adminUrl, (name) => name.startsWith(prefix));
}

/** Drops the databases of runs that started more than `maxAgeMs` ago (no run lasts that long). */
export function dropStaleDatabases(adminUrl, maxAgeMs, now = Date.now()) {
  return dropTestDatabases(adminUrl, (name) => {
    const started = runStartedAt(name);
    return started !== null && now - started > maxAgeMs;
  });
}
