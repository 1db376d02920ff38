/**
 * The in-memory half of writing each row once per transaction, pure: applies an upsert, an
 * increment or an insert to a row's current state (as the read API renders it) exactly as the statement in
 * table-sql.ts would, and checks the result against what the database would refuse.
 *
 * The checks are stricter than PostgreSQL on purpose: a value they cannot vouch for (a number in
 * exponent notation, a timestamp with more than millisecond digits) throws RowRefusedError, the
 * engine then redoes the transaction with one statement per run, and the database decides. Being
 * stricter costs a retry; being laxer would hide a refusal that a later block's write overwrote.
 */
import { addDecimals, canonicalDecimal, isDecimal } from "./decimal.js";
import { renderValue, type SeqOp, toParam } from "./op-runs.js";
import type { ColumnType, TableMeta } from "./types.js";

/** A row as the read API renders it: every physical column, declared order (renderRow's shape). */
export type RenderedRow = Record<string, unknown>;

/** A value in memory the database would refuse, or that only the database can judge. */
export class RowRefusedError extends Error {
  override name = "RowRefusedError";
}

const NUMERIC: ReadonlySet<ColumnType> = new Set(["int", "uint", "bigint"]);
const TIMESTAMP_TEXT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?(Z|[+-]\d\d:\d\d)$/;

function typeOf(meta: TableMeta, column: string): ColumnType {
  if (column === "_block_height") return "bigint";
  const col = meta.columns[column];
  if (col === undefined) throw new Error(`table ${meta.name} has no column ${column}`);
  return col.type;
}

/**
 * A handler's value as the database would store and the read API render it, or RowRefusedError.
 * Timestamps render as PostgreSQL prints them (microseconds, UTC), like renderRow's text columns.
 */
export function renderInput(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (NUMERIC.has(type) || type === "serial") {
    const text = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value;
    if (!isDecimal(text)) throw new RowRefusedError(`${JSON.stringify(value)} is not a ${type}`);
    return type === "serial" ? Number(text) : canonicalDecimal(text);
  }
  if (type === "timestamp") {
    if (typeof value !== "string" || !TIMESTAMP_TEXT.test(value))
      throw new RowRefusedError(`${JSON.stringify(value)} is not a timestamp this engine renders exactly`);
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) throw new RowRefusedError(`${JSON.stringify(value)} is not a timestamp`);
    return date.toISOString().replace(/Z$/, "000Z");
  }
  if (type === "boolean" && value !== true && value !== false && value !== "true" && value !== "false")
    throw new RowRefusedError(`${JSON.stringify(value)} is not a boolean`);
  return renderValue(type, value);
}

/** Identity of a row under a key, the same for an operation's values and a rendered row. */
export function keyOf(meta: TableMeta, key: readonly string[], source: Record<string, unknown>): string {
  let text = "";
  for (const c of key) {
    const v = renderValue(typeOf(meta, c), source[c]);
    const part = typeof v === "string" ? v : JSON.stringify(v);
    text += `${part.length}:${part}`; // length-prefixed: no two tuples give the same text
  }
  return text;
}

/** Whether a key holds a null (such a row never conflicts: a unique index keeps NULLs distinct). */
export function keyHasNull(key: readonly string[], source: Record<string, unknown>): boolean {
  return key.some((c) => source[c] === null || source[c] === undefined);
}

/** What a brand-new row gets from the database: its `_id` and the transaction's `now()`. */
export interface FreshRow {
  id: number;
  createdAt: string;
}

/**
 * The row after one upsert, increment or insert: `before` is the current row (undefined: none
 * matched the key, or an insert; `fresh` supplies the new row's system columns). Upsert and insert
 * write the columns they name; increment adds its deltas (a null counts as 0) and overwrites its
 * other values.
 */
