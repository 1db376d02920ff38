/**
 * Typed subgraph queries → parameterised SQL (SPEC.md "List and count query parameters", "Filter
 * grammar", "Aggregate endpoint"; DESIGN.md §8 "Use row-value keyset predicates"). One engine
 * for every table: identifiers come from the table's metadata only (quoted), every value is a
 * `$n` parameter cast to the column's type, so each predicate can use the table's indexes.
 *
 * Keyset pages (each table has a `(col, _id)` btree per indexed column, migration.sql):
 * - `_id` order: `WHERE _id > $1 ORDER BY _id` (`<` and DESC for `_order=desc`); with a filter
 *   `col = v` the planner may walk the `(col, _id)` index (same order) or the primary key;
 * - `_sort=col`: `WHERE (col, _id) > ($1, $2) ORDER BY col, _id` — the same direction on both
 *   keys, so the `(col, _id)` index serves both orders and a deep page costs what the first does.
 * - NULLs of a nullable sort column sort after every value in `asc` and before every value in
 *   `desc` (PostgreSQL's default, which is what the index yields read forwards or backwards),
 *   ties broken by `_id`. A row comparison never matches NULL, so such a page is read as up to
 *   two *segments* (the non-NULL run, then the NULL run, or the reverse for desc), each a plain
 *   index range; the caller reads the next segment only while the page is not full.
 *
 * Filters: `=`, `<>` (`IS DISTINCT FROM` on nullable columns, so NULL counts as "not equal"),
 * `> >= < <=`, and `.like` = case-insensitive contains (`ILIKE '%v%'` with `% _ \` escaped; on
 * timestamps over the rendered ISO text). `_search` ORs that contains-test over the searchable
 * columns (pg_trgm GIN indexes serve it). Pure.
 */
import type { FilterOperator } from "../../../subgraphs/types.js";
import { isoTimestampSql } from "../../../subgraphs/table-sql.js";
import { keyTextSql, quoteIdent, selectSql, sqlType, tableSql } from "./sql.js";
import type {
  AggregateQuery,
  Filter,
  KeysetPosition,
  ListQuery,
  RowSelection,
  SqlQuery,
  TableTarget,
} from "./types.js";

/** Alias of the sort key's text in list pages (a colon cannot occur in a column name). */
export const SORT_KEY_ALIAS = "sluice:k";

