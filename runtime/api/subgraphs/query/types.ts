/**
 * Typed queries of the subgraph read routes (SPEC.md "List and count query parameters", "Filter
 * grammar", "Aggregate endpoint", "SSE stream routes"): what parse.ts produces from a query
 * string and compile.ts turns into SQL. Plain types only.
 */
import type { FilterOperator, TableMeta } from "../../../subgraphs/types.js";

/** The table a query runs against: identifiers come from here only, never from the request. */
export interface TableTarget {
  /** Subgraph name, e.g. `asset-holdings` (binds cursors to their table). */
  subgraph: string;
  /** PostgreSQL schema, e.g. `sg_asset_holdings`. */
  schema: string;
  meta: TableMeta;
  /**
   * The subgraph's schema hash: when known, reads are tagged with it so the PostgreSQL driver may
   * keep them prepared (db/prepared-statements.ts); a schema change gives new texts.
   */
  schemaHash?: string;
}

export type SortOrder = "asc" | "desc";

/** One column filter: `<column>` (eq) or `<column>.<op>`; `value` already validated for the column type. */
export interface Filter {
  column: string;
  op: FilterOperator;
  value: string;
}

/** What restricts the row set: column filters and `_search`. Shared by list, count, aggregate and stream. */
export interface RowSelection {
  filters: Filter[];
  /** `_search` text (case-insensitive contains across the searchable columns), or null. */
  search: string | null;
}

/** Where a keyset page resumes: the last row's sort value (text; null for a NULL) and `_id`. */
export interface KeysetPosition {
  /** Absent (undefined) when the sort column is `_id` itself. */
  sortValue?: string | null;
  /** The last row's `_id` (decimal). */
  id: string;
}

export interface ListQuery extends RowSelection {
  limit: number;
  order: SortOrder;
  /** The keyset column: `_id` unless `_sort` names another sortable column. */
  sort: string;
  /** `_fields` in request order (deduplicated), or null for every column. */
  fields: string[] | null;
  /** From `cursor`, already checked against this sort, order and table. */
  after: KeysetPosition | null;
}

export interface AggregateQuery extends RowSelection {
  count: boolean;
  countDistinct: string[];
  sum: string[];
  min: string[];
  max: string[];
}

export interface StreamQuery {
  filters: Filter[];
  /** `since=<block_height>`: replay rows with `_block_height >= since`, then tail. */
  since: number | null;
}

/** A compiled statement: SQL text with `$n` placeholders and its parameters (all strings or null). */
export interface SqlQuery {
  sql: string;
  params: (string | null)[];
}
