/**
 * What a table exposes over HTTP (SPEC.md "System columns", "Filter grammar", "Aggregate
 * endpoint"): system + declared columns, filter operators per column, searchable and sortable
 * columns. One function, used by routes.ts, openapi.json and descriptor.json alike.
 */
import type { ColumnMeta, ColumnType, FilterOperator, TableMeta } from "../runtime/subgraphs/types.js";
import type { TableModel } from "./model.js";

/** System columns on every subgraph table, in row order after the declared columns. */
export const SYSTEM_COLUMNS: readonly { name: string; type: ColumnType }[] = [
  { name: "_id", type: "serial" },
  { name: "_block_height", type: "bigint" },
  { name: "_tx_id", type: "text" },
  { name: "_created_at", type: "timestamp" },
];

const NUMERIC_OPERATORS: readonly FilterOperator[] = ["eq", "neq", "gt", "gte", "lt", "lte"];

/** SPEC.md "Filter grammar": `.like` on text, principal, `_tx_id`, `_created_at`; ordering on numbers and time. */
export function filterOperators(type: ColumnType): FilterOperator[] {
  switch (type) {
    case "text":
    case "principal":
      return ["eq", "neq", "like"];
    case "int":
    case "uint":
    case "bigint":
    case "serial":
      return [...NUMERIC_OPERATORS];
    case "timestamp":
      return ["eq", "neq", "like", "gt", "gte", "lt", "lte"];
    case "boolean":
      return ["eq", "neq"];
    case "jsonb":
      return [];
  }
}

/** Numeric for `_sum`/`_min`/`_max` (SPEC.md "Aggregate endpoint": uint/int plus `_block_height`). */
export function isNumericType(type: ColumnType): boolean {
  return type === "int" || type === "uint" || type === "bigint";
}

export function buildTableMeta(table: TableModel): TableMeta {
  const columns: Record<string, ColumnMeta> = {};
  for (const column of table.columns) {
    columns[column.name] = {
      type: column.type,
      indexed: column.indexed,
      searchable: column.searchable,
      nullable: column.nullable,
      system: false,
    };
  }
  for (const column of SYSTEM_COLUMNS) {
    const indexed = column.name === "_id" || (column.name === "_block_height" && table.blockHeightIndex);
    columns[column.name] = { type: column.type, indexed, searchable: false, nullable: false, system: true };
  }
  const filters: Record<string, FilterOperator[]> = {};
  for (const [name, column] of Object.entries(columns)) {
    const operators = filterOperators(column.type);
    if (operators.length > 0) filters[name] = operators;
  }
  const sortable = table.columns.filter((c) => c.indexed && c.type !== "jsonb").map((c) => c.name);
  return {
    name: table.name,
    columns,
    uniqueKeys: table.uniqueKeys.map((key) => [...key]),
    filters,
    searchable: table.columns.filter((c) => c.searchable).map((c) => c.name),
    sortable: [...sortable, "_id", ...(table.blockHeightIndex ? ["_block_height"] : [])],
    ...sortWithinOf(table),
  };
}

/** `sortWithin` (column → the column whose equality filter it needs), present only when declared. */
function sortWithinOf(table: TableModel): Pick<TableMeta, "sortWithin"> {
  const entries = table.columns.flatMap((c) => (c.sortWithin === undefined ? [] : [[c.name, c.sortWithin]]));
  return entries.length === 0 ? {} : { sortWithin: Object.fromEntries(entries) };
}

/** Columns `_sum`, `_min` and `_max` accept. */
export function numericColumns(meta: TableMeta): string[] {
  return Object.entries(meta.columns)
    .filter(([name, column]) => isNumericType(column.type) && (name === "_block_height" || !column.system))
    .map(([name]) => name);
}
