#!/usr/bin/env node
// `make test`: the whole suite on embedded PGlite, then the storage suites (test/integration) on
// PostgreSQL at 127.0.0.1:5432. Prints the combined last line `N passed, N failed` (CI reads it).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";

const PG_URL = process.env.SLUICE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const extraArgs = process.argv.slice(2);
fs.mkdirSync(".tmp", { recursive: true });

function vitest(label, env, args) {
  const out = `.tmp/vitest-${label}.json`;
  fs.rmSync(out, { force: true });
  console.log(`\n=== ${label}: vitest ${args.join(" ")}`);
  const res = spawnSync(
    "npx",
    ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${out}`, ...args],
    {
      stdio: "inherit",
      env: { ...process.env, ...env },
    },
  );
  if (!fs.existsSync(out)) return { passed: 0, failed: 1, crashed: true, status: res.status };
  const report = JSON.parse(fs.readFileSync(out, "utf8"));
  // A suite that failed to load counts as a failure even if it had no tests.
  const brokenFiles = report.testResults.filter((f) => f.status === "failed" && f.assertionResults.length === 0).length;
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + brokenFiles,
    skipped: report.numPendingTests + report.numTodoTests,
  };
}

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

const results = [vitest("pglite", { SLUICE_TEST_DB: "pglite" }, extraArgs)];
if (await postgresReachable()) {
  const pgArgs = extraArgs.length ? extraArgs : ["test/integration"];
  results.push(vitest("postgres", { SLUICE_TEST_DB: "postgres", SLUICE_TEST_PG_URL: PG_URL }, pgArgs));
} else if (process.env.CI) {
  console.log(`\nPostgreSQL is not reachable at ${PG_URL}, and CI requires the PostgreSQL pass.`);
  results.push({ passed: 0, failed: 1 });
} else {
  console.log(`\n*** PostgreSQL is not reachable at ${PG_URL}: SKIPPING the PostgreSQL pass (CI runs it). ***`);
}

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const skipped = results.reduce((n, r) => n + (r.skipped ?? 0), 0);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed ? 1 : 0);
