/**
 * The chain tables a partition bundle carries, and the SQL that reads and writes them in bulk
 * (docs/archive-format.md). The archive's own access path to the chain tables: COPY out of a
 * height range for publish and verify, delete-then-COPY in for a restore. Rows are the canonical
 * ones of the range; columns that depend on the receiving instance (`received_seq`,
 * `received_at`) are left out, so the same chain gives the same bytes on any instance.
 */
import { eventPayloadSql } from "../chain/event-columns-sql.js";
import type { Db, Queryable } from "../db/types.js";

export interface ChainTable {
  /** Section name in a bundle. */
  name: "chain.blocks" | "chain.transactions" | "chain.events" | "chain.burn_blocks";
  columns: readonly string[];
}

export const CHAIN_TABLES: readonly ChainTable[] = [
  {
    name: "chain.burn_blocks",
    columns: ["burn_block_hash", "burn_block_height", "burn_amount", "reward_recipients", "reward_slot_holders"],
  },
  {
    name: "chain.blocks",
    columns: [
      "index_block_hash",
      "block_hash",
      "block_height",
      "parent_index_block_hash",
      "parent_block_hash",
      "burn_block_hash",
      "burn_block_height",
      "burn_block_time",
      "block_time",
      "miner_txid",
      "tx_count",
      "event_count",
      "canonical",
      "matured_miner_rewards",
    ],
  },
  {
    name: "chain.transactions",
    columns: [
      "index_block_hash",
      "tx_index",
      "tx_id",
      "block_height",
      "canonical",
      "tx_type",
      "status",
      "sender",
      "sponsor",
      "nonce",
      "fee",
      "contract_id",
      "function_name",
      "function_args",
      "recipient",
      "amount",
      "memo",
      "raw_result",
      "result",
      "raw_tx",
      "burnchain_op",
      "microblock_sequence",
      "microblock_hash",
      "contract_interface",
      "vm_error",
      "burnchain_op_details",
    ],
  },
  {
    name: "chain.events",
    columns: [
      "index_block_hash",
      "event_index",
      "block_height",
      "canonical",
      "tx_id",
      "tx_index",
      "node_event_index",
      "committed",
      "event_type",
      "contract_id",
      "asset_identifier",
      "sender",
      "recipient",
      "amount",
      "topic",
      "payload",
    ],
  },
];

/** A partition's rows: canonical Stacks heights first..last and the burn blocks (burnAfter, burnTo]. */
export interface PartitionRange {
  firstHeight: number;
  lastHeight: number;
  /** Highest burn height of the canonical blocks below firstHeight (-1 when none): exclusive. */
  burnAfter: number;
  /** Highest burn height of the canonical blocks up to lastHeight: inclusive. */
  burnTo: number;
}

const int = (n: number) => {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
};

/** COPY text of one table's rows of a partition, ordered so the bytes are deterministic. */
export function exportSql(table: ChainTable, r: PartitionRange): string {
  const cols = table.columns.join(", ");
  const heights = `canonical AND block_height BETWEEN ${int(r.firstHeight)} AND ${int(r.lastHeight)}`;
  switch (table.name) {
    case "chain.burn_blocks":
      return `COPY (SELECT ${cols} FROM chain.burn_blocks WHERE burn_block_height > ${int(r.burnAfter)} AND burn_block_height <= ${int(r.burnTo)} ORDER BY burn_block_height, burn_block_hash) TO STDOUT`;
    case "chain.blocks":
      return `COPY (SELECT ${cols} FROM chain.blocks WHERE ${heights} ORDER BY block_height) TO STDOUT`;
    case "chain.transactions":
      return `COPY (SELECT ${cols} FROM chain.transactions WHERE ${heights} ORDER BY block_height, tx_index) TO STDOUT`;
    case "chain.events": {
      // Bundles carry the full payload, whichever form the row stores (migration 0016).
      const eventCols = table.columns
        .map((c) => (c === "payload" ? `${eventPayloadSql("")} AS payload` : c))
        .join(", ");
      return `COPY (SELECT ${eventCols} FROM chain.events WHERE ${heights} ORDER BY block_height, event_index) TO STDOUT`;
    }
  }
}

/** Rows per COPY when a driver returns a COPY's output whole (exportSlices). */
const SLICE_ROWS = 20_000;

/**
 * The partition cut into height ranges of about `sliceRows` rows of `table` each (by the blocks'
 * own tx and event counts), in order: the COPYs of the slices, concatenated, are the COPY of the
 * whole range. Only transactions and events are cut; the other tables hold a row or so per height.
 */
