/**
 * The `filter` of a subgraph webhook (its shape is ours, SPEC.md says "not shown"),
 * pure: validated against the table's columns, then applied to each changed row.
 *
 *   { "<column>": <value>, "<column>": { "eq"|"neq"|"gt"|"gte"|"lt"|"lte": <value>, "in": [<value>, …] } }
 *
 * A bare value means `eq`. All conditions must hold. Order operators take numeric columns (uint,
 * int, bigint, serial — `_id`, `_block_height`) and timestamps; numbers compare as integers
 * (JSON strings of digits or integers), never as floats.
 */
import { badRequest, type ServiceError } from "../internal/errors.js";
import type { ColumnType, TableMeta } from "../subgraphs/types.js";

export const FILTER_OPERATORS = ["eq", "neq", "gt", "gte", "lt", "lte", "in"] as const;
export type FilterOp = (typeof FILTER_OPERATORS)[number];
export type FilterValue = string | number | boolean | null;
export interface Condition {
  column: string;
  op: FilterOp;
  value: FilterValue | FilterValue[];
}
/** The stored (normalised) form: `{ column: { op: value } }`. */
export type RowFilter = Record<string, Partial<Record<FilterOp, FilterValue | FilterValue[]>>>;

const NUMERIC: ReadonlySet<ColumnType> = new Set(["uint", "int", "bigint", "serial"]);
const ORDERED_OPS: ReadonlySet<FilterOp> = new Set(["gt", "gte", "lt", "lte"]);
const MAX_IN = 100;

const fail = (field: string, message: string): ServiceError => badRequest("VALIDATION_ERROR", message, { field });

/** Validates a filter against a table; returns the normalised form. Undefined/null → {} (no filter). */
export function parseRowFilter(input: unknown, table: TableMeta): RowFilter {
  if (input === undefined || input === null) return {};
  if (typeof input !== "object" || Array.isArray(input)) {
    throw fail("filter", 'filter must be an object of column conditions, e.g. {"amount": {"gte": "1000"}}');
  }
  const out: RowFilter = {};
  for (const [column, spec] of Object.entries(input as Record<string, unknown>)) {
    const meta = table.columns[column];
    if (!meta) {
      throw fail(
        `filter.${column}`,
        `filter: ${JSON.stringify(column)} is not a column of ${table.name} (columns: ${Object.keys(table.columns).join(", ")})`,
      );
    }
    const ops: Record<string, unknown> =
      spec !== null && typeof spec === "object" && !Array.isArray(spec)
        ? (spec as Record<string, unknown>)
        : { eq: spec };
    if (!Object.keys(ops).length) throw fail(`filter.${column}`, `filter.${column} must name at least one operator`);
    const normalised: Partial<Record<FilterOp, FilterValue | FilterValue[]>> = {};
    for (const [op, value] of Object.entries(ops)) {
      const at = `filter.${column}.${op}`;
      if (!(FILTER_OPERATORS as readonly string[]).includes(op)) {
        throw fail(at, `${at}: unknown operator; one of ${FILTER_OPERATORS.join(", ")}`);
      }
      if (ORDERED_OPS.has(op as FilterOp) && !NUMERIC.has(meta.type) && meta.type !== "timestamp") {
        throw fail(at, `${at}: ${op} needs a numeric or timestamp column; ${column} is ${meta.type}`);
      }
      if (op === "in") {
        if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IN) {
          throw fail(at, `${at} must be an array of 1 to ${MAX_IN} values`);
        }
        normalised.in = value.map((v, i) => checkValue(v, meta.type, `${at}[${i}]`, false));
      } else {
        normalised[op as FilterOp] = checkValue(value, meta.type, at, op === "eq" || op === "neq");
      }
    }
    out[column] = normalised;
  }
  return out;
}

function checkValue(v: unknown, type: ColumnType, at: string, nullable: boolean): FilterValue {
  if (v === null) {
    if (nullable) return null;
    throw fail(at, `${at} must not be null`);
  }
  if (NUMERIC.has(type)) {
    if ((typeof v === "string" && /^-?\d{1,78}$/.test(v)) || (typeof v === "number" && Number.isSafeInteger(v)))
      return String(v);
    throw fail(at, `${at} must be an integer (a string of digits)`);
  }
  if (type === "boolean") {
    if (typeof v === "boolean") return v;
    throw fail(at, `${at} must be true or false`);
  }
  if (type === "timestamp") {
    if (typeof v === "string" && !Number.isNaN(Date.parse(v))) return v;
    throw fail(at, `${at} must be an ISO 8601 timestamp`);
  }
  if (typeof v === "string") return v;
  throw fail(at, `${at} must be a string`);
}

/** Whether a row passes every condition of the filter. */
export function rowMatches(filter: RowFilter, row: Record<string, unknown> | null | undefined): boolean {
  if (!row) return false;
  for (const [column, ops] of Object.entries(filter)) {
    const actual = row[column];
    for (const [op, expected] of Object.entries(ops) as [FilterOp, FilterValue | FilterValue[]][]) {
      if (!test(op, actual, expected)) return false;
    }
  }
  return true;
}

function test(op: FilterOp, actual: unknown, expected: FilterValue | FilterValue[]): boolean {
  if (op === "in") return (expected as FilterValue[]).some((v) => compare(actual, v) === 0);
  const order = compare(actual, expected as FilterValue);
  switch (op) {
    case "eq":
      return order === 0;
    case "neq":
      return order !== 0;
    case "gt":
      return order !== null && order > 0;
    case "gte":
      return order !== null && order >= 0;
    case "lt":
      return order !== null && order < 0;
    case "lte":
      return order !== null && order <= 0;
  }
}

const INT = /^-?\d+$/;

/** -1/0/1, or null when the two cannot be ordered (null vs value, mismatched kinds). */
function compare(actual: unknown, expected: FilterValue): number | null {
  if (actual === undefined) actual = null;
  if (actual === null || expected === null) return actual === expected ? 0 : null;
  if (actual instanceof Date) actual = actual.toISOString();
  const a = typeof actual === "number" ? String(actual) : actual;
  if (typeof a === "string" && typeof expected === "string" && INT.test(a) && INT.test(expected)) {
    const x = BigInt(a);
    const y = BigInt(expected);
    return x === y ? 0 : x < y ? -1 : 1;
  }
  if (typeof a === "string" && typeof expected === "string") {
    const ta = Date.parse(a);
    const te = Date.parse(expected);
    if (/^\d{4}-\d{2}-\d{2}/.test(a) && /^\d{4}-\d{2}-\d{2}/.test(expected) && !Number.isNaN(ta) && !Number.isNaN(te)) {
      return ta === te ? 0 : ta < te ? -1 : 1;
    }
    return a === expected ? 0 : a < expected ? -1 : 1;
  }
  return a === expected ? 0 : null;
}
