#!/usr/bin/env node
// `make test`: the whole suite on embedded PGlite and the storage suites (test/integration) on
// PostgreSQL at 127.0.0.1:5432, as two vitest projects of one run (vitest.config.ts), so one
// scheduler keeps every worker busy across both. Prints the combined last line
// `N passed, N failed` (CI reads it). Arguments go to vitest (`--project postgres`, file filters).
//
// The PostgreSQL databases the run creates are named after its run id (test/support/test-databases.mjs);
// they are dropped when the run ends, also on SIGINT/SIGTERM, and a run starts by dropping those of
// runs that died long ago.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { dropRunDatabases, dropStaleDatabases, newRunId } from "./support/test-databases.mjs";

const PG_URL = process.env.SLUICE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
// No run lasts this long, so databases of a run that started earlier belong to a dead one.
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;
const REPORT = process.env.SLUICE_TEST_REPORT ?? ".tmp/vitest-report.json";
const RUN_ID = process.env.SLUICE_TEST_RUN_ID ?? newRunId();
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 };

function postgresReachable() {
  const { hostname, port } = new URL(PG_URL);
  return new Promise((resolve) => {
    const s = net.connect({ host: hostname, port: Number(port || 5432) });
    s.setTimeout(2000);
    const done = (ok) => {
      s.destroy();
      resolve(ok);
    };
    s.once("connect", () => done(true));
    s.once("error", () => done(false));
    s.once("timeout", () => done(false));
  });
}

/** Drops this run's databases; a failure is reported, never thrown (the run's result stands). */
async function dropOwnDatabases() {
  try {
    const dropped = await dropRunDatabases(PG_URL, RUN_ID);
    if (dropped.length) console.log(`dropped ${dropped.length} database(s) left by this run`);
  } catch (err) {
    console.log(`could not drop this run's databases (sluice_test_${RUN_ID}_*): ${err.message}`);
  }
}

/**
 * Runs vitest in a process group of its own, so an interrupt stops the whole tree (workers, and
 * the services and CLIs tests started) and the run can still clean up after it.
 */
function runVitest(args, env) {
  const vitest = path.join("node_modules", "vitest", "vitest.mjs");
  const child = spawn(process.execPath, [vitest, "run", ...args], {
    stdio: "inherit",
    env: { ...process.env, ...env },
    detached: true,
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return { child, exited };
}

function report() {
  if (!fs.existsSync(REPORT)) return { passed: 0, failed: 1, skipped: 0 };
  const json = JSON.parse(fs.readFileSync(REPORT, "utf8"));
  // A suite that failed to load counts as a failure even if it had no tests.
  const brokenFiles = json.testResults.filter((f) => f.status === "failed" && f.assertionResults.length === 0).length;
  return {
    passed: json.numPassedTests,
    failed: json.numFailedTests + brokenFiles,
    skipped: json.numPendingTests + json.numTodoTests,
  };
}

fs.mkdirSync(path.dirname(REPORT), { recursive: true });
fs.rmSync(REPORT, { force: true });

const withPostgres = await postgresReachable();
const kinds = ["pglite"];
let missingPostgres = false;
if (withPostgres) {
  kinds.push("postgres");
  try {
    const stale = await dropStaleDatabases(PG_URL, STALE_AFTER_MS);
    if (stale.length) console.log(`dropped ${stale.length} database(s) of test runs that ended long ago`);
  } catch (err) {
    console.log(`could not look for stale test databases: ${err.message}`);
  }
} else if (process.env.CI) {
  console.log(`\nPostgreSQL is not reachable at ${PG_URL}, and CI requires the PostgreSQL pass.`);
  missingPostgres = true;
} else {
  console.log(`\n*** PostgreSQL is not reachable at ${PG_URL}: SKIPPING the PostgreSQL pass (CI runs it). ***`);
}

console.log(`\n=== vitest (${kinds.join(" + ")}, run ${RUN_ID})`);
const { child, exited } = runVitest(
  ["--reporter=default", "--reporter=json", `--outputFile=${REPORT}`, ...process.argv.slice(2)],
  { SLUICE_TEST_DB: kinds.join(","), SLUICE_TEST_PG_URL: PG_URL, SLUICE_TEST_RUN_ID: RUN_ID },
);

let interrupted = null;
for (const signal of Object.keys(SIGNAL_EXIT)) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = signal;
    console.log(`\n${signal}: stopping the tests, then dropping this run's databases`);
    try {
      process.kill(-child.pid, signal);
    } catch {}
    // A tree that ignores the signal is killed outright.
    setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, 10_000).unref();
  });
}

await exited;
// Whatever the tests left running in the group (a service that ignored its stop) goes too.
try {
  process.kill(-child.pid, "SIGKILL");
} catch {}
if (withPostgres) await dropOwnDatabases();
if (interrupted) process.exit(SIGNAL_EXIT[interrupted]);

const { passed, failed, skipped } = report();
const failedTotal = failed + (missingPostgres ? 1 : 0);
console.log(`\n${passed} passed, ${failedTotal} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failedTotal ? 1 : 0);
