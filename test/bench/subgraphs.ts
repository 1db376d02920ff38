/**
 * Subgraph benchmark (issue "Subgraphs"): a simulated chain imported through the ingest path with
 * all four built-in subgraphs enabled, on PGlite and PostgreSQL (events/s), then a reindex of
 * asset-holdings from the stored blocks on PostgreSQL (events/s). With BENCH_BASELINE=1 the same
 * import also runs without subgraphs, to show their cost.
 *
 *   BENCH_BLOCKS=5000 BENCH_EVENTS=30 BENCH_DB=postgres npx tsx test/bench/subgraphs.ts
 *
 * Not a test: prints figures to compare with the targets (≥ 5,000 events/s ingest on PostgreSQL,
 * ≥ 1,500 on PGlite, ≥ 10,000 events/s asset-holdings reindex on PostgreSQL).
 */
import fs from "node:fs";
import path from "node:path";
import { createIngestor } from "../../runtime/chain/ingest.js";
import { importReplayFile } from "../../runtime/cli/import.js";
import { parseConfig } from "../../runtime/config/index.js";
import { migrate } from "../../runtime/db/migrate.js";
import { createPgliteDb } from "../../runtime/db/pglite.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import type { Db } from "../../runtime/db/types.js";
import { silentLogger } from "../../runtime/internal/logger.js";
import { writeSimulation } from "../../runtime/simulator/index.js";
import { createSubgraphEngine } from "../../runtime/subgraphs/index.js";
import { createPgDatabase } from "../support/db.js";
import { REPO_ROOT } from "../support/fixtures.js";

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 5_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 30);
const ONLY = process.env.BENCH_DB; // "pglite" | "postgres" | undefined (both)
const BASELINE = process.env.BENCH_BASELINE === "1";
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

interface ImportFigures {
  seconds: number;
  events: number;
  blocks: number;
}

async function runImport(db: Db, file: string, subgraphs: boolean): Promise<ImportFigures> {
  await migrate(db);
  const config = parseConfig({ NETWORK: "devnet", DATA_DIR: path.join(WORK, "data") });
  const engine = subgraphs ? createSubgraphEngine({ db, config, logger: silentLogger }) : null;
  await engine?.init();
  const ingestor = createIngestor({
    db,
    logger: silentLogger,
    finalityBurnConfirmations: 6,
    hooks: engine ? [engine.hooks] : [],
  });
  const summary = await importReplayFile(file, ingestor);
  await engine?.close();
  return { seconds: summary.seconds, events: summary.events, blocks: summary.blocks };
}

function report(label: string, f: ImportFigures) {
  log(
    `${label.padEnd(34)} ${f.blocks} blocks, ${f.events} events in ${f.seconds.toFixed(1)} s: ${(f.events / f.seconds).toFixed(0)} events/s`,
  );
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
    if (BASELINE) {
      const db = await createPgliteDb(undefined);
      report("PGlite, chain only", await runImport(db, file, false));
      await db.close();
    }
    const db = await createPgliteDb(undefined);
    report("PGlite, four subgraphs", await runImport(db, file, true));
    log(`  rows: ${await rowCounts(db)}`);
    await db.close();
  }
  if (ONLY !== "pglite") {
    if (!(await postgresReachable())) {
      log("PostgreSQL not reachable at 127.0.0.1:5432: skipped");
      return;
    }
    if (BASELINE) {
      const created = await createPgDatabase();
      const db = await createPostgresDb(created.url, 4);
      report("PostgreSQL, chain only", await runImport(db, file, false));
      await db.close();
      await created.drop();
    }
    const created = await createPgDatabase();
    try {
      const db = await createPostgresDb(created.url, 4);
      report("PostgreSQL, four subgraphs", await runImport(db, file, true));
      log(`  rows: ${await rowCounts(db)}`);
      await reindexHoldings(db);
      await db.close();
    } finally {
      await created.drop();
    }
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
