/**
 * Keeps the planner's statistics of subgraph tables current while ingestion grows them.
 *
 * Why: a table created empty and filled by one long import has no statistics until autovacuum
 * analyzes it, and autovacuum may be off, or behind. Without them PostgreSQL may find rows by
 * key through a trigram index instead of the unique key and read millions of index entries per
 * statement. So the engine analyzes a table itself once it has grown by as many rows as it held
 * when last analyzed (at least MIN_GROWTH): a handful of cheap ANALYZEs over a table's life.
 */
import type { Queryable } from "../db/types.js";
import { qualified, type TableTarget } from "./table-sql.js";

const MIN_GROWTH = 200;

export interface TableStats {
  /** `rows` rows were added to the table in the current transaction (analyzed when grown enough). */
  grew(q: Queryable, target: TableTarget, rows: number): Promise<void>;
}

export function createTableStats(): TableStats {
  const tables = new Map<string, { analyzed: number; since: number }>();
  return {
    async grew(q, target, rows) {
      if (rows <= 0) return;
      const name = qualified(target);
      const state = tables.get(name) ?? { analyzed: 0, since: 0 };
      tables.set(name, state);
      state.since += rows;
      if (state.since < MIN_GROWTH || state.since < state.analyzed) return;
      // Inside the transaction: ANALYZE counts the rows it inserted, and is rolled back with it.
      await q.query(`ANALYZE ${name}`);
      state.analyzed += state.since;
      state.since = 0;
    },
  };
}
