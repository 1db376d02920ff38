/**
 * Subgraph read API benchmark: a holdings table of
 * BENCH_ROWS rows (default 1,000,000) on PostgreSQL and on PGlite, measured over HTTP with
 * autocannon (10 connections, in a worker thread): list `_limit=50` with one indexed filter, the
 * same list on a deep page (a cursor 100 rows before the end), a `_sort` first page vs. deep
 * page, count with the filter, aggregate `_sum` with the filter. Then SSE: SSE_CLIENTS (default
 * 5,000) concurrent streams on the one service process, opened by a child process on loopback;
 * each round commits one new row (a hand-made block: insert + tip + NOTIFY, as ingest does) and
 * measures commit → receipt at every client. Not a test; prints figures.
 *
 *   npx tsx test/bench/subgraph-read.ts
 *   BENCH_DB=postgres|pglite|both BENCH_ROWS=1000000 BENCH_SECONDS=10 SSE_CLIENTS=5000 SSE_ROUNDS=5 SSE_DB=postgres|pglite|both
 *   BENCH_ONLY=<regex>: only the HTTP cases whose name matches (e.g. BENCH_ONLY=holder)
 *   BENCH_CACHE=on|off|both (default both): the list page cache on (the default service) or off (PAGE_CACHE_MB=0)
 *
 * The rows are loaded straight into sg_asset_holdings.holdings with one `generate_series` INSERT
 * per 250,000 rows, the table's secondary indexes dropped during the load and rebuilt after from
 * the generated migration (then VACUUM ANALYZE): a read benchmark needs the rows and their
 * distribution, not the indexing path. Shape: 50 assets (asset 0 = STX, kind stx; the others ft),
 * BENCH_ROWS / 50 holders each holding every asset, 20 rows per block height, amounts up to ~10^12.
 * So `holder=<one holder>` selects 50 rows (its `(holder, _id)` index serves the page) and
 * `asset_identifier=<one token>` 2% of the table (20,000 rows at 1M; the planner walks the
 * primary key and filters, ~2,550 index entries per page).
 */
