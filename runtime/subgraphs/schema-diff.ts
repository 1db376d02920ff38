/**
 * Schema change classification for a redeploy (additive changes migrate
 * in place; breaking changes rebuild). Pure: compares the stored TableMeta of the live subgraph
 * with the new one.
 * - additive: new tables; new nullable columns; a column becoming nullable; indexed/searchable
 *   attributes added or removed (the regenerated migration adds missing indexes; indexes no longer
 *   declared are left in place, harmless);
 * - breaking: a table or column removed, a column's type changed, a column becoming NOT NULL, a new
 *   NOT NULL column on an existing table, unique keys changed (upserts and increments depend on them).
 */
import { SQL_TYPES as SPEC_SQL_TYPES } from "../../generator/emit-migration.js";
import { sqlIdent } from "../../generator/naming.js";
import type { ColumnType, TableMeta } from "./types.js";

export interface SchemaDiff {
  kind: "same" | "additive" | "breaking";
  /** Why a change is breaking (empty unless `breaking`). */
  breaking: string[];
  /** Statements to run before the regenerated migration.sql for an additive change. */
  statements: string[];
}

const SQL_TYPES: Record<ColumnType, string> = { ...SPEC_SQL_TYPES, serial: "bigint" };

const keyList = (keys: readonly (readonly string[])[]) =>
  keys
    .map((k) => [...k].sort().join(","))
    .sort()
    .join("|");

export function diffSchemas(
  schema: string,
  before: Readonly<Record<string, TableMeta>>,
  after: Readonly<Record<string, TableMeta>>,
): SchemaDiff {
  const breaking: string[] = [];
  const statements: string[] = [];
  let changed = false;
  for (const name of Object.keys(before)) if (after[name] === undefined) breaking.push(`table ${name} removed`);
  for (const [name, table] of Object.entries(after)) {
    const old = before[name];
    if (old === undefined) {
      changed = true; // created by the migration
      continue;
    }
    const qualified = `${sqlIdent(schema)}.${sqlIdent(name)}`;
    for (const column of Object.keys(old.columns)) {
      if (table.columns[column] === undefined) breaking.push(`column ${name}.${column} removed`);
    }
    for (const [column, meta] of Object.entries(table.columns)) {
      const prev = old.columns[column];
      if (prev === undefined) {
        if (!meta.nullable) breaking.push(`new column ${name}.${column} is not nullable`);
        else {
          let definition = SQL_TYPES[meta.type];
          if (meta.type === "uint") definition += ` CHECK (${sqlIdent(column)} >= 0)`;
          statements.push(`ALTER TABLE ${qualified} ADD COLUMN IF NOT EXISTS ${sqlIdent(column)} ${definition}`);
          changed = true;
        }
        continue;
      }
      if (prev.type !== meta.type) breaking.push(`column ${name}.${column} changed type ${prev.type} → ${meta.type}`);
      else if (prev.nullable && !meta.nullable) breaking.push(`column ${name}.${column} became NOT NULL`);
      else if (!prev.nullable && meta.nullable) {
        statements.push(`ALTER TABLE ${qualified} ALTER COLUMN ${sqlIdent(column)} DROP NOT NULL`);
        changed = true;
      } else if (prev.indexed !== meta.indexed || prev.searchable !== meta.searchable) changed = true;
    }
    // A new sortWithin adds an index (the regenerated migration creates it); one removed leaves it.
    if (JSON.stringify(old.sortWithin ?? {}) !== JSON.stringify(table.sortWithin ?? {})) changed = true;
    if (keyList(old.uniqueKeys) !== keyList(table.uniqueKeys)) breaking.push(`unique keys of ${name} changed`);
  }
  if (breaking.length > 0) return { kind: "breaking", breaking, statements: [] };
  return { kind: changed ? "additive" : "same", breaking, statements };
}
