/**
 * From row operations to statements and back to row changes, pure:
 * - `buildRuns` splits one table's operations (chain order) into runs that one statement can
 *   apply: consecutive inserts; consecutive upserts/increments with the same column signature,
 *   merged per unique key (last values win, deltas summed: ON CONFLICT cannot touch a row twice);
 *   updates, deletes and operations whose key holds a null run alone;
 * - `runParams` renders a run's parameter arrays;
 * - `runChanges` turns the statement's pre-images and results back into one RowChange per
 *   operation, in order, synthesizing the intermediate rows a merged run never stored (the last
 *   change of each row is the stored row itself).
 */
import { toJsonb } from "../chain/block-store.js";
import {
  addDecimals,
  addToSum,
  canonicalDecimal,
  type DecimalSum,
  decimalSum,
  formatSum,
  isDecimal,
} from "./decimal.js";
import type { PlannedOp } from "./dispatch.js";
import type { ColumnType, IncrementOp, RowChange, TableMeta, UpsertOp } from "./types.js";
import { timestampTextColumn } from "./table-sql.js";

/** A planned operation with its position in the subgraph's plan (stable sort key of its change). */
export interface SeqOp extends PlannedOp {
  seq: number;
}

export type Run =
  | { kind: "insert"; columns: string[]; ops: SeqOp[] }
  | { kind: "upsert"; key: string[]; columns: string[]; ops: SeqOp[] }
  | { kind: "increment"; key: string[]; adds: string[]; columns: string[]; ops: SeqOp[] }
  | { kind: "update"; keyColumns: string[]; nulls: boolean[]; setColumns: string[]; ops: [SeqOp] }
  | { kind: "delete"; keyColumns: string[]; nulls: boolean[]; ops: [SeqOp] };

/** A RowChange with its sort key (context ordinal, then plan position). */
export interface DraftChange {
  change: RowChange;
  ordinal: number;
  seq: number;
}

const NUMERIC: ReadonlySet<ColumnType> = new Set(["int", "uint", "bigint"]);

function columnType(meta: TableMeta, column: string): ColumnType {
  if (column === "_block_height") return "bigint";
  const col = meta.columns[column];
  if (col === undefined) throw new Error(`table ${meta.name} has no column ${column}`);
  return col.type;
}

/** Columns in the table's declared order (deterministic statement text). */
export function ordered(meta: TableMeta, columns: Iterable<string>): string[] {
  const set = new Set(columns);
  for (const c of set) columnType(meta, c);
  return Object.keys(meta.columns).filter((c) => set.has(c));
}

/**
 * `ordered` over an object's own keys, remembered per table and key list: a block's operations
 * repeat a handful of shapes, and this runs once per operation.
 */
const orderedShapes = new WeakMap<TableMeta, Map<string, readonly string[]>>();
const shapeIds = new WeakMap<readonly string[], number>();
let nextShapeId = 1;
/** A number naming one remembered column list (equal lists of one table share it). */
function shapeId(columns: readonly string[]): number {
  let id = shapeIds.get(columns);
  if (id === undefined) {
    id = nextShapeId++;
    shapeIds.set(columns, id);
  }
  return id;
}
function orderedKeys(meta: TableMeta, values: Record<string, unknown>): readonly string[] {
  let shapes = orderedShapes.get(meta);
  if (shapes === undefined) {
    shapes = new Map();
    orderedShapes.set(meta, shapes);
  }
  const names = Object.keys(values);
  const shape = names.join(",");
  let columns = shapes.get(shape);
  if (columns === undefined) {
    columns = ordered(meta, names);
    shapes.set(shape, columns);
  }
  return columns;
}

export const isNull = (v: unknown) => v === null || v === undefined;

const NO_VALUES: Record<string, unknown> = {};