export function foldOp(
  meta: TableMeta,
  before: RenderedRow | undefined,
  planned: SeqOp,
  fresh: FreshRow | undefined,
): RenderedRow {
  const op = planned.op;
  if (op.kind !== "upsert" && op.kind !== "increment" && op.kind !== "insert")
    throw new Error(`cannot fold a ${op.kind} in memory`);
  if (op.kind === "insert" && before !== undefined) throw new Error("an insert makes a new row");
  let row: RenderedRow;
  if (before !== undefined) {
    row = { ...before };
  } else {
    if (fresh === undefined) throw new Error("a new row needs its _id");
    row = {};
    for (const name of Object.keys(meta.columns)) row[name] = null;
    row._id = fresh.id;
    row._created_at = fresh.createdAt;
  }
  row._block_height = String(planned.blockHeight);
  row._tx_id = planned.txId;
  const set = (values: Record<string, unknown>) => {
    for (const c in values) row[c] = renderInput(typeOf(meta, c), values[c]);
  };
  if (op.kind === "upsert" || op.kind === "insert") {
    set(op.values);
  } else {
    set(op.key);
    for (const c in op.deltas) {
      const delta = op.deltas[c];
      if (!isDecimal(delta)) throw new RowRefusedError(`increment of ${c} by ${JSON.stringify(delta)}`);
      const prior = row[c];
      row[c] = prior === null || prior === undefined ? canonicalDecimal(delta) : addDecimals(String(prior), delta);
    }
    if (op.values) set(op.values);
  }
  // A stored row passed these checks before: only the columns this operation wrote can break them.
  if (before === undefined) checkRow(meta, row);
  else checkColumns(meta, row, op.kind === "increment" ? { ...op.key, ...op.deltas, ...op.values } : op.values);
  return row;
}

/**
 * Identity of a row under an update's key columns, equal exactly when the statement's `=` /
 * `IS NULL` would match (a null is its own value here, unlike keyOf). Columns the fold cannot
 * compare exactly (jsonb, timestamps) throw RowRefusedError: the statement decides.
 */
export function matchText(meta: TableMeta, columns: readonly string[], source: Record<string, unknown>): string {
  let text = "";
  for (const c of columns) {
    const type = typeOf(meta, c);
    if (type === "jsonb" || type === "timestamp")
      throw new RowRefusedError(`${meta.name}.${c} is not compared in memory`);
    const v = source[c];
    if (v === null || v === undefined) {
      text += "-";
      continue;
    }
    const part = String(renderValue(type, v));
    text += `${part.length}:${part}`;
  }
  return text;
}

/** The row after an update: its `set` columns written, `_block_height`/`_tx_id` of the update. */
export function foldUpdate(meta: TableMeta, before: RenderedRow, planned: SeqOp): RenderedRow {
  const op = planned.op;
  if (op.kind !== "update") throw new Error(`not an update: ${op.kind}`);
  const row = { ...before };
  row._block_height = String(planned.blockHeight);
  row._tx_id = planned.txId;
  for (const c in op.set) row[c] = renderInput(typeOf(meta, c), op.set[c]);
  checkColumns(meta, row, op.set);
  return row;
}

function checkColumns(meta: TableMeta, row: RenderedRow, written: Record<string, unknown>): void {
  for (const name in written) checkColumn(meta, name, row[name]);
}

function checkColumn(meta: TableMeta, name: string, v: unknown): void {
  const column = meta.columns[name];
  if (v === null || v === undefined) {
    if (!column.nullable) throw new RowRefusedError(`${meta.name}.${name} would be null`);
  } else if (column.type === "uint" && String(v).startsWith("-")) {
    throw new RowRefusedError(`${meta.name}.${name} would be negative (${String(v)})`);
  }
}

/** NOT NULL and the `uint` CHECK, as the migration declares them (emit-migration.ts). */
export function checkRow(meta: TableMeta, row: RenderedRow): void {
  for (const name in meta.columns) checkColumn(meta, name, row[name]);
}

/** A rendered value back as a statement parameter (text; jsonb as its JSON text). */
export function paramOf(meta: TableMeta, column: string, value: unknown): string | null {
  return toParam(typeOf(meta, column), value);
}
