/**
 * Subgraph benchmark over several chains: each simulated chain is imported by the compiled `sluice
 * import` (build first: `npm run build`) with all four built-in subgraphs and the webhook outbox
 * writers enabled, as in every run of it, on a fresh database per import, on PGlite (an on-disk
 * DATA_DIR) and PostgreSQL. It prints per chain the events/s (process wall, start-up included), then
 * the headline: the minimum across chains and the ratio min/best. On one chain (the hot one unless
 * BENCH_AB_CHAIN says otherwise) it then runs the default batching and `--batch-size 1` alternately
 * (A, B, A, B, …) and prints both and their ratio; on PostgreSQL it reindexes asset-holdings from the
 * hot chain's stored blocks (events/s). Every figure line ends
 * with the load average (as `uptime` prints it) when it was taken.
 *
 * Knobs (environment):
 *   BENCH_BLOCKS=2000     blocks per chain (a quick run: 200)
 *   BENCH_EVENTS=30       mean events per block
 *   BENCH_SEEDS=a,b,c,d   seeds of the chains with the default mix
 *   BENCH_HOT_SHARE=0.8   share of events on the hot chain's few contracts and holders (seed "hot"; 0: no hot chain)
 *   BENCH_DB=pglite|postgres   one database only (default: both)
 *   BENCH_RUNS=1          imports per chain (the median is the chain's figure)
 *   BENCH_AB=2            default / --batch-size 1 pairs (0: none)
 *   BENCH_AB_CHAIN=hot    the chain they run on (a seed, or "hot")
 *
 *   npm run build && BENCH_BLOCKS=200 npx tsx test/bench/subgraphs.ts    # quick
 *
 * Not a test: prints figures to compare with the targets (no chain below 80% of the best; the default
 * never slower than --batch-size 1; ≥ 10,000 events/s on PostgreSQL and ≥ 4,000 on PGlite on every
 * chain; asset-holdings reindex ≥ 100,000 events/s).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseConfig } from "../../runtime/config/index.js";
import { openDb } from "../../runtime/db/index.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import type { Db } from "../../runtime/db/types.js";
import { silentLogger } from "../../runtime/internal/logger.js";
import { type SimulatorInput, writeSimulation } from "../../runtime/simulator/index.js";
import { createSubgraphEngine } from "../../runtime/subgraphs/index.js";
import { createPgDatabase } from "../support/db.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { type CliImportFigures, describeCliImport, runCliImport } from "./cli-import.js";

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 2_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 30);
const SEEDS = (process.env.BENCH_SEEDS ?? "a,b,c,d").split(",").filter(Boolean);
const HOT_SHARE = Number(process.env.BENCH_HOT_SHARE ?? 0.8);
const ONLY = process.env.BENCH_DB; // "pglite" | "postgres" | undefined (both)
const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const AB = Number(process.env.BENCH_AB ?? 2);
const AB_CHAIN = process.env.BENCH_AB_CHAIN ?? "hot";
const WORK = path.join(REPO_ROOT, ".tmp/bench");
const HOT = "hot";

const log = (line: string) => process.stdout.write(`${line}\n`);
/** The 1, 5 and 15 minute load averages, as `uptime` prints them. */
const load = () =>
  `load ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(", ")}`;
const rate = (f: CliImportFigures) => f.events / f.seconds;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

interface Chain {
  name: string;
  file: string;
}

/** The chains: one per seed with the default mix, and the hot one. Written afresh (the simulator may have changed). */
async function simulatedChains(): Promise<Chain[]> {
  fs.mkdirSync(WORK, { recursive: true });
  const specs: [string, SimulatorInput][] = SEEDS.map((seed) => [seed, { seed }]);
  if (HOT_SHARE > 0) specs.push([HOT, { seed: HOT, hotShare: HOT_SHARE }]);
  const chains: Chain[] = [];
  for (const [name, input] of specs) {
    const file = path.join(WORK, `sim-subgraphs-${name}-${BLOCKS}x${EVENTS}.tsv`);
    const { truth } = await writeSimulation(
      { blocks: BLOCKS, eventsPerBlock: EVENTS, forkRate: 0.01, network: "devnet", ...input },
      file,
    );
    log(
      `chain ${name.padEnd(4)} ${truth.newBlockCount} blocks, ${fmt(truth.eventCount)} events${input.hotShare ? ` (hot share ${input.hotShare})` : ""}, ${(fs.statSync(file).size / 1e6).toFixed(0)} MB`,
    );
    chains.push({ name, file });
  }
  return chains;
}

/** A fresh database per import, and what to do once the figures are in. */
interface Target {
  label: string;
  fresh: () => Promise<Record<string, string>>;
  after?: (chain: Chain) => Promise<void>;
  close: () => Promise<void>;
}

function median(runs: CliImportFigures[]): CliImportFigures {
  return [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)];
}

async function importRun(target: Target, chain: Chain, args: string[] = []): Promise<CliImportFigures> {
  // The simulated chains are devnet ones: their BNS and sBTC contracts are devnet's.
  return runCliImport(chain.file, { NETWORK: "devnet", ...(await target.fresh()) }, args);
}