export async function exportSlices(
  q: Queryable,
  table: ChainTable,
  r: PartitionRange,
  sliceRows = SLICE_ROWS,
): Promise<PartitionRange[]> {
  const count = table.name === "chain.transactions" ? "tx_count" : table.name === "chain.events" ? "event_count" : null;
  if (count === null) return [r];
  const { rows } = await q.query<{ h: number; n: number }>(
    `SELECT block_height AS h, ${count} AS n FROM chain.blocks
      WHERE canonical AND block_height BETWEEN $1 AND $2 ORDER BY block_height`,
    [r.firstHeight, r.lastHeight],
  );
  const slices: PartitionRange[] = [];
  let from = r.firstHeight;
  let held = 0;
  for (const row of rows) {
    held += Number(row.n);
    if (held >= sliceRows && Number(row.h) < r.lastHeight) {
      slices.push({ ...r, firstHeight: from, lastHeight: Number(row.h) });
      from = Number(row.h) + 1;
      held = 0;
    }
  }
  slices.push({ ...r, firstHeight: from, lastHeight: r.lastHeight });
  return slices;
}

export function importSql(table: ChainTable, columns: readonly string[] = table.columns): string {
  return `COPY ${table.name} (${columns.join(", ")}) FROM STDIN`;
}

export interface CanonicalBlockRef {
  height: number;
  indexBlockHash: string;
  parentIndexBlockHash: string;
  burnBlockHeight: number;
}

/** Canonical blocks with heights in [from, to], lowest first (just what partition planning needs). */
export async function readCanonicalRefs(q: Queryable, from: number, to: number): Promise<CanonicalBlockRef[]> {
  const { rows } = await q.query<{ h: number; hash: string; parent: string; burn: number }>(
    `SELECT block_height AS h, index_block_hash AS hash, parent_index_block_hash AS parent, burn_block_height AS burn
       FROM chain.blocks WHERE canonical AND block_height BETWEEN $1 AND $2 ORDER BY block_height`,
    [from, to],
  );
  return rows.map((r) => ({
    height: Number(r.h),
    indexBlockHash: r.hash,
    parentIndexBlockHash: r.parent,
    burnBlockHeight: Number(r.burn),
  }));
}

/**
 * First and last canonical block of [from, to] and the burn range the partition covers; null when
 * none. Burn heights are taken as running maxima (the highest burn height of any canonical block
 * below, and up to the end of, the partition): Stacks heights do not always come with rising burn
 * heights (mainnet's first blocks do not), and the partitions' burn ranges must neither overlap
 * nor leave gaps.
 */
export async function readPartitionBounds(
  q: Queryable,
  from: number,
  to: number,
): Promise<{ first: CanonicalBlockRef; last: CanonicalBlockRef; range: PartitionRange } | null> {
  const { rows } = await q.query<{
    h: number;
    hash: string;
    parent: string;
    burn: number;
    below: number | null;
    top: number;
  }>(
    `WITH r AS (
       (SELECT block_height, index_block_hash, parent_index_block_hash, burn_block_height FROM chain.blocks
         WHERE canonical AND block_height BETWEEN $1 AND $2 ORDER BY block_height LIMIT 1)
       UNION ALL
       (SELECT block_height, index_block_hash, parent_index_block_hash, burn_block_height FROM chain.blocks
         WHERE canonical AND block_height BETWEEN $1 AND $2 ORDER BY block_height DESC LIMIT 1))
     SELECT block_height AS h, index_block_hash AS hash, parent_index_block_hash AS parent, burn_block_height AS burn,
            (SELECT max(burn_block_height) FROM chain.blocks WHERE canonical AND block_height < $1) AS below,
            (SELECT max(burn_block_height) FROM chain.blocks WHERE canonical AND block_height BETWEEN $1 AND $2) AS top
       FROM r ORDER BY block_height`,
    [from, to],
  );
  if (rows.length === 0) return null;
  const ref = (r: (typeof rows)[number]): CanonicalBlockRef => ({
    height: Number(r.h),
    indexBlockHash: r.hash,
    parentIndexBlockHash: r.parent,
    burnBlockHeight: Number(r.burn),
  });
  const first = ref(rows[0]);
  const last = ref(rows[rows.length - 1]);
  const below = rows[0].below === null ? -1 : Number(rows[0].below);
  const burnTo = Math.max(below, Number(rows[0].top));
  return { first, last, range: { firstHeight: from, lastHeight: to, burnAfter: below, burnTo } };
}

/**
 * Removes what a partition replaces: the canonical blocks of its heights, any stored block the
 * bundle carries (by hash, whatever its flag), their transactions and events (deleteBlockRows),
 * and the burn blocks of its burn range (deleteBurnBlockRows). Run in the load's transaction,
 * each before the COPYs of its tables.
 */
export async function deleteBlockRows(q: Queryable, r: PartitionRange, bundleBlockHashes: string[]): Promise<void> {
  const doomed = `SELECT index_block_hash FROM chain.blocks
     WHERE (canonical AND block_height BETWEEN $1 AND $2) OR index_block_hash = ANY($3::text[])`;
  const params = [r.firstHeight, r.lastHeight, bundleBlockHashes];
  await q.query(`DELETE FROM chain.events WHERE index_block_hash IN (${doomed})`, params);
  await q.query(`DELETE FROM chain.transactions WHERE index_block_hash IN (${doomed})`, params);
  await q.query(
    `DELETE FROM chain.blocks WHERE (canonical AND block_height BETWEEN $1 AND $2) OR index_block_hash = ANY($3::text[])`,
    params,
  );
}