/** Splits one table's operations (in chain order) into runs; see the module comment. */
export function buildRuns(meta: TableMeta, ops: readonly SeqOp[]): Run[] {
  const runs: Run[] = [];
  let signature = "";
  for (const planned of ops) {
    const op = planned.op;
    const last = runs[runs.length - 1];
    switch (op.kind) {
      case "insert": {
        const columns = ordered(meta, Object.keys(op.values));
        if (last?.kind === "insert") {
          last.ops.push(planned);
          last.columns = ordered(meta, [...last.columns, ...columns]);
        } else {
          runs.push({ kind: "insert", columns, ops: [planned] });
        }
        signature = "";
        break;
      }
      case "upsert": {
        const key = [...op.key];
        const columns = [...key, ...ordered(meta, Object.keys(op.values)).filter((c) => !key.includes(c))];
        const sig = `upsert|${key.join(",")}|${columns.join(",")}`;
        const alone = key.some((k) => isNull(op.values[k]));
        if (!alone && last?.kind === "upsert" && sig === signature) last.ops.push(planned);
        else runs.push({ kind: "upsert", key, columns, ops: [planned] });
        signature = alone ? "" : sig;
        break;
      }
      case "increment": {
        const key = orderedKeys(meta, op.key);
        const alone = key.some((k) => isNull(op.key[k]));
        const adds = orderedKeys(meta, op.deltas);
        const values = orderedKeys(meta, op.values ?? NO_VALUES);
        const sig = `increment|${shapeId(key)}|${shapeId(adds)}|${shapeId(values)}`;
        if (!alone && last?.kind === "increment" && sig === signature) {
          last.ops.push(planned);
        } else {
          const addColumns = adds.filter((c) => !key.includes(c));
          const valueColumns = values.filter((c) => !key.includes(c) && !addColumns.includes(c));
          const columns = [...key, ...addColumns, ...valueColumns];
          runs.push({ kind: "increment", key: [...key], adds: addColumns, columns, ops: [planned] });
        }
        signature = alone ? "" : sig;
        break;
      }
      case "update": {
        const keyColumns = ordered(meta, Object.keys(op.key));
        const setColumns = ordered(meta, Object.keys(op.set));
        runs.push({
          kind: "update",
          keyColumns,
          nulls: keyColumns.map((c) => isNull(op.key[c])),
          setColumns,
          ops: [planned],
        });
        signature = "";
        break;
      }
      case "delete": {
        const keyColumns = ordered(meta, Object.keys(op.key));
        runs.push({ kind: "delete", keyColumns, nulls: keyColumns.map((c) => isNull(op.key[c])), ops: [planned] });
        signature = "";
        break;
      }
    }
  }
  return runs;
}

/** A value as a query parameter for a column of `type` (arrays: every element a string or null). */
export function toParam(type: ColumnType, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "jsonb":
      return toJsonb(value);
    case "boolean":
      return value === true || value === "true"
        ? "true"
        : value === false || value === "false"
          ? "false"
          : String(value);
    default: {
      const text = typeof value === "object" ? JSON.stringify(value) : String(value);
      return text.includes("\u0000") ? text.replaceAll("\u0000", "\ufffd") : text;
    }
  }
}

/** A value as the read API renders it for a column of `type` (what the database would give back). */
export function renderValue(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === "serial") return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (NUMERIC.has(type)) return isDecimal(String(value)) ? canonicalDecimal(String(value)) : String(value);
  if (type === "bigint") return String(value);
  if (type === "timestamp") {
    const d = new Date(String(value));
    return Number.isNaN(d.getTime()) ? String(value) : d.toISOString();
  }
  if (type === "jsonb") return value;
  if (type === "boolean") return value === true || value === "true";
  return toParam(type, value);
}

/** A database row as the read API renders it: declared columns in order, then the system columns. */
export function renderRow(meta: TableMeta, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, col] of Object.entries(meta.columns)) {
    const v = row[name];
    const text = col.type === "timestamp" ? row[timestampTextColumn(name)] : undefined;
    if (typeof text === "string") out[name] = text;
    else out[name] = name === "_block_height" && v !== null && v !== undefined ? String(v) : renderValue(col.type, v);
  }
  return out;
}

/**
 * Identity of a row by key columns, the same for an operation's values and a stored row: each
 * rendered value length-prefixed (so no separator can be forged by a value), null as "~".
 */
