/**
 * Database rows → the JSON the subgraph routes return (SPEC.md "System columns": every column
 * present; `_id` an integer; uint/int/bigint and `_block_height` strings of digits;
 * `_created_at` ISO 8601). The select expressions of compile.ts already give timestamps as ISO
 * text and the drivers give int8/NUMERIC as strings; this only fixes the JS types. Pure.
 */
import type { ColumnMeta } from "../../../subgraphs/types.js";
import type { AggregateOutput } from "./compile.js";
import { sqlType } from "./sql.js";
import type { TableTarget } from "./types.js";

export type RowJson = Record<string, unknown>;

function renderValue(column: ColumnMeta, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.type === "serial") return Number(value);
  switch (sqlType(column)) {
    case "bigint":
    case "numeric":
    case "text":
    case "timestamptz":
      return typeof value === "string" ? value : value instanceof Date ? value.toISOString() : String(value);
    case "boolean":
      return value === true || value === "t" || value === "true";
    case "jsonb":
      return typeof value === "string" ? JSON.parse(value) : value;
  }
}

/** One row as JSON with the given columns, in that order (default: every column of the table). */
export function renderRow(
  target: TableTarget,
  row: Record<string, unknown>,
  fields?: readonly string[] | null,
): RowJson {
  const out: RowJson = {};
  for (const name of fields ?? Object.keys(target.meta.columns))
    out[name] = renderValue(target.meta.columns[name], row[name]);
  return out;
}

export interface AggregateJson {
  count?: number;
  countDistinct?: Record<string, number>;
  sum?: Record<string, string>;
  min?: Record<string, string | null>;
  max?: Record<string, string | null>;
}

/**
 * The aggregate response (SPEC.md "Aggregate endpoint"): count and countDistinct as JSON
 * numbers; sum/min/max as lossless strings; sum "0" and min/max null over an empty set.
 */
export function renderAggregate(outputs: readonly AggregateOutput[], row: Record<string, unknown>): AggregateJson {
  const out: AggregateJson = {};
  for (const { kind, column, alias } of outputs) {
    const value = row[alias];
    switch (kind) {
      case "count":
        out.count = Number(value);
        break;
      case "countDistinct":
        out.countDistinct ??= {};
        out.countDistinct[column as string] = Number(value);
        break;
      case "sum":
        out.sum ??= {};
        out.sum[column as string] = value === null || value === undefined ? "0" : String(value);
        break;
      case "min":
      case "max": {
        const target = out[kind] ?? {};
        out[kind] = target;
        target[column as string] = value === null || value === undefined ? null : String(value);
        break;
      }
    }
  }
  return out;
}
