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
 * The history is loaded straight into chain.events / chain.blocks with `generate_series` (one
 * INSERT … SELECT per 500,000 events, indexes dropped during the load and rebuilt after): a read
 * benchmark needs the rows and their distribution, not the ingest path, which test/bench/ingest.ts
 * measures. Shape: 50 events per block; event types cycle through all 11; 1,000 senders and
 * 1,000 recipients spread evenly; payloads of ~150 bytes like the stx/ft ones. Not a test.
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { compileListPage } from "../../runtime/api/events/sql.js";
import { parseStreamEventsQuery } from "../../runtime/api/events/query.js";
import { EVENT_TYPES } from "../../runtime/chain/types.js";
import { parseConfig } from "../../runtime/config/index.js";
import { migrate } from "../../runtime/db/migrate.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import { silentLogger } from "../../runtime/internal/logger.js";
import { startService } from "../../runtime/service.js";
import { createPgDatabase } from "../support/db.js";
import { autocannon } from "./autocannon.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CACHE_MODES =
  (process.env.BENCH_CACHE ?? "both") === "both" ? ["on", "off"] : [process.env.BENCH_CACHE as string];
const PER_BLOCK = 50;
const SENDERS = 1000;
const LOAD_CHUNK = 500_000;

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Loads `EVENTS` rows; returns the top height. */
async function load(client: pg.Client): Promise<number> {
  const blocks = Math.ceil(EVENTS / PER_BLOCK);
  const maxHeight = blocks - 1;
  const { rows: indexes } = await client.query<{ indexname: string; indexdef: string }>(
    "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'chain' AND tablename = 'events' AND indexname NOT LIKE '%_pkey'",
  );
  for (const ix of indexes) await client.query(`DROP INDEX chain.${ix.indexname}`);
  let t = performance.now();
  await client.query(
    `INSERT INTO chain.blocks (index_block_hash, block_hash, block_height, parent_index_block_hash, parent_block_hash,
       burn_block_hash, burn_block_height, burn_block_time, block_time, tx_count, event_count, canonical)
     SELECT '0x' || lpad(to_hex(h), 64, '0'), '0x' || lpad(to_hex(h), 62, '0') || 'bb',
            h, '0x' || lpad(to_hex(h - 1), 64, '0'), '0x' || lpad(to_hex(h - 1), 62, '0') || 'bb',
            '0x' || lpad(to_hex(h), 62, '0') || 'cc', 1000 + h, 1700000000 + h * 5, 1700000000 + h * 5,
            10, $2, true
       FROM generate_series(0, $1::integer) h`,
    [maxHeight, PER_BLOCK],
  );
  const types = [...EVENT_TYPES];
  for (let from = 0; from < EVENTS; from += LOAD_CHUNK) {
    const to = Math.min(EVENTS, from + LOAD_CHUNK) - 1;
    await client.query(
      `INSERT INTO chain.events (index_block_hash, event_index, block_height, canonical, tx_id, tx_index,
         node_event_index, committed, event_type, contract_id, asset_identifier, sender, recipient, amount, topic, payload)
       SELECT '0x' || lpad(to_hex(h), 64, '0'), ei, h, true,
              '0x' || md5(h || ':' || (ei / 5)) || md5((ei / 5) || ':' || h), ei / 5, ei % 5, true,
              ty,
              CASE WHEN ty LIKE 'ft_%' OR ty LIKE 'nft_%' OR ty = 'print' THEN 'SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.token-' || (i % 7) END,
              CASE WHEN ty LIKE 'stx_%' THEN 'STX' WHEN ty LIKE 'ft_%' OR ty LIKE 'nft_%'
                   THEN 'SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.token-' || (i % 7) || '::t' END,
              'SP' || lpad(((i * 7919) % $3)::text, 38, '0'),
              'SM' || lpad(((i * 104729) % $3)::text, 38, '0'),
              (i % 100000) * 1000, CASE WHEN ty = 'print' THEN 'print' END,
              jsonb_build_object('sender', 'SP' || lpad(((i * 7919) % $3)::text, 38, '0'),
                                 'recipient', 'SM' || lpad(((i * 104729) % $3)::text, 38, '0'),
                                 'amount', ((i % 100000) * 1000)::text, 'memo', '')
         FROM generate_series($1::bigint, $2::bigint) i,
              LATERAL (SELECT (i / ${PER_BLOCK})::integer AS h, (i % ${PER_BLOCK})::integer AS ei,
                              ($4::text[])[1 + (i % 11)] AS ty) x`,
      [from, to, SENDERS, types],
    );
    log(`  loaded ${(to + 1).toLocaleString()} events (${((performance.now() - t) / 1000).toFixed(0)} s)`);
  }
  await client.query(
    `UPDATE control.chain_tip SET index_block_hash = '0x' || lpad(to_hex($1::integer), 64, '0'), block_height = $1,
       burn_block_height = 1000 + $1, finalized_height = $1 - 10, blocks_ingested = $1 + 1, canonical_events = $2`,
    [maxHeight, EVENTS],
  );
  t = performance.now();
  for (const ix of indexes) await client.query(ix.indexdef);
  await client.query("VACUUM ANALYZE chain.events");
  await client.query("VACUUM ANALYZE chain.blocks");
  // Write the load's dirty pages now, not spread over the measurements by the checkpointer.
  await client.query("CHECKPOINT");
  log(`  indexes rebuilt and analyzed in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  return maxHeight;
}

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
    const maxHeight = await load(client);
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