function keyString(meta: TableMeta, key: readonly string[], source: Record<string, unknown>): string {
  let out = "";
  for (const c of key) {
    const rendered = renderValue(columnType(meta, c), source[c]);
    if (rendered === null || rendered === undefined) out += "~";
    else {
      const text = typeof rendered === "string" ? rendered : JSON.stringify(rendered);
      out += `${text.length}:${text}`;
    }
  }
  return out;
}

function keyValuesOf(op: SeqOp): Record<string, unknown> {
  return op.op.kind === "upsert" ? op.op.values : (op.op as IncrementOp).key;
}

/**
 * One input row per distinct key: upserts keep the last values; increments sum deltas and keep
 * the last values. `_block_height`/`_tx_id` come from the last operation on the key.
 */
function mergeByKey(
  meta: TableMeta,
  run: Extract<Run, { kind: "upsert" | "increment" }>,
): Map<string, { op: SeqOp; values: Record<string, unknown> }> {
  const merged = new Map<string, { op: SeqOp; values: Record<string, unknown> }>();
  if (run.kind === "upsert") {
    for (const planned of run.ops) {
      const values = (planned.op as UpsertOp).values;
      merged.set(keyString(meta, run.key, values), { op: planned, values: { ...values } });
    }
    return merged;
  }
  // Deltas are summed as exact decimals and rendered once per key.
  const sums = new Map<string, Map<string, DecimalSum>>();
  for (const planned of run.ops) {
    const op = planned.op as IncrementOp;
    const k = keyString(meta, run.key, op.key);
    let entry = merged.get(k);
    let keySums = sums.get(k);
    if (entry === undefined || keySums === undefined) {
      entry = { op: planned, values: {} };
      keySums = new Map();
      merged.set(k, entry);
      sums.set(k, keySums);
    }
    entry.op = planned;
    Object.assign(entry.values, op.key, op.values);
    for (const col in op.deltas) {
      const sum = keySums.get(col);
      if (sum === undefined) keySums.set(col, decimalSum(op.deltas[col]));
      else addToSum(sum, op.deltas[col]);
    }
  }
  for (const [k, keySums] of sums) {
    const values = (merged.get(k) as { values: Record<string, unknown> }).values;
    for (const [col, sum] of keySums) values[col] = formatSum(sum);
  }
  return merged;
}

/** The parameter arrays of a run (after the journal parameters): _block_height[], _tx_id[], columns… */
export function runParams(meta: TableMeta, run: Run): unknown[] {
  switch (run.kind) {
    case "insert": {
      const rows = run.ops.map((o) => ({ op: o, values: (o.op as { values: Record<string, unknown> }).values }));
      return arrays(meta, run.columns, rows);
    }
    case "upsert":
    case "increment":
      return arrays(meta, run.columns, [...mergeByKey(meta, run).values()]);
    case "update": {
      const op = run.ops[0];
      if (op.op.kind !== "update") throw new Error("update run without update op");
      const { key, set } = op.op;
      const keyParams = run.keyColumns
        .filter((_c, i) => !run.nulls[i])
        .map((c) => toParam(columnType(meta, c), key[c]));
      const setParams = run.setColumns.map((c) => toParam(columnType(meta, c), set[c]));
      return [...keyParams, ...setParams, op.blockHeight, op.txId];
    }
    case "delete": {
      const op = run.ops[0];
      if (op.op.kind !== "delete") throw new Error("delete run without delete op");
      const { key } = op.op;
      return run.keyColumns.filter((_c, i) => !run.nulls[i]).map((c) => toParam(columnType(meta, c), key[c]));
    }
  }
}

function arrays(
  meta: TableMeta,
  columns: readonly string[],
  rows: { op: SeqOp; values: Record<string, unknown> }[],
): unknown[] {
  return [
    rows.map((r) => String(r.op.blockHeight)),
    rows.map((r) => r.op.txId),
    ...columns.map((c) => {
      const type = columnType(meta, c);
      return rows.map((r) => toParam(type, r.values[c]));
    }),
  ];
}

