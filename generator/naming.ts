/**
 * Every name that comes from a spec passes through here before it reaches generated code
 * (STYLE.md "Generator": one escaping function for TS keys, one for SQL identifiers), because
 * specs are also deployed at run time (DESIGN.md §1).
 */
import { createHash } from "node:crypto";

/** Subgraph, table and column names (validated by the spec schema too). */
export const NAME_PATTERN = /^[a-z][a-z0-9_-]*$/;

const TS_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A TypeScript property key: the bare name when it is an identifier, else a JSON string literal. */
export function tsKey(name: string): string {
  return TS_IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** A TypeScript string literal. */
export function tsString(value: string): string {
  return JSON.stringify(value);
}

/** A double-quoted SQL identifier (embedded quotes doubled). */
export function sqlIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The PostgreSQL schema of a subgraph: `sg_<name with - → _>` (DESIGN.md §2 "Storage"). */
export function pgSchemaName(subgraph: string): string {
  return `sg_${subgraph.replace(/-/g, "_")}`;
}

/** `asset-holdings` → `AssetHoldings`, `my_table` → `MyTable`. */
export function pascalCase(name: string): string {
  return name
    .split(/[-_]+/)
    .filter((part) => part !== "")
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join("");
}

/** `asset-holdings` → `assetHoldings`. */
export function camelCase(name: string): string {
  const pascal = pascalCase(name);
  return pascal === "" ? pascal : pascal[0].toLowerCase() + pascal.slice(1);
}

const MAX_PG_IDENTIFIER = 63;

/** An index name from parts; names PostgreSQL would truncate get a short hash suffix instead. */
export function indexName(parts: readonly string[]): string {
  const full = parts.join("_");
  if (full.length <= MAX_PG_IDENTIFIER) return full;
  const digest = createHash("sha256").update(full).digest("hex").slice(0, 8);
  return `${full.slice(0, MAX_PG_IDENTIFIER - 9)}_${digest}`;
}
