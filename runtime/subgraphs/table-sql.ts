/**
 * SQL of the engine's row writes: pure builders, one statement per run
 * of row operations on one table. Identifiers come only from the subgraph's schema and pass
 * through the generator's `sqlIdent`; every value is a parameter (arrays through `unnest`, so a
 * run of any length is one statement with a fixed parameter count).
 *
 * Each write statement returns the affected rows' pre-images (`_src` 0) and results (`_src` 1)
 * from data-modifying CTEs that share one snapshot, and — when journaling — writes the undo
 * journal in the same statement: `to_jsonb` keeps NUMERIC and timestamps exact, so a revert
 * (`jsonb_populate_record`) restores rows byte for byte.
 */
import { sqlIdent } from "../../generator/naming.js";
import type { ColumnType, TableMeta } from "./types.js";

/** The table a statement writes. */
export interface TableTarget {
  subgraph: string;
  schema: string;
  meta: TableMeta;
}

const ARRAY_TYPES: Record<ColumnType, string> = {
  text: "text[]",
  principal: "text[]",
  int: "numeric[]",
  uint: "numeric[]",
  bigint: "numeric[]",
  timestamp: "timestamptz[]",
  boolean: "boolean[]",
  jsonb: "jsonb[]",
  serial: "bigint[]",
};

/** A table with its subgraph's schema hash, which tags the statements on it (prepared-statements.ts). */
export type TaggedTarget = TableTarget & { schemaHash: string };

/** The block whose pre-images are journaled (null: the block is final, nothing is journaled). */
export interface JournalTarget {
  indexBlockHash: string;
  blockHeight: number;
}

/** Statement texts by signature, owned by the engine (statements are rebuilt only when new). */
export type StatementCache = Map<string, string>;

export function qualified(target: TableTarget): string {
  return `${sqlIdent(target.schema)}.${sqlIdent(target.meta.name)}`;
}

/** Array type of a column for `unnest` parameters; the system columns have fixed types. */
export function arrayType(meta: TableMeta, column: string): string {
  if (column === "_block_height") return "bigint[]";
  if (column === "_tx_id") return "text[]";
  const col = meta.columns[column];
  if (col === undefined) throw new Error(`unknown column ${meta.name}.${column}`);
  return ARRAY_TYPES[col.type];
}