export function draft(
  subgraph: string,
  meta: TableMeta,
  op: SeqOp,
  kind: RowChange["op"],
  row: Record<string, unknown>,
  previous?: Record<string, unknown>,
): DraftChange {
  const change: RowChange = {
    subgraph,
    table: meta.name,
    op: kind,
    row,
    txId: op.txId,
    eventIndex: op.eventIndex,
    blockHeight: op.blockHeight,
    indexBlockHash: op.indexBlockHash,
    reverted: false,
  };
  if (previous !== undefined) change.previous = previous;
  return { change, ordinal: op.ordinal, seq: op.seq };
}

/** Splits a statement's result into rendered pre-images (`_src` 0) and results (`_src` 1). */
export function splitResult(
  meta: TableMeta,
  rows: readonly Record<string, unknown>[],
): { old: Record<string, unknown>[]; now: Record<string, unknown>[] } {
  const old: Record<string, unknown>[] = [];
  const now: Record<string, unknown>[] = [];
  for (const r of rows) (Number(r._src) === 0 ? old : now).push(renderRow(meta, r));
  return { old, now };
}

/** One RowChange per operation of `run`, from the statement's rendered pre-images and results. */
export function runChanges(
  subgraph: string,
  meta: TableMeta,
  run: Run,
  old: Record<string, unknown>[],
  now: Record<string, unknown>[],
): DraftChange[] {
  switch (run.kind) {
    case "insert": {
      const rows = [...now].sort((a, b) => Number(a._id) - Number(b._id));
      return run.ops.map((op, i) => draft(subgraph, meta, op, "created", rows[i]));
    }
    case "update": {
      const before = new Map(old.map((r) => [r._id, r]));
      return now.map((r) => draft(subgraph, meta, run.ops[0], "updated", r, before.get(r._id)));
    }
    case "delete":
      return old.map((r) => draft(subgraph, meta, run.ops[0], "deleted", r));
    case "upsert":
    case "increment":
      return mergedRunChanges(subgraph, meta, run, old, now);
  }
}

function mergedRunChanges(
  subgraph: string,
  meta: TableMeta,
  run: Extract<Run, { kind: "upsert" | "increment" }>,
  old: Record<string, unknown>[],
  now: Record<string, unknown>[],
): DraftChange[] {
  const current = new Map<string, Record<string, unknown>>();
  for (const r of old) current.set(keyString(meta, run.key, r), r);
  const stored = new Map<string, Record<string, unknown>>();
  for (const r of now) stored.set(keyString(meta, run.key, r), r);
  const lastOf = new Map<string, number>();
  for (const [i, op] of run.ops.entries()) lastOf.set(keyString(meta, run.key, keyValuesOf(op)), i);

  const out: DraftChange[] = [];
  run.ops.forEach((planned, i) => {
    const k = keyString(meta, run.key, keyValuesOf(planned));
    const final = stored.get(k);
    if (final === undefined) throw new Error(`row of key ${k} missing from the ${run.kind} result of ${meta.name}`);
    const before = current.get(k);
    const next = lastOf.get(k) === i ? final : nextRow(meta, planned, before, final);
    out.push(
      before === undefined
        ? draft(subgraph, meta, planned, "created", next)
        : draft(subgraph, meta, planned, "updated", next, before),
    );
    current.set(k, next);
  });
  return out;
}

/** The row after one operation of a merged run (not stored by itself: later operations followed). */
function nextRow(
  meta: TableMeta,
  planned: SeqOp,
  before: Record<string, unknown> | undefined,
  final: Record<string, unknown>,
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const name of Object.keys(meta.columns)) row[name] = before ? before[name] : null;
  if (!before) {
    row._id = final._id;
    row._created_at = final._created_at;
  }
  row._block_height = String(planned.blockHeight);
  row._tx_id = planned.txId;
  const set = (values: Record<string, unknown>) => {
    for (const [c, v] of Object.entries(values)) row[c] = renderValue(columnType(meta, c), v);
  };
  const op = planned.op;
  if (op.kind === "upsert") {
    set(op.values);
  } else if (op.kind === "increment") {
    set(op.key);
    for (const [c, delta] of Object.entries(op.deltas)) {
      const prior = before?.[c];
      row[c] = prior === null || prior === undefined ? canonicalDecimal(delta) : addDecimals(String(prior), delta);
    }
    if (op.values) set(op.values);
  }
  return row;
}
