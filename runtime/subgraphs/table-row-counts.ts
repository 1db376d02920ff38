/**
 * Row counts of subgraph tables for the metrics scrape (runtime/metrics/subgraphs.ts). Exact
 * (`count(*)`) for tables the planner believes small; past EXACT_LIMIT rows the planner's own
 * estimate, so a scrape never scans a large table. Two statements whatever the number of tables.
 */
import type { Queryable } from "../db/types.js";
import { qualified } from "./table-sql.js";
import type { SubgraphModule } from "./types.js";

/** Tables estimated below this many rows are counted exactly. */
export const EXACT_LIMIT = 1_000_000;

export interface TableRowCount {
  subgraph: string;
  table: string;
  rows: number;
}

export async function countSubgraphRows(q: Queryable, modules: readonly SubgraphModule[]): Promise<TableRowCount[]> {
  const tables = modules.flatMap((module) =>
    Object.values(module.tables).map((meta) => ({ target: { subgraph: module.name, schema: module.schema, meta } })),
  );
  if (tables.length === 0) return [];
  // reltuples is -1 for a table never analyzed: counted exactly, like a small one.
  const { rows: estimates } = await q.query<{ schema: string; name: string; n: string | number }>(
    `SELECT s.nspname AS schema, c.relname AS name, c.reltuples AS n
       FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND s.nspname = ANY($1::text[])`,
    [[...new Set(tables.map((t) => t.target.schema))]],
  );
  const estimated = new Map(estimates.map((e) => [`${e.schema}.${e.name}`, Number(e.n)]));
  const counts: TableRowCount[] = [];
  const exact: { index: number; sql: string }[] = [];
  for (const { target } of tables) {
    const estimate = estimated.get(`${target.schema}.${target.meta.name}`);
    if (estimate === undefined) continue; // dropped meanwhile, or not created yet
    counts.push({ subgraph: target.subgraph, table: target.meta.name, rows: estimate });
    if (estimate < EXACT_LIMIT) {
      exact.push({
        index: counts.length - 1,
        sql: `SELECT ${exact.length} AS i, count(*) AS n FROM ${qualified(target)}`,
      });
    }
  }
  if (exact.length > 0) {
    const { rows } = await q.query<{ i: number; n: string }>(exact.map((e) => e.sql).join(" UNION ALL "));
    for (const r of rows) counts[exact[Number(r.i)].index].rows = Number(r.n);
  }
  return counts;
}