/** Journal columns are parameters $1..$4 of every journaled statement. */
/** ISO 8601 in UTC with microseconds, e.g. `2026-01-15T10:20:30.123456Z` (lossless for timestamptz). */
export function isoTimestampSql(expr: string): string {
  return `to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** The result column holding a timestamp column's ISO text (see rowSql). */
export const timestampTextColumn = (column: string) => `${column}:text`;

/**
 * `alias.*` plus each timestamp column as ISO text with microseconds: the drivers return a
 * timestamptz as a JS Date, which drops them, and row changes must render a row exactly as the
 * read API does (renderRow in op-runs.ts reads these columns).
 */
export function rowSql(meta: TableMeta, alias: string): string {
  const texts = Object.entries(meta.columns)
    .filter(([, column]) => column.type === "timestamp")
    .map(([name]) => `, ${isoTimestampSql(`${alias}.${sqlIdent(name)}`)} AS ${sqlIdent(timestampTextColumn(name))}`);
  return `${alias}.*${texts.join("")}`;
}

const JOURNAL_PARAMS = 4;
const UNDO_INSERT =
  "INSERT INTO control.subgraph_undo (index_block_hash, block_height, subgraph, table_name, row_id, op, pre_image)";

/** `unnest($k::type[], …) AS i(cols)` over `_block_height`, `_tx_id` and `columns`, from $first on. */
function unnestInput(meta: TableMeta, columns: readonly string[], first: number, ordinality = false): string {
  const all = ["_block_height", "_tx_id", ...columns];
  const arrays = all.map((c, i) => `$${first + i}::${arrayType(meta, c)}`).join(", ");
  const names = [...all, ...(ordinality ? ["_ord"] : [])].map(sqlIdent).join(", ");
  return `SELECT * FROM unnest(${arrays})${ordinality ? " WITH ORDINALITY" : ""} AS i(${names})`;
}

const list = (columns: readonly string[], prefix = "") => columns.map((c) => prefix + sqlIdent(c)).join(", ");

/**
 * Multi-row INSERT. Parameters: [journal…], _block_height[], _tx_id[], one array per column.
 * Returns the inserted rows (`_src` 1) in insertion order.
 */
export function insertSql(target: TableTarget, columns: readonly string[], journal: boolean, collect = true): string {
  const first = journal ? JOURNAL_PARAMS + 1 : 1;
  const cols = ["_block_height", "_tx_id", ...columns];
  if (!journal && !collect) {
    return `INSERT INTO ${qualified(target)} (${list(cols)}) SELECT ${list(cols)} FROM (${unnestInput(target.meta, columns, first, true)}) input ORDER BY "_ord"`;
  }
  const parts = [
    `WITH input AS (${unnestInput(target.meta, columns, first, true)})`,
    `, ins AS (INSERT INTO ${qualified(target)} (${list(cols)}) SELECT ${list(cols)} FROM input ORDER BY "_ord" RETURNING *)`,
  ];
  if (journal) parts.push(`, undo AS (${UNDO_INSERT} SELECT $1, $2, $3, $4, ins."_id", 'insert', NULL FROM ins)`);
  parts.push(
    collect
      ? `SELECT 1 AS "_src", ${rowSql(target.meta, "ins")} FROM ins ORDER BY ins."_id"`
      : `SELECT count(*) AS "_n" FROM ins`,
  );
  return parts.join("\n");
}

/**
 * Multi-row insert-or-update by a unique key: upsert (`adds` empty: every given column is
 * overwritten) or increment (`adds` columns are added to, `columns` minus key minus adds are
 * overwritten). Input rows must have distinct keys. Parameters: [journal…], _block_height[],
 * _tx_id[], one array per column of `columns` (key first).
 */
export function upsertSql(
  target: TableTarget,
  key: readonly string[],
  columns: readonly string[],
  adds: readonly string[],
  journal: boolean,
  collect = true,
): string {
  const first = journal ? JOURNAL_PARAMS + 1 : 1;
  const cols = ["_block_height", "_tx_id", ...columns];
  const keyTuple = (alias: string) => `(${list(key, `${alias}.`)})`;
  const sets = cols
    .filter((c) => !key.includes(c))
    .map((c) =>
      adds.includes(c)
        ? `${sqlIdent(c)} = COALESCE(t.${sqlIdent(c)}, 0) + EXCLUDED.${sqlIdent(c)}`
        : `${sqlIdent(c)} = EXCLUDED.${sqlIdent(c)}`,
    );
  const conflict = `ON CONFLICT (${list(key)}) DO UPDATE SET ${sets.join(", ")}`;
  if (!journal && !collect) {
    return `INSERT INTO ${qualified(target)} AS t (${list(cols)}) SELECT ${list(cols)} FROM (${unnestInput(target.meta, columns, first)}) input ${conflict}`;
  }
  const parts = [
    `WITH input AS (${unnestInput(target.meta, columns, first)})`,
    `, old AS (SELECT t.* FROM ${qualified(target)} t WHERE ${keyTuple("t")} IN (SELECT ${list(key)} FROM input))`,
    `, up AS (INSERT INTO ${qualified(target)} AS t (${list(cols)}) SELECT ${list(cols)} FROM input` +
      ` ${conflict} RETURNING t.*)`,
  ];
  if (journal) {
    parts.push(
      `, undo AS (${UNDO_INSERT} SELECT $1, $2, $3, $4, up."_id",` +
        ` CASE WHEN o."_id" IS NULL THEN 'insert' ELSE 'update' END, CASE WHEN o."_id" IS NULL THEN NULL ELSE to_jsonb(o) END` +
        ` FROM up LEFT JOIN old o ON o."_id" = up."_id")`,
    );
  }
  parts.push(
    collect
      ? `SELECT 0 AS "_src", ${rowSql(target.meta, "old")} FROM old UNION ALL SELECT 1 AS "_src", ${rowSql(target.meta, "up")} FROM up`
      : `SELECT count(*) AS "_n" FROM up`,
  );
  return parts.join("\n");
}

/** `col = $n` per non-null key value, `col IS NULL` for null ones; returns the predicate. */
function keyPredicate(
  keyColumns: readonly string[],
  nulls: readonly boolean[],
  first: number,
): { sql: string; used: number } {
  let n = first;
  const preds = keyColumns.map((c, i) => (nulls[i] ? `t.${sqlIdent(c)} IS NULL` : `t.${sqlIdent(c)} = $${n++}`));
  return { sql: preds.length ? preds.join(" AND ") : "true", used: n - first };
}

/**
 * UPDATE of every row matching a key. Parameters: [journal…], non-null key values, then the set
 * values, then _block_height and _tx_id.
 */
export function updateSql(
  target: TableTarget,
  keyColumns: readonly string[],
  nulls: readonly boolean[],
  setColumns: readonly string[],
  journal: boolean,
): string {
  const first = journal ? JOURNAL_PARAMS + 1 : 1;
  const pred = keyPredicate(keyColumns, nulls, first);
  let n = first + pred.used;
  const sets = [...setColumns, "_block_height", "_tx_id"].map((c) => `${sqlIdent(c)} = $${n++}`);
  const parts = [
    `WITH old AS (SELECT t.* FROM ${qualified(target)} t WHERE ${pred.sql})`,
    `, up AS (UPDATE ${qualified(target)} t SET ${sets.join(", ")} WHERE ${pred.sql} RETURNING t.*)`,
  ];
  if (journal)
    parts.push(`, undo AS (${UNDO_INSERT} SELECT $1, $2, $3, $4, o."_id", 'update', to_jsonb(o) FROM old o)`);
  parts.push(
    `SELECT 0 AS "_src", ${rowSql(target.meta, "old")} FROM old UNION ALL SELECT 1 AS "_src", ${rowSql(target.meta, "up")} FROM up`,
  );
  return parts.join("\n");
}

/** DELETE of every row matching a key. Parameters: [journal…], non-null key values. */
export function deleteSql(
  target: TableTarget,
  keyColumns: readonly string[],
  nulls: readonly boolean[],
  journal: boolean,
): string {
  const first = journal ? JOURNAL_PARAMS + 1 : 1;
  const pred = keyPredicate(keyColumns, nulls, first);
  const parts = [`WITH del AS (DELETE FROM ${qualified(target)} t WHERE ${pred.sql} RETURNING t.*)`];
  if (journal)
    parts.push(`, undo AS (${UNDO_INSERT} SELECT $1, $2, $3, $4, d."_id", 'delete', to_jsonb(d) FROM del d)`);
  parts.push(`SELECT 0 AS "_src", ${rowSql(target.meta, "del")} FROM del`);
  return parts.join("\n");
}

/** The first journal entry of each row of one table in one block: the row's state before the block. */
const FIRST_ENTRIES = `SELECT DISTINCT ON (row_id) row_id, op, pre_image FROM control.subgraph_undo
  WHERE index_block_hash = $1 AND subgraph = $2 AND table_name = $3 ORDER BY row_id, seq`;

/** Revert step 1: delete the rows the block created. Parameters: index_block_hash, subgraph, table. */
export function revertDeleteSql(target: TableTarget): string {
  return `WITH first AS (${FIRST_ENTRIES})
DELETE FROM ${qualified(target)} t USING first f WHERE t."_id" = f.row_id AND f.op = 'insert' RETURNING ${rowSql(target.meta, "t")}`;
}

/**
 * Revert step 2: put back the pre-image of every row the block updated or deleted (by `_id`,
 * every column). Parameters: index_block_hash, subgraph, table. Returns pre-revert rows (`_src`
 * 0) and restored rows (`_src` 1).
 */
export function revertRestoreSql(target: TableTarget, physicalColumns: readonly string[]): string {
  const sets = physicalColumns.filter((c) => c !== "_id").map((c) => `${sqlIdent(c)} = EXCLUDED.${sqlIdent(c)}`);
  const table = qualified(target);
  return `WITH first AS (${FIRST_ENTRIES})
, pre AS (SELECT r.* FROM first f, jsonb_populate_record(NULL::${table}, f.pre_image) r WHERE f.op <> 'insert')
, old AS (SELECT t.* FROM ${table} t WHERE t."_id" IN (SELECT "_id" FROM pre))
, up AS (INSERT INTO ${table} AS t SELECT * FROM pre ON CONFLICT ("_id") DO UPDATE SET ${sets.join(", ")} RETURNING t.*)
SELECT 0 AS "_src", ${rowSql(target.meta, "old")} FROM old UNION ALL SELECT 1 AS "_src", ${rowSql(target.meta, "up")} FROM up`;
}

/*
 * Statements of the once-per-transaction write path (transaction-rows.ts): read the rows a
 * transaction's operations name, reserve ids for the rows it creates, and write each touched row
 * once — new rows inserted with their reserved `_id`, changed rows overwritten by `_id`, their undo
 * entries after them — each a single statement over arrays.
 */

/**
 * The rows whose `key` columns equal one of the given (distinct) tuples: a join on the key's
 * unique index. Parameters: one array per key column.
 *
 * Each column is matched as `>= AND <=` rather than `=`: a searchable column's trigram index
 * also answers `=`, the planner prices it below the B-tree, and during a long ingest (no vacuum
 * yet) every trigram lookup scans the index's whole pending list — milliseconds per statement
 * instead of microseconds. Trigram indexes cannot answer ranges; B-trees can.
 */
export function selectByKeysSql(target: TableTarget, key: readonly string[]): string {
  const arrays = key.map((c, i) => `$${i + 1}::${arrayType(target.meta, c)}`).join(", ");
  const names = key.map((_c, i) => `k${i}`);
  const match = key
    .map((c, i) => `t.${sqlIdent(c)} >= k.${names[i]} AND t.${sqlIdent(c)} <= k.${names[i]}`)
    .join(" AND ");
  return `SELECT ${rowSql(target.meta, "t")} FROM unnest(${arrays}) AS k(${names.join(", ")})
  JOIN ${qualified(target)} t ON ${match}`;
}

/**
 * The stored rows any of several update keys match (the update statement's predicate, with the
 * B-tree range form of selectByKeysSql). `nulls`: key columns matched with IS NULL. Parameters:
 * one array per non-null key column.
 */
export function selectMatchingSql(
  target: TableTarget,
  keyColumns: readonly string[],
  nulls: readonly boolean[],
): string {
  const valued = keyColumns.filter((_c, i) => !nulls[i]);
  const preds = keyColumns.map((c, i) => {
    if (nulls[i]) return `t.${sqlIdent(c)} IS NULL`;
    const k = `k.k${valued.indexOf(c)}`;
    return `t.${sqlIdent(c)} >= ${k} AND t.${sqlIdent(c)} <= ${k}`;
  });
  if (valued.length === 0)
    return `SELECT ${rowSql(target.meta, "t")} FROM ${qualified(target)} t WHERE ${preds.join(" AND ") || "true"}`;
  const arrays = valued.map((c, i) => `$${i + 1}::${arrayType(target.meta, c)}`).join(", ");
  return `SELECT DISTINCT ON (t."_id") ${rowSql(target.meta, "t")} FROM unnest(${arrays}) AS k(${valued.map((_c, i) => `k${i}`).join(", ")})
  JOIN ${qualified(target)} t ON ${preds.join(" AND ")}`;
}

/**
 * Fresh `_id`s for one or several tables: `$2[i]` ids of the table whose qualified name is `$1[i]`,
 * each row with that name, and the transaction's `now()` as PostgreSQL prints it (a new row's
 * `_created_at`).
 */
export const RESERVE_IDS_SQL = `SELECT w.name, nextval(pg_get_serial_sequence(w.name, '_id'))::text AS id,
  ${isoTimestampSql("now()")} AS now FROM unnest($1::text[], $2::int[]) AS w(name, n), generate_series(1, w.n)`;

/** Inserts whole rows, `_id` included. Parameters: one array per physical column (declared order). */
export function insertRowsSql(target: TableTarget): string {
  const columns = Object.keys(target.meta.columns);
  const arrays = columns.map((c, i) => `$${i + 1}::${arrayType(target.meta, c)}`).join(", ");
  return `INSERT INTO ${qualified(target)} (${list(columns)})
 SELECT ${list(columns)} FROM unnest(${arrays}) AS v(${list(columns)}) ORDER BY "_id"`;
}

/** Overwrites whole rows by `_id`. Parameters: one array per physical column (declared order). */
export function updateRowsSql(target: TableTarget): string {
  const columns = Object.keys(target.meta.columns);
  const arrays = columns.map((c, i) => `$${i + 1}::${arrayType(target.meta, c)}`).join(", ");
  const sets = columns.filter((c) => c !== "_id").map((c) => `${sqlIdent(c)} = v.${sqlIdent(c)}`);
  return `UPDATE ${qualified(target)} t SET ${sets.join(", ")}
  FROM unnest(${arrays}) AS v(${list(columns)}) WHERE t."_id" = v."_id"`;
}

/**
 * Undo entries in the given order. Parameters: subgraph, table, then arrays of index_block_hash,
 * block_height, row_id, op, pre_image.
 */
export const INSERT_UNDO_ROWS_SQL = `${UNDO_INSERT}
 SELECT u.hash, u.height, $1, $2, u.row_id, u.op, u.pre
   FROM unnest($3::text[], $4::int[], $5::bigint[], $6::text[], $7::jsonb[]) WITH ORDINALITY
     AS u(hash, height, row_id, op, pre, ord)
  ORDER BY u.ord`;
