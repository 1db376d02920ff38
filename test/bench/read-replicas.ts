/**
 * What a read replica costs and saves (README "Read replicas"). A streaming replica is made with
 * the local server's binaries (test/support/pg-replica.ts), a synthetic chain is loaded on the
 * primary, and two API processes (in-process services, ROLE=api, page cache off so every request
 * reads) serve the same distinct Index pages: P reads the primary, A reads through the replica.
 * After a warm-up round each, rounds alternate P and A; per service it prints requests/s, the mean latency, the ratio A/P, and
 * the work left on the primary per request (its transactions and rows returned, from
 * pg_stat_database), with the 1-minute load average (the machine is shared). Not a test.
 *
 *   npx tsx test/bench/read-replicas.ts
 *   BENCH_EVENTS=200000 BENCH_SECONDS=3 BENCH_ROUNDS=4 BENCH_CONCURRENCY=4
 */
import os from "node:os";
import { migrate } from "../../runtime/db/migrate.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import type { Db } from "../../runtime/db/types.js";
import type { Service } from "../../runtime/service.js";
import { startReplicaCluster } from "../support/pg-replica.js";
import { startTestService, waitFor } from "../support/service.js";
import { loadChainEvents } from "../support/synthetic-history.js";
import { newDatabaseName, newRunId } from "../support/test-databases.mjs";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);

const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () => os.loadavg()[0].toFixed(1);

interface Tally {
  requests: number;
  ms: number;
  primaryXacts: number;
  primaryRows: number;
}

async function primaryCounters(db: Db): Promise<{ xacts: number; rows: number }> {
  const { rows } = await db.query<{ x: string; r: string }>(
    `SELECT xact_commit + xact_rollback AS x, tup_returned + tup_fetched AS r
       FROM pg_stat_database WHERE datname = current_database()`,
  );
  return { xacts: Number(rows[0].x), rows: Number(rows[0].r) };
}

/** Distinct Index pages for SECONDS with CONCURRENCY requests in flight. */
async function round(svc: Service, maxHeight: number, stats: Db): Promise<Tally> {
  await stats.query("SELECT pg_stat_clear_snapshot()");
  const before = await primaryCounters(stats);
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  let requests = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const from = Math.floor(Math.random() * maxHeight);
      const res = await fetch(`${svc.apiUrl}/v1/index/events?limit=200&from_height=${from}`);
      if (res.status !== 200) throw new Error(`answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      requests++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const ms = performance.now() - started;
  // Statistics reach pg_stat_database when a backend reports them (at most every second or so).
  await new Promise((r) => setTimeout(r, 1200));
  await stats.query("SELECT pg_stat_clear_snapshot()");
  const after = await primaryCounters(stats);
  return { requests, ms, primaryXacts: after.xacts - before.xacts, primaryRows: after.rows - before.rows };
}

const cluster = await startReplicaCluster();
if (typeof cluster === "string") {
  log(`no replica can be made here: ${cluster}`);
  process.exit(0);
}
const dbs: Db[] = [];
const services: Service[] = [];
try {
  log(`replica of ${cluster.primaryNote}; pg_basebackup ${cluster.basebackupSeconds.toFixed(1)} s`);
  const name = newDatabaseName(newRunId());
  await cluster.createDatabase(name);
  const primaryUrl = cluster.primaryUrl(name);
  const open = async (url: string) => {
    const db = await createPostgresDb(url, 4);
    dbs.push(db);
    return db;
  };
  const primary = await open(primaryUrl);
  await migrate(primary);
  const maxHeight = await loadChainEvents(primary, EVENTS);
  // Settle the tables first, so no autovacuum or analyze runs during the rounds.
  await primary.exec("VACUUM ANALYZE");
  await cluster.waitCaughtUp(300_000);
  const env = { ROLE: "api", DATABASE_URL: primaryUrl, PAGE_CACHE_MB: "0", LOG_LEVEL: "silent" };
  const P = await startTestService(await open(primaryUrl), env);
  services.push(P);
  const A = await startTestService(await open(primaryUrl), {
    ...env,
    DATABASE_READ_URL: cluster.replicaUrl(name),
  });
  services.push(A);
  await waitFor(async () => A.readReplicas?.status()[0].state === "healthy", { timeoutMs: 30_000 });
  const stats = await open(primaryUrl);
  const totals: Record<"P" | "A", Tally> = {
    P: { requests: 0, ms: 0, primaryXacts: 0, primaryRows: 0 },
    A: { requests: 0, ms: 0, primaryXacts: 0, primaryRows: 0 },
  };
  log(`${EVENTS} events to height ${maxHeight}; ${ROUNDS} rounds × ${SECONDS} s per service, ${CONCURRENCY} in flight`);
  // One round each first, not counted: both servers' caches warm.
  await round(P, maxHeight, stats);
  await round(A, maxHeight, stats);
  for (let i = 0; i < ROUNDS; i++) {
    for (const [label, svc] of [
      ["P", P],
      ["A", A],
    ] as const) {
      const t = await round(svc, maxHeight, stats);
      for (const k of Object.keys(t) as (keyof Tally)[]) totals[label][k] += t[k];
      log(
        `round ${i + 1} ${label === "P" ? "primary" : "replica"}: ${((t.requests * 1000) / t.ms).toFixed(0)} req/s, ` +
          `primary ${(t.primaryXacts / t.requests).toFixed(2)} xacts and ${(t.primaryRows / t.requests).toFixed(0)} rows per request; load ${load()}`,
      );
    }
  }
  const rate = (t: Tally) => (t.requests * 1000) / t.ms;
  const latency = (t: Tally) => (t.ms * CONCURRENCY) / t.requests;
  for (const label of ["P", "A"] as const) {
    const t = totals[label];
    log(
      `${label === "P" ? "primary only " : "with replica "}: ${rate(t).toFixed(0)} req/s, mean ${latency(t).toFixed(1)} ms, ` +
        `on the primary ${(t.primaryXacts / t.requests).toFixed(2)} xacts and ${(t.primaryRows / t.requests).toFixed(0)} rows per request`,
    );
  }
  log(
    `replica/primary: throughput ${(rate(totals.A) / rate(totals.P)).toFixed(2)}×, latency ${(latency(totals.A) / latency(totals.P)).toFixed(2)}×; ` +
      `replica reads ${JSON.stringify(A.readReplicas?.status()[0].reads)}; load ${load()}`,
  );
} finally {
  for (const s of services) await s.stop().catch(() => {});
  for (const db of dbs) await db.close().catch(() => {});
  await cluster.close();
}
