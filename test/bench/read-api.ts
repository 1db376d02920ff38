/**
 * Read-API benchmark: pages of 200 events from
 * GET /v1/index/events and GET /v1/streams/events, with and without a `types` / `sender` filter,
 * at the start and at the end of a long history, on PostgreSQL. Prints, per case, the page SQL
 * alone (p50/p99 over sequential runs) and HTTP figures from autocannon (10 connections and 1
 * connection): p50/p99 latency and requests per second, and the 1-minute load average after the
 * case (the benchmark shares the machine's cores with PostgreSQL and anything else running:
 * read the figures next to it). autocannon runs in a worker thread so it
 * does not share the service's event loop (it still shares the machine's cores).
 *
 *   BENCH_EVENTS=5000000 BENCH_SECONDS=10 BENCH_CACHE=both|on|off npx tsx test/bench/read-api.ts
 *
 * BENCH_CACHE: the HTTP cases with the page cache on (the default service; every request of a
 * case asks for the same page, so after the first it is answered from memory — immutable pages
 * with no query, others after the one-row chain-stamp read), off (PAGE_CACHE_MB=0: every
 * request reads and renders the page), or both (default).
 *   (BENCH_EXPLAIN=1 also prints each case's index scans and execution time)
 *
 * The history is loaded straight into chain.events / chain.blocks (test/support/synthetic-history.ts loadChainEvents: 50
 * events per block, all 11 types, 1,000 senders and recipients). Not a test.
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { compileListPage } from "../../runtime/api/events/sql.js";
import { parseStreamEventsQuery } from "../../runtime/api/events/query.js";
import { parseConfig } from "../../runtime/config/index.js";
import { migrate } from "../../runtime/db/migrate.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import { silentLogger } from "../../runtime/internal/logger.js";
import { startService } from "../../runtime/service.js";
import { createPgDatabase } from "../support/db.js";
import { autocannon } from "./autocannon.js";
import { loadChainEvents } from "../support/synthetic-history.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CACHE_MODES =
  (process.env.BENCH_CACHE ?? "both") === "both" ? ["on", "off"] : [process.env.BENCH_CACHE as string];

const log = (line: string) => process.stdout.write(`${line}\n`);

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** The page statement alone (tip + horizon + events, as the list handlers compile it), sequentially. */
async function sqlTimes(client: pg.Client, query: Record<string, string>): Promise<[number, number]> {
  const compiled = compileListPage(parseStreamEventsQuery(query));
  const times: number[] = [];
  for (let i = 0; i < 220; i++) {
    const t = performance.now();
    const { rows } = await client.query(compiled.sql, compiled.params);
    if (rows.length !== 200) throw new Error(`expected a full page for ${JSON.stringify(query)}, got ${rows.length}`);
    if (i >= 20) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  if (process.env.BENCH_EXPLAIN) {
    const { rows } = await client.query<{ "QUERY PLAN": string }>(
      `EXPLAIN (ANALYZE, BUFFERS) ${compiled.sql}`,
      compiled.params,
    );
    for (const r of rows)
      if (/Index|Execution|Buffers: shared/.test(r["QUERY PLAN"])) log(`    ${r["QUERY PLAN"].trim()}`);
  }
  return [pct(times, 50), pct(times, 99)];
}

async function main() {
  log(`read-API benchmark: ${EVENTS.toLocaleString()} events on PostgreSQL, ${SECONDS} s per HTTP case`);
  const database = await createPgDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const db = await createPostgresDb(database.url, 2);
    await migrate(db);
    await db.close();
    const t0 = performance.now();
    const maxHeight = await loadChainEvents(client, EVENTS);
    log(`loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s; top height ${maxHeight}`);

    const sender = `SP${"0".repeat(35)}123`;
    const end = (blocksBack: number) => `${Math.max(0, maxHeight - blocksBack)}:0`;
    const cases: { name: string; route: string; query: Record<string, string> }[] = [
      { name: "index, start", route: "/v1/index/events", query: {} },
      { name: "index, end", route: "/v1/index/events", query: { cursor: end(10) } },
      { name: "streams, start", route: "/v1/streams/events", query: {} },
      { name: "streams, end", route: "/v1/streams/events", query: { cursor: end(10) } },
      { name: "types=ft_transfer, start", route: "/v1/streams/events", query: { types: "ft_transfer" } },
      {
        name: "types=ft_transfer, end",
        route: "/v1/streams/events",
        query: { types: "ft_transfer", cursor: end(100) },
      },
      {
        name: "types=ft_transfer,nft_mint, start",
        route: "/v1/streams/events",
        query: { types: "ft_transfer,nft_mint" },
      },
      {
        name: "types=ft_transfer,nft_mint, end",
        route: "/v1/streams/events",
        query: { types: "ft_transfer,nft_mint", cursor: end(60) },
      },
      { name: "sender=…, start", route: "/v1/streams/events", query: { sender } },
      { name: "sender=…, end", route: "/v1/streams/events", query: { sender, cursor: end(5000) } },
    ];

    for (const mode of CACHE_MODES) {
      const config = parseConfig({
        DATABASE_URL: database.url,
        API_PORT: "0",
        OBSERVER_PORT: "0",
        DATA_DIR: ".tmp/bench-read-api",
        LOG_LEVEL: "silent",
        ...(mode === "off" ? { PAGE_CACHE_MB: "0" } : {}),
      });
      const service = await startService({ config, logger: silentLogger });
      try {
        // The built-in subgraphs backfill from the loaded history when the service first starts:
        // measure the reads after it, as a service that has caught up serves them.
        const backfill = performance.now();
        await service.subgraphs.idle();
        const waited = (performance.now() - backfill) / 1000;
        if (waited >= 1)
          log(`\n(waited ${waited.toFixed(0)} s for the built-in subgraphs to backfill the loaded history)`);
        log("");
        log(
          `page cache ${mode}${mode === "on" ? " (each case repeats one page: answered from memory after the first read)" : " (PAGE_CACHE_MB=0)"}`,
        );
        log(
          "case                                  | SQL p50 / p99 ms | HTTP ×10 p50 / p99 ms |  req/s ×10 | HTTP ×1 p50 / p99 ms | req/s ×1 | load",
        );
        log(
          "--------------------------------------|------------------|-----------------------|------------|----------------------|----------|-----",
        );
        for (const c of cases) {
          const [s50, s99] = await sqlTimes(client, { limit: "200", ...c.query });
          const url = `${service.apiUrl}${c.route}?${new URLSearchParams({ limit: "200", ...c.query })}`;
          const check = (await (await fetch(url)).json()) as { events: unknown[] };
          if (check.events.length !== 200)
            throw new Error(`${c.name}: expected 200 events, got ${check.events.length}`);
          await autocannon({ url, connections: 10, duration: 2, workers: 1 }); // warm-up
          const ten = await autocannon({ url, connections: 10, duration: SECONDS, workers: 1 });
          const one = await autocannon({
            url,
            connections: 1,
            duration: Math.max(2, Math.round(SECONDS / 2)),
            workers: 1,
          });
          if (ten.non2xx || ten.errors || one.non2xx || one.errors) throw new Error(`${c.name}: non-2xx or errors`);
          log(
            `${c.name.padEnd(38)}| ${`${s50.toFixed(2)} / ${s99.toFixed(2)}`.padStart(16)} | ${`${ten.latency.p50} / ${ten.latency.p99}`.padStart(21)} | ${ten.requests.average.toFixed(0).padStart(10)} | ${`${one.latency.p50} / ${one.latency.p99}`.padStart(20)} | ${one.requests.average.toFixed(0).padStart(8)} | ${os.loadavg()[0].toFixed(1)}`,
          );
        }
      } finally {
        await service.stop();
      }
    }
  } finally {
    await client.end();
    await database.drop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