import { execSync, fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { subgraphs } from "../../generated/index.js";
import { compileAggregate, compileCount, compileListPage } from "../../runtime/api/subgraphs/query/compile.js";
import { encodeCursor } from "../../runtime/api/subgraphs/query/cursor.js";
import { parseAggregateQuery, parseListQuery } from "../../runtime/api/subgraphs/query/parse.js";
import type { TableTarget } from "../../runtime/api/subgraphs/query/types.js";
import type { SubgraphModule } from "../../runtime/subgraphs/types.js";
import { createPgliteDb } from "../../runtime/db/pglite.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import type { Db } from "../../runtime/db/types.js";
import type { Service } from "../../runtime/service.js";
import { createPgDatabase } from "../support/db.js";
import { startTestService } from "../support/service.js";
import { autocannon } from "./autocannon.js";
import { ASSETS, TOKEN, loadHoldings } from "../support/synthetic-history.js";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const DBS = (process.env.BENCH_DB ?? "both") === "both" ? ["postgres", "pglite"] : [process.env.BENCH_DB as string];
const SSE_DBS = (process.env.SSE_DB ?? "both") === "both" ? ["postgres", "pglite"] : [process.env.SSE_DB as string];
const SSE_CLIENTS = Number(process.env.SSE_CLIENTS ?? 5000);
const SSE_ROUNDS = Number(process.env.SSE_ROUNDS ?? 5);
const CACHE_MODES =
  (process.env.BENCH_CACHE ?? "both") === "both" ? ["on", "off"] : [process.env.BENCH_CACHE as string];
const ONLY = new RegExp(process.env.BENCH_ONLY ?? "", "i"); // runs only the cases whose name matches
const HERE = path.dirname(fileURLToPath(import.meta.url));

const log = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (t: number) => ((performance.now() - t) / 1000).toFixed(1);

interface Case {
  name: string;
  path: string;
  check: (body: Record<string, unknown>) => boolean;
}

const HOLDINGS = subgraphs.find((m) => m.name === "asset-holdings") as SubgraphModule;
const TARGET: TableTarget = { subgraph: "asset-holdings", schema: HOLDINGS.schema, meta: HOLDINGS.tables.holdings };

/** BENCH_EXPLAIN=1: the plan and timing of a case's statement, compiled as the handler compiles it. */
async function explain(db: Db, c: Case): Promise<void> {
  const u = new URL(`http://x${c.path}`);
  const query = Object.fromEntries(u.searchParams);
  const route = u.pathname.split("/").at(-1);
  const sql =
    route === "count"
      ? compileCount(TARGET, parseListQuery(query, TARGET))
      : route === "aggregate"
        ? compileAggregate(TARGET, parseAggregateQuery(query, TARGET)).query
        : compileListPage(TARGET, parseListQuery(query, TARGET))[0];
  const { rows } = await db.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql.sql}`, sql.params);
  for (const r of rows)
    if (/Scan|Execution|Sort|Aggregate|Limit/.test(r["QUERY PLAN"])) log(`      ${r["QUERY PLAN"].trim()}`);
}

async function httpCases(service: Service, db: Db): Promise<void> {
  const H = "/v1/subgraphs/asset-holdings/holdings";
  const token = TOKEN(7);
  const filter = `asset_identifier=${encodeURIComponent(token)}`;
  const { rows: tail } = await db.query<{ id: string }>(
    `SELECT "_id" AS id FROM sg_asset_holdings.holdings WHERE asset_identifier = $1 ORDER BY "_id" DESC OFFSET 100 LIMIT 1`,
    [token],
  );
  const deep = encodeCursor({ table: "asset-holdings/holdings", sort: "_id", order: "asc" }, { id: tail[0].id });
  const { rows: sortTail } = await db.query<{ id: string; holder: string }>(
    `SELECT "_id" AS id, holder FROM sg_asset_holdings.holdings ORDER BY holder DESC, "_id" DESC OFFSET 100 LIMIT 1`,
  );
  const deepSorted = encodeCursor(
    { table: "asset-holdings/holdings", sort: "holder", order: "asc" },
    { id: sortTail[0].id, sortValue: sortTail[0].holder },
  );
  const rows50 = (b: Record<string, unknown>) => (b.rows as unknown[]).length === 50;
  const holder = `SP${Math.floor(ROWS / 2 / ASSETS)
    .toString(16)
    .toUpperCase()
    .padStart(38, "0")}`;
  const cases: Case[] = [
    { name: "GET /health (the HTTP stack, no database)", path: "/health", check: (b) => b.status === "ok" },
    { name: "list _limit=50, holder=… (50 rows)", path: `${H}?_limit=50&holder=${holder}`, check: rows50 },
    { name: "list _limit=50, asset_identifier=… (2%)", path: `${H}?_limit=50&${filter}`, check: rows50 },
    { name: "  same, deep page (cursor 100 from end)", path: `${H}?_limit=50&${filter}&cursor=${deep}`, check: rows50 },
    { name: "list _limit=50, _sort=holder", path: `${H}?_limit=50&_sort=holder`, check: rows50 },
    {
      name: "  same, deep page (cursor 100 from end)",
      path: `${H}?_limit=50&_sort=holder&cursor=${deepSorted}`,
      check: rows50,
    },
    {
      name: "count, asset_identifier=…",
      path: `${H}/count?${filter}`,
      check: (b) => b.count === Math.floor(ROWS / ASSETS),
    },
    {
      name: "aggregate _sum=amount, asset_identifier=…",
      path: `${H}/aggregate?_sum=amount&${filter}`,
      check: (b) => typeof (b.sum as Record<string, string>)?.amount === "string",
    },
    {
      name: "aggregate _sum=amount (whole table)",
      path: `${H}/aggregate?_sum=amount`,
      check: (b) => typeof (b.sum as Record<string, string>)?.amount === "string",
    },
  ];
  log("");
  log("case                                       | p50 ms | p99 ms |   req/s | load");
  log("-------------------------------------------|--------|--------|---------|-----");
  for (const c of cases.filter((x) => ONLY.test(x.name))) {
    const url = `${service.apiUrl}${c.path}`;
    if (process.env.BENCH_EXPLAIN) await explain(db, c);
    const res = await fetch(url);
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200 || !c.check(body))
      throw new Error(`${c.name}: unexpected answer ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    await autocannon({ url, connections: 10, duration: 2, workers: 1 }); // warm-up
    const r = await autocannon({ url, connections: 10, duration: SECONDS, workers: 1 });
    if (r.non2xx || r.errors) throw new Error(`${c.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    log(
      `${c.name.padEnd(43)}| ${String(r.latency.p50).padStart(6)} | ${String(r.latency.p99).padStart(6)} | ${r.requests.average.toFixed(0).padStart(7)} | ${os.loadavg()[0].toFixed(1)}`,
    );
  }
}

function fdLimit(): number {
  try {
    return Number(execSync("ulimit -n", { shell: "/bin/bash" }).toString().trim());
  } catch {
    return 1024;
  }
}

async function sse(service: Service, db: Db): Promise<void> {
  const limit = fdLimit();
  // Server and clients live in two processes: each holds one socket per client plus a margin.
  const clients = Math.min(SSE_CLIENTS, limit - 200);
  if (clients < SSE_CLIENTS) log(`  fd limit ${limit}: SSE clients capped at ${clients} (raise with ulimit -n)`);
  const url = `${service.apiUrl}/v1/subgraphs/asset-holdings/holdings/stream?kind=ft`;
  const child = fork(path.join(HERE, "subgraph-sse-clients.mjs"), [], {
    env: { ...process.env, SSE_URL: url, SSE_CLIENTS: String(clients) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve) =>
      child.once("message", (m) => resolve(m as Record<string, unknown>)),
    );
  try {
    let t = performance.now();
    const ready = await next();
    log(`  ${ready.connected} streams open (${ready.failed} failed) in ${seconds(t)} s`);
    await new Promise((r) => setTimeout(r, 1000));
    const all: number[] = [];
    let missing = 0;
    for (let round = 0; round < SSE_ROUNDS; round++) {
      const result = next();
      const id = await db.transaction(async (q) => {
        const { rows } = await q.query<{ id: string }>(
          `INSERT INTO sg_asset_holdings.holdings (_block_height, _tx_id, kind, amount, holder, asset_identifier)
           VALUES ((SELECT block_height + 1 FROM control.chain_tip), '0xbench', 'ft', 1, $1, 'BENCH') RETURNING "_id" AS id`,
          [`SPBENCH${round}`],
        );
        await q.query("UPDATE control.chain_tip SET block_height = block_height + 1");
        await q.query(`SELECT pg_notify('sluice_chain', '{"type":"block"}')`);
        return rows[0].id;
      });
      const t0 = performance.timeOrigin + performance.now();
      t = performance.now();
      child.send({ type: "round", id, t0 });
      const r = await result;
      const lat = (r.latencies as number[]).sort((a, b) => a - b);
      all.push(...lat);
      missing += r.missing as number;
      const p = (q: number) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))]?.toFixed(0) ?? "-";
      log(
        `  round ${round + 1}: ${lat.length} received, ${r.missing} missing; commit → receipt p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, max ${p(1)} ms`,
      );
      await new Promise((r) => setTimeout(r, 500));
    }
    all.sort((a, b) => a - b);
    const within = all.filter((x) => x <= 1000).length;
    log(
      `  SSE total: ${all.length} deliveries, ${missing} missing; p50 ${all[Math.floor(all.length / 2)]?.toFixed(0)} ms, ` +
        `p99 ${all[Math.floor(all.length * 0.99)]?.toFixed(0)} ms; ${((100 * within) / Math.max(1, all.length + missing)).toFixed(1)}% within 1 s`,
    );
  } finally {
    child.send({ type: "close" });
    await new Promise((r) => child.once("exit", r));
  }
}

async function run(kind: string): Promise<void> {
  log(`\n=== ${kind}: ${ROWS.toLocaleString()} holdings rows, autocannon 10 connections × ${SECONDS} s per case`);
  let db: Db;
  let cleanup: () => Promise<void>;
  if (kind === "postgres") {
    const database = await createPgDatabase();
    db = await createPostgresDb(database.url, 10);
    cleanup = async () => {
      await db.close();
      await database.drop();
    };
  } else {
    const dir = mkdtempSync(path.join(os.tmpdir(), "sluice-bench-"));
    db = await createPgliteDb(dir);
    cleanup = async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  try {
    const service = await startTestService(db, { LOG_LEVEL: "silent" });
    try {
      const t = performance.now();
      await loadHoldings(db, ROWS);
      log(`  load total ${seconds(t)} s`);
      for (const mode of CACHE_MODES) {
        const target =
          mode === "on" ? service : await startTestService(db, { LOG_LEVEL: "silent", PAGE_CACHE_MB: "0" });
        log("");
        log(
          mode === "on"
            ? "list page cache on (the default; each case repeats one URL: after the first read, answered from memory once the one-row subgraph stamp read shows nothing changed)"
            : "list page cache off (PAGE_CACHE_MB=0: every request reads the table)",
        );
        try {
          await httpCases(target, db);
        } finally {
          if (target !== service) await target.stop();
        }
      }
      if (SSE_DBS.includes(kind) && SSE_CLIENTS > 0) {
        log("");
        log(`SSE: ${SSE_CLIENTS} clients, ${SSE_ROUNDS} rounds`);
        await sse(service, db);
      }
    } finally {
      await service.stop();
    }
  } finally {
    await cleanup();
  }
}

async function main() {
  log(`subgraph read benchmark on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), node ${process.version}`);
  for (const kind of DBS) await run(kind);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