async function benchTarget(target: Target, chains: Chain[]): Promise<void> {
  log(`\n${target.label}, four subgraphs, default batching, ${RUNS} run(s) per chain`);
  const figures = new Map<string, CliImportFigures>();
  for (const chain of chains) {
    const runs: CliImportFigures[] = [];
    for (let run = 0; run < RUNS; run++) {
      const f = await importRun(target, chain);
      runs.push(f);
      log(`  ${chain.name.padEnd(4)} run ${run + 1}: ${describeCliImport(f)}; ${load()}`);
    }
    figures.set(chain.name, median(runs));
    await target.after?.(chain);
  }
  const ranked = [...figures].sort((a, b) => rate(a[1]) - rate(b[1]));
  const [minName, min] = ranked[0];
  const [bestName, best] = ranked[ranked.length - 1];
  log(
    `  headline ${target.label}: min ${fmt(rate(min))} events/s (chain ${minName}), best ${fmt(rate(best))} (chain ${bestName}), ` +
      `min/best ${(rate(min) / rate(best)).toFixed(2)}; per chain ${ranked.map(([n, f]) => `${n} ${fmt(rate(f))}`).join(", ")}; ${load()}`,
  );

  const abChain = chains.find((c) => c.name === AB_CHAIN) ?? chains[0];
  if (AB > 0) {
    const a: number[] = [];
    const b: number[] = [];
    for (let pair = 0; pair < AB; pair++) {
      const fa = await importRun(target, abChain);
      a.push(rate(fa));
      log(`  A/B ${abChain.name} pair ${pair + 1} A default:       ${describeCliImport(fa)}; ${load()}`);
      const fb = await importRun(target, abChain, ["--batch-size", "1"]);
      b.push(rate(fb));
      log(`  A/B ${abChain.name} pair ${pair + 1} B --batch-size 1: ${describeCliImport(fb)}; ${load()}`);
    }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    log(
      `  A/B ${target.label} chain ${abChain.name}: default ${a.map(fmt).join(" / ")} events/s, --batch-size 1 ${b.map(fmt).join(" / ")}; ` +
        `default / batch-size-1 ${(mean(a) / mean(b)).toFixed(2)}; ${load()}`,
    );
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

async function reindexHoldings(db: Db, chain: Chain): Promise<void> {
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
  // Twice: right after the import, and again (a later reindex, which finds the database warm).
  for (const run of ["first after the import", "again"]) {
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
      `  PostgreSQL reindex asset-holdings (${run}), chain ${chain.name}: ${fmt(all)} stored events (${fmt(matched)} of its source types) in ${seconds.toFixed(1)} s: ` +
        `${fmt(all / seconds)} events/s (${fmt(matched / seconds)} matched events/s); rows identical to live: ${same}; ${load()}`,
    );
  }
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

function pgliteTarget(): Target {
  const dataDir = path.join(WORK, "pglite-subgraphs");
  return {
    label: "PGlite",
    fresh: async () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      return { DATA_DIR: dataDir };
    },
    after: async (chain) => {
      const db = await openDb({ databaseUrl: null, dataDir }); // the directory layout (and lock) the CLI used
      log(`  ${chain.name.padEnd(4)} rows: ${await rowCounts(db)}`);
      await db.close();
    },
    close: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

function postgresTarget(): Target {
  let created: Awaited<ReturnType<typeof createPgDatabase>> | undefined;
  return {
    label: "PostgreSQL",
    fresh: async () => {
      await created?.drop();
      created = await createPgDatabase();
      return { DATABASE_URL: created.url };
    },
    after: async (chain) => {
      if (!created) return;
      const db = await createPostgresDb(created.url, 4);
      try {
        log(`  ${chain.name.padEnd(4)} rows: ${await rowCounts(db)}`);
        if (chain.name === HOT || (HOT_SHARE <= 0 && chain.name === SEEDS[0])) await reindexHoldings(db, chain);
      } finally {
        await db.close();
      }
    },
    close: async () => {
      await created?.drop();
      created = undefined;
    },
  };
}

async function main() {
  log(`uptime: ${spawnSync("uptime", { encoding: "utf8" }).stdout.trim()}`);
  log(
    `${os.cpus().length} cores; ${BLOCKS} blocks × ~${EVENTS} events per chain; seeds ${SEEDS.join(", ")}${HOT_SHARE > 0 ? ` + ${HOT}` : ""}`,
  );
  const chains = await simulatedChains();
  const targets: Target[] = [];
  if (ONLY !== "postgres") targets.push(pgliteTarget());
  if (ONLY !== "pglite") {
    if (await postgresReachable()) targets.push(postgresTarget());
    else log("PostgreSQL not reachable at 127.0.0.1:5432: skipped");
  }
  try {
    for (const target of targets) {
      try {
        await benchTarget(target, chains);
      } finally {
        await target.close();
      }
    }
  } finally {
    for (const chain of chains) fs.rmSync(chain.file, { force: true });
    for (const chain of chains) fs.rmSync(`${chain.file}.truth.json`, { force: true });
  }
  log(`\nuptime: ${spawnSync("uptime", { encoding: "utf8" }).stdout.trim()}`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
