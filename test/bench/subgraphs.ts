/**
 * Subgraph benchmark: a simulated chain imported by the compiled `sluice
 * import` (build first: `npm run build`), with all four built-in subgraphs and the webhook outbox
 * writers enabled as in every run of it, on PGlite (an on-disk DATA_DIR) and PostgreSQL (events/s),
 * then a reindex of asset-holdings from the stored blocks on PostgreSQL (events/s). Each import
 * runs BENCH_RUNS times on a fresh database; the median is printed with every run.
 *
 *   BENCH_BLOCKS=5000 BENCH_EVENTS=30 BENCH_DB=postgres|pglite BENCH_RUNS=3 npx tsx test/bench/subgraphs.ts
 *
 * Not a test: prints figures to compare with the targets (≥ 5,000 events/s ingest on PostgreSQL,
 * ≥ 1,500 on PGlite, ≥ 10,000 events/s asset-holdings reindex on PostgreSQL).
 */
import fs from "node:fs";
import path from "node:path";
import { parseConfig } from "../../runtime/config/index.js";
import { openDb } from "../../runtime/db/index.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import type { Db } from "../../runtime/db/types.js";
import { silentLogger } from "../../runtime/internal/logger.js";
import { writeSimulation } from "../../runtime/simulator/index.js";
import { createSubgraphEngine } from "../../runtime/subgraphs/index.js";
import { createPgDatabase } from "../support/db.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { type CliImportFigures, describeCliImport, runCliImport } from "./cli-import.js";

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 5_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 30);
const ONLY = process.env.BENCH_DB; // "pglite" | "postgres" | undefined (both)
const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const WORK = path.join(REPO_ROOT, ".tmp/bench");

const log = (line: string) => process.stdout.write(`${line}\n`);

async function simulatedTsv(): Promise<string> {
  fs.mkdirSync(WORK, { recursive: true });
  const file = path.join(WORK, `sim-subgraphs-${BLOCKS}x${EVENTS}.tsv`);
  if (!fs.existsSync(`${file}.truth.json`)) {
    log(`generating ${BLOCKS} blocks × ~${EVENTS} events with the simulator…`);
    await writeSimulation(
      { seed: "bench-subgraphs", blocks: BLOCKS, eventsPerBlock: EVENTS, forkRate: 0.01, network: "devnet" },
      file,
    );
  }
  return file;
}

/** Runs the import RUNS times, each on a fresh database from `fresh()`; keeps the last database. */
async function importRuns(
  label: string,
  file: string,
  fresh: (run: number) => Promise<Record<string, string>>,
): Promise<void> {
  const runs: CliImportFigures[] = [];
  for (let run = 0; run < RUNS; run++) {
    // The simulated chain is a devnet one: its BNS and sBTC contracts are devnet's.
    const figures = runCliImport(file, { NETWORK: "devnet", ...(await fresh(run)) });
    runs.push(figures);
    log(`${label.padEnd(28)} run ${run + 1}: ${describeCliImport(figures)}`);
  }
  if (RUNS > 1) {
    const median = [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)];
    log(`${label.padEnd(28)} median: ${describeCliImport(median)}`);
  }
}

async function rowCounts(db: Db): Promise<string> {
  const tables = [
    "sg_asset_holdings.holdings",
    "sg_bns_names.names",
    "sg_contract_deployments.contracts",
    "sg_sbtc_flows.flows",
    "sg_sbtc_flows.transfers",
  ];
  const parts: string[] = [];
  for (const t of tables)
    parts.push(`${t.split(".")[1]} ${(await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${t}`)).rows[0].n}`);
  return parts.join(", ");
}

async function reindexHoldings(db: Db) {
  const config = parseConfig({ NETWORK: "devnet", DATA_DIR: path.join(WORK, "data") });
  const engine = createSubgraphEngine({ db, config, logger: silentLogger });
  await engine.init();
  const { rows } = await db.query<{ all: string; matched: string }>(
    `SELECT count(*) AS all, count(*) FILTER (WHERE event_type IN ('ft_transfer', 'ft_mint', 'ft_burn', 'stx_transfer', 'stx_mint', 'stx_burn')) AS matched
       FROM chain.events WHERE canonical AND committed`,
  );
  const before = await db.query(
    "SELECT kind, asset_identifier, holder, amount FROM sg_asset_holdings.holdings ORDER BY 1, 2, 3",
  );
  const started = performance.now();
  await engine.reindex("asset-holdings");
  await engine.idle();
  const seconds = (performance.now() - started) / 1000;
  const after = await db.query(
    "SELECT kind, asset_identifier, holder, amount FROM sg_asset_holdings.holdings ORDER BY 1, 2, 3",
  );
  const same = JSON.stringify(before.rows) === JSON.stringify(after.rows);
  const all = Number(rows[0].all);
  const matched = Number(rows[0].matched);
  log(
    `${"PostgreSQL reindex asset-holdings".padEnd(34)} ${all} stored events (${matched} of its source types) in ${seconds.toFixed(1)} s: ` +
      `${(all / seconds).toFixed(0)} events/s (${(matched / seconds).toFixed(0)} matched events/s); rows identical to live: ${same}`,
  );
  await engine.close();
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

async function main() {
  const file = await simulatedTsv();
  log(`input ${path.relative(REPO_ROOT, file)} (${(fs.statSync(file).size / 1e6).toFixed(0)} MB)`);
  if (ONLY !== "postgres") {
    const dataDir = path.join(WORK, "pglite-subgraphs");
    await importRuns("PGlite, four subgraphs", file, async () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      return { DATA_DIR: dataDir };
    });
    const db = await openDb({ databaseUrl: null, dataDir }); // the directory layout (and lock) the CLI used
    log(`  rows: ${await rowCounts(db)}`);
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  if (ONLY !== "pglite") {
    if (!(await postgresReachable())) {
      log("PostgreSQL not reachable at 127.0.0.1:5432: skipped");
      return;
    }
    let created: Awaited<ReturnType<typeof createPgDatabase>> | undefined;
    try {
      await importRuns("PostgreSQL, four subgraphs", file, async () => {
        await created?.drop();
        created = await createPgDatabase();
        return { DATABASE_URL: created.url };
      });
      if (created === undefined) return;
      const db = await createPostgresDb(created.url, 4);
      log(`  rows: ${await rowCounts(db)}`);
      await reindexHoldings(db);
      await db.close();
    } finally {
      await created?.drop();
    }
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
