/**
 * Synthetic histories for the read benchmarks and the query-plan tests, loaded straight into the tables with
 * `generate_series` (secondary indexes dropped during the load and rebuilt after, then VACUUM
 * ANALYZE and CHECKPOINT): a read benchmark needs the rows and their distribution, not the ingest
 * path, which test/bench/ingest.ts measures. Works on PostgreSQL and PGlite.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { EVENT_TYPES } from "../../runtime/chain/types.js";

/** The part of a database handle (pg.Client or Db) the loaders use. */
export interface SqlRunner {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** Progress lines of a load (benchmarks print them; tests pass a no-op). */
export type LoadLog = (line: string) => void;
const stdoutLog: LoadLog = (line) => process.stdout.write(`${line}\n`);
const seconds = (t: number) => ((performance.now() - t) / 1000).toFixed(1);

/** Chain shape: 50 events per block, types cycling through all 11, 1,000 senders and recipients. */
export const PER_BLOCK = 50;
export const SENDERS = 1000;
const EVENT_CHUNK = 500_000;

/** The sender / recipient addresses the event loader writes (`n` in 0…SENDERS-1). */
export const senderAt = (n: number) => `SP${String(n).padStart(38, "0")}`;
export const recipientAt = (n: number) => `SM${String(n).padStart(38, "0")}`;

/**
 * Loads `events` rows into chain.events / chain.blocks and sets the tip (finalized 10 blocks
 * below it); returns the top height. Payloads as ingest stores them (runtime/chain/event-payload.ts):
 * what the columns hold (sender, recipient, amount) is left out, the memo stays; a read gives
 * back ~150 bytes like the stx/ft ones.
 */
export async function loadChainEvents(db: SqlRunner, events: number, log: LoadLog = stdoutLog): Promise<number> {
  const blocks = Math.ceil(events / PER_BLOCK);
  const maxHeight = blocks - 1;
  const { rows } = await db.query(
    "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'chain' AND tablename = 'events' AND indexname NOT LIKE '%_pkey'",
  );
  const indexes = rows as { indexname: string; indexdef: string }[];
  for (const ix of indexes) await db.query(`DROP INDEX chain.${ix.indexname}`);
  let t = performance.now();
  await db.query(
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
  for (let from = 0; from < events; from += EVENT_CHUNK) {
    const to = Math.min(events, from + EVENT_CHUNK) - 1;
    await db.query(
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
              '{"memo": ""}'::jsonb
         FROM generate_series($1::bigint, $2::bigint) i,
              LATERAL (SELECT (i / ${PER_BLOCK})::integer AS h, (i % ${PER_BLOCK})::integer AS ei,
                              ($4::text[])[1 + (i % 11)] AS ty) x`,
      [from, to, SENDERS, types],
    );
    log(`  loaded ${(to + 1).toLocaleString()} events (${seconds(t)} s)`);
  }
  await db.query(
    `UPDATE control.chain_tip SET index_block_hash = '0x' || lpad(to_hex($1::integer), 64, '0'), block_height = $1,
       burn_block_height = 1000 + $1, finalized_height = $1 - 10, blocks_ingested = $1 + 1, canonical_events = $2`,
    [maxHeight, events],
  );
  t = performance.now();
  for (const ix of indexes) await db.query(ix.indexdef);
  await db.query("VACUUM ANALYZE chain.events");
  await db.query("VACUUM ANALYZE chain.blocks");
  // Write the load's dirty pages now, not spread over the measurements by the checkpointer.
  await db.query("CHECKPOINT");
  log(`  indexes rebuilt and analyzed in ${seconds(t)} s`);
  return maxHeight;
}

/** Holdings shape: 50 assets (asset 0 = STX, kind stx; the others ft), every holder holds each. */
export const ASSETS = 50;
export const TOKEN = (a: number) => (a === 0 ? "STX" : `SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.token-${a}::coin`);
/** The holder of row `g` (1-based), as the holdings loader writes it. */
export const holderAt = (n: number) => `SP${n.toString(16).toUpperCase().padStart(38, "0")}`;
const HOLDINGS_CHUNK = 250_000;

/**
 * Loads `rows` rows into sg_asset_holdings.holdings: rows / 50 holders each holding every asset,
 * 20 rows per block height, amounts up to ~10^12; the table's secondary indexes are rebuilt from
 * the generated migration.
 */
export async function loadHoldings(db: SqlRunner, rows: number, log: LoadLog = stdoutLog): Promise<void> {
  const migration = readFileSync(path.join(HERE, "../../generated/asset-holdings/migration.sql"), "utf8");
  const { rows: found } = await db.query(
    "SELECT indexname FROM pg_indexes WHERE schemaname = 'sg_asset_holdings' AND tablename = 'holdings' AND indexname NOT LIKE '%_pkey'",
  );
  for (const ix of found as { indexname: string }[]) await db.query(`DROP INDEX sg_asset_holdings."${ix.indexname}"`);
  let t = performance.now();
  for (let from = 1; from <= rows; from += HOLDINGS_CHUNK) {
    const to = Math.min(rows, from + HOLDINGS_CHUNK - 1);
    await db.query(
      `INSERT INTO sg_asset_holdings.holdings (_block_height, _tx_id, kind, amount, holder, asset_identifier)
       SELECT g / 20, '0x' || md5(g::text) || md5((g + 1)::text),
              CASE WHEN g % ${ASSETS} = 0 THEN 'stx' ELSE 'ft' END,
              ((g * 7919) % 1000000007)::numeric * 1000,
              'SP' || upper(lpad(to_hex(g / ${ASSETS}), 38, '0')),
              CASE WHEN g % ${ASSETS} = 0 THEN 'STX' ELSE 'SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.token-' || (g % ${ASSETS}) || '::coin' END
         FROM generate_series($1::bigint, $2::bigint) g`,
      [from, to],
    );
    log(`  loaded ${to.toLocaleString()} holdings rows (${seconds(t)} s)`);
  }
  t = performance.now();
  // IF NOT EXISTS: recreates exactly the dropped indexes. One statement at a time (the extended
  // protocol runs one per call).
  for (const statement of migration.split(/;\s*\n/).filter((s) => /\bINDEX\b/.test(s))) await db.query(statement);
  await db.query("VACUUM ANALYZE sg_asset_holdings.holdings");
  await db.query("CHECKPOINT");
  log(`  holdings indexes rebuilt and analyzed in ${seconds(t)} s`);
}
