/**
 * SQL building blocks of the subgraph query engine (DESIGN.md §2 "Storage"): identifier quoting,
 * the PostgreSQL type behind each column type (as generated/<name>/migration.sql declares it),
 * and the expressions that render values losslessly. Pure.
 */
import type { ColumnMeta } from "../../../subgraphs/types.js";
import { isoTimestampSql } from "../../../subgraphs/table-sql.js";
import type { TableTarget } from "./types.js";

/** PostgreSQL types of subgraph columns: integers are NUMERIC except the two system bigints. */
export type SqlType = "bigint" | "numeric" | "text" | "timestamptz" | "boolean" | "jsonb";

/**
 * Quotes an identifier. Every identifier reaching SQL comes from a TableMeta (the schema), never
 * from a request; quoting still doubles any `"` so no name can break out.
 */
export function quoteIdent(name: string): string {
  if (name.includes("\u0000")) throw new Error("identifier contains NUL");
  return `"${name.replace(/"/g, '""')}"`;
}

/** `"sg_x"."table"`. */
export function tableSql(target: TableTarget): string {
  return `${quoteIdent(target.schema)}.${quoteIdent(target.meta.name)}`;
}

/**
 * The column's PostgreSQL type: `_id` is bigserial and `_block_height` bigint; declared
 * int/uint/bigint columns are NUMERIC (lossless beyond 2^63).
 */
export function sqlType(column: ColumnMeta): SqlType {
  switch (column.type) {
    case "serial":
      return "bigint";
    case "int":
    case "uint":
    case "bigint":
      return column.system ? "bigint" : "numeric";
    case "timestamp":
      return "timestamptz";
    case "boolean":
      return "boolean";
    case "jsonb":
      return "jsonb";
    case "text":
    case "principal":
      return "text";
  }
}

/**
 * The expression that selects a column for rendering: timestamps as lossless ISO text (a JS
 * Date would drop the microseconds, and a filter built from a rendered value must match it);
 * everything else as stored (the drivers return int8 and NUMERIC as strings).
 */
export function selectSql(name: string, column: ColumnMeta): string {
  const ident = quoteIdent(name);
  return sqlType(column) === "timestamptz" ? `${isoTimestampSql(ident)} AS ${ident}` : ident;
}

/**
 * The text of a column's value as a cursor keeps it; casting that text back to the column's
 * type (`$n::<type>`) gives the same value.
 */
export function keyTextSql(name: string, column: ColumnMeta): string {
  const ident = quoteIdent(name);
  return sqlType(column) === "timestamptz" ? isoTimestampSql(ident) : `${ident}::text`;
}
