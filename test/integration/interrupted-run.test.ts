/**
 * `make test` (test/run.mjs) leaves no PostgreSQL databases behind: a run of one storage suite is
 * stopped while a test holds its database — Ctrl-C (SIGINT to the run's process group) or a
 * SIGTERM to run.mjs alone — and pg_database then lists none of the run's databases. A run also
 * starts by dropping the databases of runs that started hours ago, and only those.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/fixtures.js";
import { PG_ADMIN_URL, TEST_DB_KIND } from "../support/db.js";
import { waitFor } from "../support/service.js";
import { dropStaleDatabases, newRunId, runDatabasePrefix } from "../support/test-databases.mjs";
import { scratchDir } from "../support/scratch-dir.js";

/** The databases whose names start with `prefix`. */
async function databasesStartingWith(prefix: string): Promise<string[]> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY 1",
      [prefix],
    );
    return rows.map((r) => r.datname);
  } finally {
    await admin.end();
  }
}

async function adminQuery(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(sql).finally(() => admin.end());
}

describe.skipIf(TEST_DB_KIND !== "postgres")("test/run.mjs and its databases", () => {
  const scratchRoot = scratchDir("sluice-interrupted-run-");
  afterAll(() => scratchRoot.remove());

  /** Starts `node test/run.mjs` on one storage suite, PostgreSQL only, in a process group of its own. */
  function startRun(runId: string): { child: ChildProcess; exited: Promise<number | null>; output(): string } {
    // The child is a run of its own, not a worker of this one.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST")));
    const child = spawn(process.execPath, ["test/run.mjs", "--project", "postgres", "test/integration/db/db.test.ts"], {
      cwd: REPO_ROOT,
      env: {
        ...env,
        SLUICE_TEST_PG_URL: PG_ADMIN_URL,
        SLUICE_TEST_RUN_ID: runId,
        SLUICE_TEST_REPORT: join(scratchRoot.path, `${runId}.json`),
        // The run is killed before its hooks clean up: what it makes in the temporary directory
        // goes under the scratch directory, removed with it.
        TMPDIR: scratchRoot.path,
      },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (d) => (output += d));
    child.stderr?.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    return { child, exited, output: () => output };
  }

  it.each([
    ["SIGINT to the process group (Ctrl-C)", "SIGINT", 130, true],
    ["SIGTERM to run.mjs alone", "SIGTERM", 143, false],
  ] as const)("%s: the run stops and drops its databases", async (_label, signal, exitCode, wholeGroup) => {
    const runId = newRunId();
    const prefix = runDatabasePrefix(runId);
    const run = startRun(runId);
    try {
      await waitFor(async () => (await databasesStartingWith(prefix)).length > 0, { timeoutMs: 90_000 });
      process.kill(wholeGroup ? -(run.child.pid as number) : (run.child.pid as number), signal);
      expect(await run.exited, run.output()).toBe(exitCode);
      expect(await databasesStartingWith(prefix)).toEqual([]);
    } finally {
      try {
        process.kill(-(run.child.pid as number), "SIGKILL");
      } catch {}
    }
  });

  it("drops the databases of runs that started more than the limit ago, and no others", async () => {
    const hour = 60 * 60 * 1000;
    const old = runDatabasePrefix(newRunId(Date.now() - 7 * hour));
    const recent = runDatabasePrefix(newRunId(Date.now() - hour));
    await adminQuery(`CREATE DATABASE ${old}a`);
    await adminQuery(`CREATE DATABASE ${recent}a`);
    try {
      const dropped = await dropStaleDatabases(PG_ADMIN_URL, 6 * hour);
      expect(dropped).toContain(`${old}a`);
      expect(dropped).not.toContain(`${recent}a`);
      expect(await databasesStartingWith(old)).toEqual([]);
      expect(await databasesStartingWith(recent)).toEqual([`${recent}a`]);
    } finally {
      await adminQuery(`DROP DATABASE IF EXISTS ${old}a WITH (FORCE)`);
      await adminQuery(`DROP DATABASE IF EXISTS ${recent}a WITH (FORCE)`);
    }
  });
});
