/**
 * Ingest failover benchmark (prints figures; not a test). PostgreSQL at SLUICE_TEST_PG_URL (default
 * the local server): two `ROLE=ingest` processes fed a simulated chain, the leader killed with
 * SIGKILL after each slice of it; per round, the time until the standby reports itself leader
 * (GET /status `ingest.leader`) and until it has applied every pending journal row. A fresh standby
 * joins for the next round. The load average is printed with the figures.
 *
 *   BENCH_ROUNDS=5 BENCH_BLOCKS=100 npx tsx test/bench/failover.ts
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { simulateChain } from "../../runtime/simulator/index.js";
import { type ServiceProcess, startServiceProcess } from "../support/cli.js";
import { createPgDatabase } from "../support/db.js";
import { postObserver, waitFor } from "../support/service.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 100);

const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  `load ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`;

interface Status {
  ingest: { leader: boolean };
  counts: { journal_pending: number };
}
const status = async (svc: ServiceProcess) => (await (await fetch(`${svc.apiUrl}/status`)).json()) as Status;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const { payloads } = simulateChain({ seed: "failover-bench", blocks: BLOCKS, eventsPerBlock: 10, forkRate: 0.1 });
  const requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
  const db = await createPgDatabase();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-failover-bench-"));
  const all: ServiceProcess[] = [];
  const start = async (n: number) => {
    const svc = await startServiceProcess(
      { DATABASE_URL: db.url, ROLE: "ingest", NETWORK: "devnet", DATA_DIR: path.join(root, String(n)) },
      120_000,
    );
    all.push(svc);
    return svc;
  };
  try {
    let leader = await start(0);
    await waitFor(async () => (await status(leader)).ingest.leader, { timeoutMs: 60_000 });
    const slice = Math.ceil(requests.length / ROUNDS);
    const leads: number[] = [];
    const caughtUp: number[] = [];
    log(`ingest failover: ${ROUNDS} rounds, ${requests.length} requests, ${os.cpus().length} cores, ${load()}`);
    for (let round = 0; round < ROUNDS; round++) {
      const standby = await start(round + 1);
      for (const r of requests.slice(round * slice, (round + 1) * slice)) {
        await postObserver(leader.observerUrl, r.path, r.body);
        await postObserver(standby.observerUrl, r.path, r.body);
      }
      leader.child.kill("SIGKILL");
      const killed = Date.now();
      await leader.exited;
      await waitFor(async () => (await status(standby)).ingest.leader, { timeoutMs: 60_000, intervalMs: 20 });
      leads.push(Date.now() - killed);
      await waitFor(async () => (await status(standby)).counts.journal_pending === 0, {
        timeoutMs: 300_000,
        intervalMs: 20,
      });
      caughtUp.push(Date.now() - killed);
      log(`  round ${round + 1}: leads after ${leads[round]} ms, journal applied after ${caughtUp[round]} ms`);
      leader = standby;
    }
    log(
      `leads after kill -9: median ${median(leads)} ms, max ${Math.max(...leads)} ms (target < 10000 ms); ` +
        `journal applied: median ${median(caughtUp)} ms, max ${Math.max(...caughtUp)} ms; ${load()}`,
    );
  } finally {
    for (const svc of all) svc.child.kill("SIGKILL");
    await Promise.all(all.map((s) => s.exited));
    await db.drop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
