/**
 * Read throughput with 1, 2 and 3 `ROLE=api` processes on one PostgreSQL (README "Running several
 * processes"): a history is loaded once (the one test/bench/read-distinct.ts reads), three API
 * processes are started on their own ports, and each case drives the first N of them at once with
 * a new URL per request (read-distinct.ts's cases and load), the same total connections split
 * evenly. Rounds go N = 1, 2, 3 then 3, 2, 1 (the machine is shared: alternating evens out drift);
 * the best round per N is kept. Prints req/s, p99, the ratio to N = 1, `nproc` and the load
 * average. Not a test.
 *
 *   npx tsx test/bench/api-scale.ts
 *   BENCH_EVENTS=200000 BENCH_ROWS=200000 BENCH_SECONDS=4 BENCH_CONNECTIONS=12 BENCH_ROUNDS=2
 *   BENCH_ONLY=<regex of case names>
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import { type ServiceProcess, startServiceProcess } from "../support/cli.js";
import { createPgDatabase } from "../support/db.js";
import { type Case, cases, distinctLoad, loadReadHistory, preparePaths } from "./read-distinct.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 12);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ONLY = new RegExp(process.env.BENCH_ONLY ?? "health|index|holder=", "i");
const SIZES = [1, 2, 3];

const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

interface Result {
  rps: number;
  p99: number;
}

/** Drives the first `n` processes at once for SECONDS; req/s summed, the worst p99. */
async function drive(apis: ServiceProcess[], n: number): Promise<Result> {
  const per = Math.max(1, Math.round(CONNECTIONS / n));
  const targets = apis.slice(0, n);
  await Promise.all(targets.map((a) => distinctLoad(a.apiUrl, per, 1))); // warm-up
  const results = await Promise.all(targets.map((a) => distinctLoad(a.apiUrl, per, SECONDS)));
  return { rps: results.reduce((s, r) => s + r.rps, 0), p99: Math.max(...results.map((r) => r.p99)) };
}

async function main() {
  log(
    `API scale-out read benchmark: nproc ${os.cpus().length}, node ${process.version}, load ${load()}; ` +
      `${EVENTS.toLocaleString()} events, ${ROWS.toLocaleString()} holdings rows; ${CONNECTIONS} connections in all, ` +
      `${SECONDS} s per measurement, ${ROUNDS} rounds`,
  );
  const database = await createPgDatabase();
  const db = await createPostgresDb(database.url, 4);
  const root = mkdtempSync(path.join(os.tmpdir(), "sluice-api-scale-"));
  const apis: ServiceProcess[] = [];
  try {
    const started = Date.now();
    const maxHeight = await loadReadHistory(db, EVENTS, ROWS);
    log(`history loaded in ${((Date.now() - started) / 1000).toFixed(1)} s (top height ${maxHeight})`);
    for (const name of ["api-1", "api-2", "api-3"]) {
      apis.push(
        await startServiceProcess(
          { DATABASE_URL: database.url, ROLE: "api", DATA_DIR: path.join(root, name), LOG_LEVEL: "info" },
          120_000,
        ),
      );
    }
    const list: Case[] = cases(maxHeight).filter((c) => ONLY.test(c.name));
    log("");
    log("case                                          | N |   req/s | p99 ms | ÷ N=1 | load (1, 5, 15 min)");
    log("----------------------------------------------|---|---------|--------|-------|--------------------");
    const summary: string[] = [];
    for (const c of list) {
      await preparePaths(apis[0].apiUrl, c, root);
      const best = new Map<number, Result>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const n of round % 2 === 0 ? SIZES : [...SIZES].reverse()) {
          const r = await drive(apis, n);
          const prev = best.get(n);
          if (!prev || r.rps > prev.rps) best.set(n, r);
        }
      }
      const base = best.get(1)?.rps ?? 0;
      for (const n of SIZES) {
        const r = best.get(n) as Result;
        log(
          `${c.name.padEnd(46)}| ${n} | ${r.rps.toFixed(0).padStart(7)} | ${String(r.p99).padStart(6)} | ${(r.rps / base).toFixed(2).padStart(5)} | ${load()}`,
        );
      }
      summary.push(
        `${c.name}: N=2 ${((best.get(2) as Result).rps / base).toFixed(2)}×, N=3 ${((best.get(3) as Result).rps / base).toFixed(2)}× of N=1`,
      );
    }
    log("");
    log(`scaling (best of ${ROUNDS} rounds; nproc ${os.cpus().length}, load ${load()}):`);
    for (const line of summary) log(`  ${line}`);
  } finally {
    for (const a of apis) a.child.kill("SIGTERM");
    await Promise.all(apis.map((a) => a.exited));
    await db.close();
    await database.drop();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
