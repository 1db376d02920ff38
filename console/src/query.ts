/** Subgraph list queries as the explorer builds them: pure, so the URL shown is the URL called. */
export interface FilterTerm {
  column: string;
  /** eq, neq, like, gt, gte, lt, lte (the table's `filters` say which a column takes). */
  op: string;
  value: string;
}

export interface TableQuery {
  subgraph: string;
  table: string;
  filters: FilterTerm[];
  search: string;
  fields: string;
  sort: string;
  order: "asc" | "desc";
  limit: number;
  cursor: string;
}

/** The filter and search parameters, which /count and /aggregate take too. */
export function filterParams(q: TableQuery): URLSearchParams {
  const params = new URLSearchParams();
  for (const f of q.filters) {
    if (f.column === "") continue;
    params.append(f.op === "eq" ? f.column : `${f.column}.${f.op}`, f.value);
  }
  if (q.search.trim() !== "") params.set("_search", q.search.trim());
  return params;
}

function tablePath(q: TableQuery, suffix = ""): string {
  return `/v1/subgraphs/${encodeURIComponent(q.subgraph)}/${encodeURIComponent(q.table)}${suffix}`;
}

function withQuery(path: string, params: URLSearchParams): string {
  const s = params.toString();
  return s ? `${path}?${s}` : path;
}

/** GET /v1/subgraphs/:name/:table with filters, search, fields, sort, order, limit and cursor. */
export function listUrl(q: TableQuery): string {
  const params = filterParams(q);
  const fields = q.fields
    .split(",")
    .map((f) => f.trim())
    .filter(Boolean);
  if (fields.length) params.set("_fields", fields.join(","));
  if (q.sort !== "") params.set("_sort", q.sort);
  if (q.order !== "asc") params.set("_order", q.order);
  if (q.limit !== 50) params.set("_limit", String(q.limit));
  if (q.cursor !== "") params.set("cursor", q.cursor);
  return withQuery(tablePath(q), params);
}

export function countUrl(q: TableQuery): string {
  return withQuery(tablePath(q, "/count"), filterParams(q));
}

/** GET …/aggregate: `fn` is _countDistinct, _sum, _min or _max of `column`, with the count. */
export function aggregateUrl(q: TableQuery, fn: string, column: string): string {
  const params = filterParams(q);
  params.set("_count", "true");
  if (fn !== "" && column !== "") params.set(fn, column);
  return withQuery(tablePath(q, "/aggregate"), params);
}

/** A cell as the API sent it: strings as they are, null as null, objects as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const OPERATORS = new Set(["neq", "like", "gt", "gte", "lt", "lte"]);

/** The metadata route's `filters` (parameter names: `kind`, `kind.neq`, `amount.gt`) as operators per column. */
export function operatorsByColumn(filterNames: readonly string[]): Record<string, string[]> {
  const ops: Record<string, string[]> = {};
  for (const name of filterNames) {
    const dot = name.lastIndexOf(".");
    const suffix = dot > 0 ? name.slice(dot + 1) : "";
    const [column, op] = OPERATORS.has(suffix) ? [name.slice(0, dot), suffix] : [name, "eq"];
    ops[column] ??= [];
    ops[column].push(op);
  }
  return ops;
}