export async function deleteBurnBlockRows(q: Queryable, r: PartitionRange): Promise<void> {
  await q.query("DELETE FROM chain.burn_blocks WHERE burn_block_height > $1 AND burn_block_height <= $2", [
    r.burnAfter,
    r.burnTo,
  ]);
}

/** Whether the instance stores any block at all (bootstrap wants an empty chain). */
export async function chainIsEmpty(q: Queryable): Promise<boolean> {
  const { rows } = await q.query("SELECT 1 FROM chain.blocks LIMIT 1");
  return rows.length === 0;
}

/**
 * Secondary indexes of the chain tables (not those backing a primary key): dropped before a bulk
 * load into empty tables and built once after it, which is much faster than maintaining them row
 * by row. Their definitions are returned so they can be kept until rebuilt (a restart resumes).
 */
export async function readSecondaryIndexes(q: Queryable): Promise<{ name: string; definition: string }[]> {
  const { rows } = await q.query<{ name: string; definition: string }>(
    `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
      WHERE i.schemaname = 'chain' AND i.tablename IN ('blocks', 'transactions', 'events', 'burn_blocks', 'address_activity')
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c JOIN pg_class ic ON ic.oid = c.conindid
                         JOIN pg_namespace n ON n.oid = ic.relnamespace
                        WHERE n.nspname = 'chain' AND ic.relname = i.indexname)
      ORDER BY i.indexname`,
  );
  return rows;
}

export async function dropIndexes(q: Queryable, names: readonly string[]): Promise<void> {
  for (const name of names) await q.exec(`DROP INDEX IF EXISTS chain."${name.replaceAll('"', '""')}"`);
}

/** Lowest and highest stored canonical heights; null on an empty chain. */
export async function canonicalHeights(q: Queryable): Promise<{ min: number; max: number } | null> {
  const { rows } = await q.query<{ lo: number | null; hi: number | null }>(
    "SELECT min(block_height) AS lo, max(block_height) AS hi FROM chain.blocks WHERE canonical",
  );
  return rows[0]?.lo === null || rows[0]?.lo === undefined
    ? null
    : { min: Number(rows[0].lo), max: Number(rows[0].hi) };
}

/**
 * Builds the missing indexes, each in its own transaction (a restart builds only what is still
 * missing), and gathers statistics. On PostgreSQL two connections take the statements one at a
 * time from one queue — the statistics first (the longest), then the indexes of the largest
 * tables first — so both cores stay busy to the end (two index builds on one table share it).
 */
export async function buildIndexes(db: Db, indexes: readonly { name: string; definition: string }[]): Promise<number> {
  const { rows } = await db.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE schemaname = 'chain'");
  const present = new Set(rows.map((r) => r.indexname));
  const missing = indexes.filter((ix) => !present.has(ix.name));
  const { rows: sizes } = await db.query<{ name: string; bytes: string }>(
    `SELECT 'chain.' || relname AS name, pg_relation_size(oid)::text AS bytes FROM pg_class
      WHERE relnamespace = 'chain'::regnamespace AND relkind = 'r'`,
  );
  const size = new Map(sizes.map((r) => [r.name, Number(r.bytes)]));
  const tableOf = (definition: string) => / ON (chain\.\w+) /.exec(definition)?.[1] ?? "";
  const byIndex = [...missing].sort(
    (x, y) => (size.get(tableOf(y.definition)) ?? 0) - (size.get(tableOf(x.definition)) ?? 0),
  );
  const analyzed = ["chain.events", "chain.transactions", "chain.blocks", "chain.burn_blocks"];
  const queue: (() => Promise<void>)[] = [
    ...analyzed.map((table) => async () => db.exec(await analyzeSql(db, table))),
    ...byIndex.map(
      (ix) => () =>
        db.transaction(async (q) => {
          if (db.kind === "postgres") await q.query("SET LOCAL maintenance_work_mem = '512MB'");
          await q.exec(ix.definition);
        }),
    ),
  ];
  const lane = async () => {
    for (let task = queue.shift(); task; task = queue.shift()) await task();
  };
  await Promise.all(Array.from({ length: db.kind === "postgres" ? 2 : 1 }, lane));
  return missing.length;
}

/**
 * ANALYZE of a chain table's columns but its bulky ones: JSON documents and the raw hex of
 * transactions and results (`raw_…`), which no query filters or joins on, and whose sampled values
 * must be decompressed and compared — measured, a transactions ANALYZE took about twice as long
 * with them.
 */
async function analyzeSql(q: Queryable, table: string): Promise<string> {
  const [schema, name] = table.split(".");
  const { rows } = await q.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = $1 AND table_name = $2 AND data_type NOT IN ('jsonb', 'json') AND column_name NOT LIKE 'raw\\_%'
      ORDER BY ordinal_position`,
    [schema, name],
  );
  return `ANALYZE ${table} (${rows.map((r) => `"${r.column_name.replaceAll('"', '""')}"`).join(", ")})`;
}
