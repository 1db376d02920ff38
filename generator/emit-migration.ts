/**
 * migration.sql (DESIGN.md §1, §2 "Storage"): the subgraph's schema `sg_<name>`, one table per
 * spec table with the system columns, NUMERIC for every integer type (lossless), a `(col, _id)`
 * index per indexed column for keyset pages, a `(within, col, _id)` index per `sortWithin`
 * column (sorted pages under an equality filter), unique indexes for uniqueKeys and pg_trgm GIN
 * indexes for searchable columns. Rendered from templates/migration.sql.hbs.
 */
import { headerLines, sqlHeader } from "./header.js";
import type { ColumnModel, SubgraphModel, TableModel } from "./model.js";
import { indexName, sqlIdent } from "./naming.js";
import { renderTemplate } from "./template-helpers.js";

/** Spec column type → SQL type; also used by the run-time schema diff, so ALTER matches CREATE. */
export const SQL_TYPES: Record<ColumnModel["type"], string> = {
  text: "text",
  principal: "text",
  int: "numeric",
  uint: "numeric",
  bigint: "numeric",
  timestamp: "timestamptz",
  boolean: "boolean",
  jsonb: "jsonb",
};

const SYSTEM_COLUMN_DEFINITIONS = [
  { name: "_id", definition: "bigserial PRIMARY KEY" },
  { name: "_block_height", definition: "bigint NOT NULL" },
  { name: "_tx_id", definition: "text NOT NULL" },
  { name: "_created_at", definition: "timestamptz NOT NULL DEFAULT now()" },
];

interface IndexView {
  name: string;
  unique: boolean;
  /** `USING gin ` or "". */
  method: string;
  columns: string;
}

export function emitMigration(model: SubgraphModel): string {
  return renderTemplate("migration.sql.hbs", {
    header: sqlHeader(headerLines(model, "Database migration")),
    schema: model.pgSchema,
    tables: model.tables.map((table) => ({
      name: table.name,
      columns: [...SYSTEM_COLUMN_DEFINITIONS, ...table.columns.map(columnView)],
      indexes: indexViews(table),
      // Turning the option off on an existing table drops the index it had.
      droppedIndexes: table.blockHeightIndex ? [] : [indexName([table.name, "_block_height", "idx"])],
    })),
  });
}

function columnView(column: ColumnModel): { name: string; definition: string } {
  let definition = SQL_TYPES[column.type];
  if (!column.nullable) definition += " NOT NULL";
  if (column.type === "uint") definition += ` CHECK (${sqlIdent(column.name)} >= 0)`;
  return { name: column.name, definition };
}

function indexViews(table: TableModel): IndexView[] {
  const btree = (columns: readonly string[]) => columns.map(sqlIdent).join(", ");
  const indexes: IndexView[] = [];
  if (table.blockHeightIndex) {
    indexes.push({
      name: indexName([table.name, "_block_height", "idx"]),
      unique: false,
      method: "",
      columns: btree(["_block_height", "_id"]),
    });
  }
  for (const column of table.columns.filter((c) => c.indexed)) {
    indexes.push({
      name: indexName([table.name, column.name, "idx"]),
      unique: false,
      method: "",
      columns: btree([column.name, "_id"]),
    });
  }
  for (const column of table.columns) {
    if (column.sortWithin === undefined) continue;
    indexes.push({
      name: indexName([table.name, column.sortWithin, column.name, "sort"]),
      unique: false,
      method: "",
      columns: btree([column.sortWithin, column.name, "_id"]),
    });
  }
  for (const key of table.uniqueKeys) {
    indexes.push({ name: indexName([table.name, ...key, "key"]), unique: true, method: "", columns: btree(key) });
  }
  for (const column of table.columns.filter((c) => c.searchable)) {
    indexes.push({
      name: indexName([table.name, column.name, "trgm"]),
      unique: false,
      method: "USING gin ",
      columns: `${sqlIdent(column.name)} gin_trgm_ops`,
    });
  }
  return indexes;
}
