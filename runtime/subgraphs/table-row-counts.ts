/**
 * Row counts of subgraph tables for the metrics scrape (runtime/metrics/subgraphs.ts). Exact
 * (`count(*)`) for tables the planner believes small; past EXACT_LIMIT rows the planner's own
 * estimate, so a scrape never scans a large table.
 */
import type { Queryable } from "../db/types.js";
import type { SubgraphModule } from "./types.js";
import { qualified } from "./table-sql.js";

/** Tables estimated below this many rows are counted exactly. */
export const EXACT_LIMIT = 1_000_000;

export interface TableRowCount {
  subgraph: string;
  table: string;
  rows: number;
}

export async function countSubgraphRows(q: Queryable, modules: readonly SubgraphModule[]): Promise<TableRowCount[]> {
  const counts: TableRowCount[] = [];
  for (const module of modules) {
    for (const meta of Object.values(module.tables)) {
      const target = { subgraph: module.name, schema: module.schema, meta };
      const { rows: estimate } = await q.query<{ n: string | number | null }>(
        "SELECT c.reltuples AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relname = $2",
        [module.schema, meta.name],
      );
      if (estimate.length === 0) continue; // dropped meanwhile, or not created yet
      const estimated = Number(estimate[0].n ?? -1);
      let rows = estimated;
      if (estimated < EXACT_LIMIT) {
        const { rows: exact } = await q.query<{ n: string }>(`SELECT count(*) AS n FROM ${qualified(target)}`);
        rows = Number(exact[0].n);
      }
      counts.push({ subgraph: module.name, table: meta.name, rows });
    }
  }
  return counts;
}
