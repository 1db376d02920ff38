/**
 * Ingest benchmark (`make bench`): simulated chain traffic through the import path (chain tables
 * only; test/bench/subgraphs.ts measures the compiled `sluice import` with the built-in subgraphs)
 * into PGlite and PostgreSQL, and observer acknowledgement latency.
 * Prints blocks/s, events/s, peak RSS, database size per million events, ack p50/p99.
 *
 *   BENCH_BLOCKS=20000 BENCH_EVENTS=30 BENCH_ACK_BLOCKS=300 npx tsx test/bench/ingest.ts
 *
 * Not a test: figures to compare against the targets in the README.
 */
import fs from "node:fs";
import path from "node:path";
import { parseConfig } from "../../runtime/config/index.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import type { Db } from "../../runtime/db/types.js";
import { silentLogger } from "../../runtime/internal/logger.js";
import { startService } from "../../runtime/service.js";
import { ChainSimulator, writeSimulation } from "../../runtime/simulator/index.js";
import { createPgDatabase } from "../support/db.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { type CliImportFigures, runImportProcess } from "./cli-import.js";

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 20_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 30);
const ACK_BLOCKS = Number(process.env.BENCH_ACK_BLOCKS ?? 300);
const ONLY = process.env.BENCH_DB; // "pglite" | "postgres" | undefined (both)
/** BENCH_ACK_ONLY=1: only the observer acknowledgement latency. */
const ACK_ONLY = process.env.BENCH_ACK_ONLY === "1";
const WORK = path.join(REPO_ROOT, ".tmp/bench");
const CHAIN_ONLY = path.join(REPO_ROOT, "test/bench/import-chain-only.ts");

function log(line: string) {
  process.stdout.write(`${line}\n`);
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return total;
}

async function simulatedTsv(): Promise<{ file: string; events: number }> {
  fs.mkdirSync(WORK, { recursive: true });
  const file = path.join(WORK, `sim-${BLOCKS}x${EVENTS}.tsv`);
  if (!fs.existsSync(`${file}.truth.json`)) {
    log(`generating ${BLOCKS} blocks × ~${EVENTS} events with the simulator…`);
    await writeSimulation({ seed: "bench", blocks: BLOCKS, eventsPerBlock: EVENTS, forkRate: 0.01 }, file);
  }
  const truth = JSON.parse(fs.readFileSync(`${file}.truth.json`, "utf8"));
  return { file, events: truth.eventCount };
}

function runImport(file: string, env: Record<string, string>): CliImportFigures {
  return runImportProcess(["--import", "tsx", CHAIN_ONLY, file], env);
}

function report(label: string, f: CliImportFigures, dbBytes: number) {
  const perMillion = (dbBytes / Math.max(f.events, 1)) * 1e6;
  log(
    `${label.padEnd(10)} ${f.blocks} blocks, ${f.events} events in ${f.seconds.toFixed(1)} s (process wall, incl. start-up): ` +
      `${(f.blocks / f.seconds).toFixed(0)} blocks/s, ${(f.events / f.seconds).toFixed(0)} events/s, ` +
      `peak RSS ${f.rssMb} MB, database ${(dbBytes / 1e6).toFixed(0)} MB (${(perMillion / 1e9).toFixed(2)} GB per million events)`,
  );
}

async function postgresReachable(): Promise<boolean> {
  try {
    const c = await createPgDatabase();
    await c.drop();
    return true;
  } catch {
    return false;
  }
}

/** Time from POST to 200 for each /new_block of a 30-event simulated chain, on a running service. */
async function ackLatency(label: string, target: Db | { dataDir: string }) {
  const dataDir = "dataDir" in target ? target.dataDir : path.join(WORK, "unused");
  const config = parseConfig({ API_PORT: "0", OBSERVER_PORT: "0", NETWORK: "devnet", DATA_DIR: dataDir });
  // A service opening its own embedded database journals to a file, as `npm start` does.
  const service = await startService({ config, logger: silentLogger, db: "dataDir" in target ? undefined : target });
  const sim = new ChainSimulator(
    { seed: "ack", blocks: ACK_BLOCKS, eventsPerBlock: 30, forkRate: 0 },
    { recordTruth: false },
  );
  const samples: number[] = [];
  for (const p of sim.payloads()) {
    const body = JSON.stringify(p.body);
    const t0 = performance.now();
    const res = await fetch(service.observerUrl + p.path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    await res.arrayBuffer();
    if (p.path === "/new_block") samples.push(performance.now() - t0);
  }
  await service.idle();
  await service.stop();
  samples.sort((a, b) => a - b);
  const pct = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))].toFixed(1);
  log(
    `${label.padEnd(10)} observer ack latency over ${samples.length} blocks of ~30 events: p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${pct(1)} ms`,
  );
}

class SkipImport extends Error {}

async function main() {
  const { file } = await simulatedTsv();
  log(
    `input ${path.relative(REPO_ROOT, file)} (${(fs.statSync(file).size / 1e6).toFixed(0)} MB); import path, chain tables only`,
  );

  if (ONLY !== "postgres") {
    const dataDir = path.join(WORK, "pglite-data");
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (!ACK_ONLY) report("PGlite", runImport(file, { DATA_DIR: dataDir }), dirBytes(dataDir));
    const ackDir = path.join(WORK, "pglite-ack");
    fs.rmSync(ackDir, { recursive: true, force: true });
    await ackLatency("PGlite", { dataDir: ackDir });
  }
  if (ONLY !== "pglite") {
    if (!(await postgresReachable())) {
      log("PostgreSQL not reachable at 127.0.0.1:5432: skipped");
      return;
    }
    const created = await createPgDatabase();
    try {
      if (ACK_ONLY) throw new SkipImport();
      const figures = runImport(file, { DATABASE_URL: created.url });
      const db = await createPostgresDb(created.url, 2);
      const { rows } = await db.query<{ size: string }>("SELECT pg_database_size(current_database()) AS size");
      await db.close();
      report("PostgreSQL", figures, Number(rows[0].size));
    } catch (err) {
      if (!(err instanceof SkipImport)) throw err;
    } finally {
      await created.drop();
    }
    const ackDb = await createPgDatabase();
    try {
      const db = await createPostgresDb(ackDb.url, 10);
      await ackLatency("PostgreSQL", db);
      await db.close();
    } finally {
      await ackDb.drop();
    }
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