/** Collects parameters and hands out their `$n` placeholders. */
class Params {
  readonly values: (string | null)[] = [];
  add(value: string | null): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const COMPARATORS: Readonly<Record<Exclude<FilterOperator, "eq" | "neq" | "like">, string>> = {
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
};

/** Escapes LIKE metacharacters so the value matches literally (ESCAPE '\'). */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `<expr> ILIKE '%value%'` on the column's text form. */
function containsSql(target: TableTarget, column: string, placeholder: string): string {
  const ident = quoteIdent(column);
  const type = sqlType(target.meta.columns[column]);
  const text = type === "text" ? ident : type === "timestamptz" ? isoTimestampSql(ident) : `${ident}::text`;
  return `${text} ILIKE ${placeholder} ESCAPE '\\'`;
}

function filterSql(target: TableTarget, filter: Filter, params: Params): string {
  const column = target.meta.columns[filter.column];
  const ident = quoteIdent(filter.column);
  if (filter.op === "like") return containsSql(target, filter.column, params.add(`%${escapeLike(filter.value)}%`));
  const value = `${params.add(filter.value)}::${sqlType(column)}`;
  switch (filter.op) {
    case "eq":
      return `${ident} = ${value}`;
    case "neq":
      return column.nullable ? `${ident} IS DISTINCT FROM ${value}` : `${ident} <> ${value}`;
    default:
      return `${ident} ${COMPARATORS[filter.op]} ${value}`;
  }
}

/** The WHERE conditions of a row selection (filters ANDed, then the search). */
function selectionSql(target: TableTarget, selection: RowSelection, params: Params): string[] {
  const conditions = selection.filters.map((f) => filterSql(target, f, params));
  if (selection.search !== null && target.meta.searchable.length > 0) {
    const placeholder = params.add(`%${escapeLike(selection.search)}%`);
    const tests = target.meta.searchable.map((c) => containsSql(target, c, placeholder));
    conditions.push(tests.length === 1 ? tests[0] : `(${tests.join(" OR ")})`);
  }
  return conditions;
}

const whereSql = (conditions: string[]) => (conditions.length ? ` WHERE ${conditions.join(" AND ")}` : "");

/** The columns a list page selects: the requested ones plus `_id` and the sort column (for the cursor). */
export function selectedColumns(target: TableTarget, fields: string[] | null, sort = "_id"): string[] {
  const all = Object.keys(target.meta.columns);
  if (fields === null) return all;
  const wanted = new Set([...fields, "_id", sort]);
  return all.filter((c) => wanted.has(c));
}

function selectListSql(target: TableTarget, columns: string[]): string {
  return columns.map((c) => selectSql(c, target.meta.columns[c])).join(", ");
}

/** One keyset segment: extra conditions and its ORDER BY. */
interface Segment {
  conditions: (params: Params) => string[];
  orderBy: string;
}

function keysetSegments(target: TableTarget, q: ListQuery): Segment[] {
  const id = quoteIdent("_id");
  const desc = q.order === "desc";
  const dir = desc ? "DESC" : "ASC";
  const cmp = desc ? "<" : ">";
  const after = q.after;
  if (q.sort === "_id") {
    return [{ conditions: (p) => (after ? [`${id} ${cmp} ${p.add(after.id)}::bigint`] : []), orderBy: `${id} ${dir}` }];
  }
  const column = target.meta.columns[q.sort];
  const col = quoteIdent(q.sort);
  const type = sqlType(column);
  const byValue = `${col} ${dir}, ${id} ${dir}`;
  const byId = `${id} ${dir}`;
  const rowAfter = (p: Params, pos: KeysetPosition) =>
    `(${col}, ${id}) ${cmp} (${p.add(pos.sortValue ?? null)}::${type}, ${p.add(pos.id)}::bigint)`;
  if (!column.nullable) {
    return [{ conditions: (p) => (after ? [rowAfter(p, after)] : []), orderBy: byValue }];
  }
  const values: Segment = { conditions: () => [`${col} IS NOT NULL`], orderBy: byValue };
  const nulls: Segment = { conditions: () => [`${col} IS NULL`], orderBy: byId };
  const nullsAfter = (pos: KeysetPosition): Segment => ({
    conditions: (p) => [`${col} IS NULL`, `${id} ${cmp} ${p.add(pos.id)}::bigint`],
    orderBy: byId,
  });
  const valuesAfter = (pos: KeysetPosition): Segment => ({ conditions: (p) => [rowAfter(p, pos)], orderBy: byValue });
  if (!desc) {
    // asc: values, then NULLs.
    if (!after) return [values, nulls];
    return after.sortValue === null ? [nullsAfter(after)] : [valuesAfter(after), nulls];
  }
  // desc: NULLs, then values.
  if (!after) return [nulls, values];
  return after.sortValue === null ? [nullsAfter(after), values] : [valuesAfter(after)];
}

/**
 * A list page as one to two statements (see "Keyset pages"). Each selects `limit + 1` rows so
 * the caller knows whether another page exists; concatenate the segments' rows in order and
 * stop once `limit + 1` are read.
 */
export function compileListPage(target: TableTarget, q: ListQuery): SqlQuery[] {
  const columns = selectedColumns(target, q.fields, q.sort);
  let select = selectListSql(target, columns);
  if (q.sort !== "_id")
    select += `, ${keyTextSql(q.sort, target.meta.columns[q.sort])} AS ${quoteIdent(SORT_KEY_ALIAS)}`;
  return keysetSegments(target, q).map((segment) => {
    const params = new Params();
    const conditions = [...selectionSql(target, q, params), ...segment.conditions(params)];
    const limit = params.add(String(q.limit + 1));
    return {
      sql: `SELECT ${select} FROM ${tableSql(target)}${whereSql(conditions)} ORDER BY ${segment.orderBy} LIMIT ${limit}::int`,
      params: params.values,
    };
  });
}

/** `SELECT count(*) AS count` over a row selection. */
export function compileCount(target: TableTarget, selection: RowSelection): SqlQuery {
  const params = new Params();
  const conditions = selectionSql(target, selection, params);
  return { sql: `SELECT count(*) AS count FROM ${tableSql(target)}${whereSql(conditions)}`, params: params.values };
}

export type AggregateKind = "count" | "countDistinct" | "sum" | "min" | "max";

/** Where each selected aggregate lands in the response: `alias` is its result column. */
export interface AggregateOutput {
  kind: AggregateKind;
  column: string | null;
  alias: string;
}

/**
 * All requested aggregates in one statement: `count(*)`, `count(DISTINCT c)`, and `sum`/`min`/
 * `max` cast to text (lossless; `sum` is COALESCEd to 0 over an empty set, min/max stay NULL).
 */
export function compileAggregate(
  target: TableTarget,
  q: AggregateQuery,
): { query: SqlQuery; outputs: AggregateOutput[] } {
  const params = new Params();
  const conditions = selectionSql(target, q, params);
  const outputs: AggregateOutput[] = [];
  const exprs: string[] = [];
  const add = (kind: AggregateKind, column: string | null, expr: string) => {
    const alias = `a${outputs.length}`;
    outputs.push({ kind, column, alias });
    exprs.push(`${expr} AS ${alias}`);
  };
  if (q.count) add("count", null, "count(*)");
  for (const c of q.countDistinct) add("countDistinct", c, `count(DISTINCT ${quoteIdent(c)})`);
  for (const c of q.sum) add("sum", c, `COALESCE(sum(${quoteIdent(c)}), 0)::text`);
  for (const c of q.min) add("min", c, `min(${quoteIdent(c)})::text`);
  for (const c of q.max) add("max", c, `max(${quoteIdent(c)})::text`);
  return {
    query: { sql: `SELECT ${exprs.join(", ")} FROM ${tableSql(target)}${whereSql(conditions)}`, params: params.values },
    outputs,
  };
}

/** One row by `_id`, every column. */
export function compileRowById(target: TableTarget, id: string): SqlQuery {
  const select = selectListSql(target, Object.keys(target.meta.columns));
  return { sql: `SELECT ${select} FROM ${tableSql(target)} WHERE "_id" = $1::bigint`, params: [id] };
}

/**
 * The next rows of a stream: `_id > after` in `_id` order, matching the filters and, with
 * `since`, written at or above that height.
 */
export function compileStreamBatch(
  target: TableTarget,
  filters: Filter[],
  since: number | null,
  afterId: string,
  limit: number,
): SqlQuery {
  const params = new Params();
  const conditions = [`"_id" > ${params.add(afterId)}::bigint`];
  if (since !== null) conditions.push(`"_block_height" >= ${params.add(String(since))}::bigint`);
  conditions.push(...selectionSql(target, { filters, search: null }, params));
  const select = selectListSql(target, Object.keys(target.meta.columns));
  const n = params.add(String(limit));
  return {
    sql: `SELECT ${select} FROM ${tableSql(target)}${whereSql(conditions)} ORDER BY "_id" ASC LIMIT ${n}::int`,
    params: params.values,
  };
}

/** The highest `_id` in the table (0 when empty), optionally below a bound. */
export function compileMaxId(target: TableTarget, below: string | null = null): SqlQuery {
  if (below === null) return { sql: `SELECT COALESCE(max("_id"), 0) AS id FROM ${tableSql(target)}`, params: [] };
  return {
    sql: `SELECT COALESCE(max("_id"), 0) AS id FROM ${tableSql(target)} WHERE "_id" < $1::bigint`,
    params: [below],
  };
}

/**
 * The table's head for stream feeds: the highest `_id` (0 when empty) and the table's OID, which
 * changes when the table is rebuilt (a reindex drops and recreates it, restarting `_id`).
 */
export function compileTableHead(target: TableTarget): SqlQuery {
  return {
    sql: `SELECT COALESCE(max("_id"), 0) AS id, $1::regclass::oid AS oid FROM ${tableSql(target)}`,
    params: [tableSql(target)],
  };
}

/** Which of the given ids still exist. */
export function compileExistingIds(target: TableTarget, ids: string[]): SqlQuery {
  return {
    sql: `SELECT "_id" AS id FROM ${tableSql(target)} WHERE "_id" = ANY($1::bigint[])`,
    params: [`{${ids.join(",")}}`],
  };
}

/**
 * For a stream resumed after rows it delivered vanished: the lowest fork point among the reorgs
 * recorded since row `survivorId` (the newest surviving row below them) was written; NULL when
 * none was (the rows were deleted by the subgraph itself).
 */
export function compileResumeForkPoint(target: TableTarget, survivorId: string): SqlQuery {
  return {
    sql:
      "SELECT min(fork_point_height) AS fork_point_height FROM chain.reorgs WHERE detected_at >= " +
      `COALESCE((SELECT "_created_at" FROM ${tableSql(target)} WHERE "_id" = $1::bigint), '-infinity'::timestamptz)`,
    params: [survivorId],
  };
}
