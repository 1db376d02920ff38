/**
 * Test helpers for the archive: table contents read with plain SQL of their own (not the archive's
 * export), so a restore is compared against what the ingest path stored, row by row.
 */
import { eventPayloadSql } from "../../runtime/chain/event-columns-sql.js";
import type { Queryable } from "../../runtime/db/types.js";

/** Columns an instance sets by itself (arrival order and time), not part of the chain. */
const LOCAL_COLUMNS = new Set(["received_seq", "received_at"]);
const CHAIN_TABLES = ["blocks", "transactions", "events", "burn_blocks", "address_activity"] as const;

async function columnsOf(q: Queryable, schema: string, table: string, skip: Set<string>): Promise<string[]> {
  const { rows } = await q.query<{ column_name: string }>(
    "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position",
    [schema, table],
  );
  return rows.map((r) => r.column_name).filter((c) => !skip.has(c));
}

/**
 * A column as text. chain.events' payload is compared as readers see it (`chain.event_payload`):
 * ingest stores it without what the other columns hold (raw_value in its own column), a restore
 * stores the bundle's full payload, and both read the same.
 */
function columnText(schema: string, table: string, column: string): string {
  if (schema !== "chain" || table !== "events") return `"${column}"::text`;
  if (column === "payload") return `${eventPayloadSql("")}::text`;
  if (column === "raw_value") return "NULL::text";
  return `"${column}"::text`;
}

async function sortedRows(
  q: Queryable,
  schema: string,
  table: string,
  columns: string[],
  where: string,
): Promise<string[]> {
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT ${columns.map((c) => `${columnText(schema, table, c)} AS "${c}"`).join(", ")} FROM "${schema}"."${table}" ${where}`,
  );
  return rows.map((r) => JSON.stringify(columns.map((c) => r[c]))).sort();
}

export interface ChainScope {
  /** Only canonical rows at or below this Stacks height (and burn blocks at or below maxBurnHeight). */
  maxHeight?: number;
  maxBurnHeight?: number;
  canonicalOnly?: boolean;
}

/** Every chain table as sorted JSON lines of all columns but the instance-local ones. */
export async function dumpChainTables(q: Queryable, scope: ChainScope = {}): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of CHAIN_TABLES) {
    const columns = await columnsOf(q, "chain", table, LOCAL_COLUMNS);
    const where: string[] = [];
    if (table === "burn_blocks") {
      if (scope.maxBurnHeight !== undefined) where.push(`burn_block_height <= ${scope.maxBurnHeight}`);
    } else {
      if (scope.canonicalOnly) where.push("canonical");
      if (scope.maxHeight !== undefined) where.push(`block_height <= ${scope.maxHeight}`);
    }
    out[table] = await sortedRows(q, "chain", table, columns, where.length ? `WHERE ${where.join(" AND ")}` : "");
  }
  return out;
}

/** Every table of every subgraph schema (sg_*), without `_id` and `_created_at` (history and time, not chain). */
export async function dumpSubgraphSchemas(q: Queryable): Promise<Record<string, string[]>> {
  const { rows } = await q.query<{ table_schema: string; table_name: string }>(
    `SELECT table_schema, table_name FROM information_schema.tables
      WHERE table_schema LIKE 'sg\\_%' AND table_type = 'BASE TABLE' ORDER BY 1, 2`,
  );
  const out: Record<string, string[]> = {};
  for (const r of rows) {
    const columns = await columnsOf(q, r.table_schema, r.table_name, new Set(["_id", "_created_at"]));
    out[`${r.table_schema}.${r.table_name}`] = await sortedRows(q, r.table_schema, r.table_name, columns, "");
  }
  return out;
}

export async function countRows(q: Queryable, table: string): Promise<number> {
  const { rows } = await q.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0].n);
}
