/**
 * Query strings of the subgraph table routes → typed queries (SPEC.md "List and count query
 * parameters", "Filter grammar", "Aggregate endpoint", "SSE stream routes", "Errors"). Every
 * rule that makes a request a 400 lives here; the result only holds validated values, and
 * identifiers only as keys of the table's metadata. Pure: throws ServiceError.
 *
 * Codes: INVALID_PARAMETER (bad `_limit`, `_order`, `_search`, `_count`, `since`, id; refused
 * aliases `limit`/`order`/`sort`/`_offset`; repeated parameters), UNKNOWN_PARAMETER (with the
 * closest valid name), INVALID_FILTER (operator not allowed for the column's type, or a value
 * that is not of the column's type), INVALID_CURSOR, SEARCH_NOT_SUPPORTED, SORT_NOT_SUPPORTED,
 * INVALID_COLUMN (unknown column in `_fields`, `_sort` or an aggregate), NON_NUMERIC_COLUMN,
 * TOO_MANY_AGGREGATES.
 */
import { badRequest } from "../../../internal/errors.js";
import type { ColumnMeta, FilterOperator, TableMeta } from "../../../subgraphs/types.js";
import {
  rejectAlias,
  type QueryInput,
  didYouMean,
  parseEnumParam,
  parseIntegerParam,
  singleParam,
} from "../../http/query-params.js";
import { decodeCursor } from "./cursor.js";
import type { AggregateQuery, Filter, ListQuery, RowSelection, StreamQuery, TableTarget } from "./types.js";
import { checkColumnValue, isInt8, textProblem } from "./values.js";

/** List and count parameters besides column filters (the count route takes the same set). */
export const LIST_PARAMS = ["_limit", "cursor", "_order", "_sort", "_fields", "_search"] as const;
export const AGGREGATE_PARAMS = ["_count", "_countDistinct", "_sum", "_min", "_max"] as const;
export const STREAM_PARAMS = ["since"] as const;
/** SPEC.md "Limits": aggregate columns per request. */
export const MAX_AGGREGATE_COLUMNS = 32;
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

const OPERATOR_SUFFIXES: readonly FilterOperator[] = ["neq", "like", "gt", "gte", "lt", "lte"];

/** Every filter parameter name a table accepts (`kind`, `kind.neq`, ...): for suggestions. */
export function filterParamNames(meta: TableMeta): string[] {
  return Object.entries(meta.filters).flatMap(([column, ops]) =>
    ops.map((op) => (op === "eq" ? column : `${column}.${op}`)),
  );
}

/** Columns `_sum`, `_min` and `_max` accept: declared uint/int/bigint columns plus `_block_height`. */
export function isNumericColumn(name: string, column: ColumnMeta): boolean {
  const numeric = column.type === "int" || column.type === "uint" || column.type === "bigint";
  return numeric && (!column.system || name === "_block_height");
}

/** GET /v1/subgraphs/:name/:table (and /count, which accepts the same parameters). */
export function parseListQuery(query: QueryInput, target: TableTarget): ListQuery {
  const { params, filters } = scanParams(query, target.meta, LIST_PARAMS, { aliases: true });
  const meta = target.meta;
  const limit = parseIntegerParam("_limit", params._limit, { min: 1, max: MAX_LIMIT, default: DEFAULT_LIMIT });
  const order = parseEnumParam("_order", params._order, ["asc", "desc"] as const, "asc");
  const sort = parseSort(params._sort, meta, filters);
  const fields = params._fields === undefined ? null : parseColumnList("_fields", params._fields, meta);
  const search = parseSearch(params._search, meta);
  let after = null;
  if (params.cursor !== undefined && params.cursor !== "") {
    const binding = { table: `${target.subgraph}/${meta.name}`, sort, order };
    after = decodeCursor(params.cursor, binding, meta.columns[sort]);
  }
  return { filters, search, limit, order, sort, fields, after };
}

/** GET /v1/subgraphs/:name/:table/aggregate. */
export function parseAggregateQuery(query: QueryInput, target: TableTarget): AggregateQuery {
  const { params, filters } = scanParams(query, target.meta, AGGREGATE_PARAMS, { aliases: false });
  const meta = target.meta;
  let count = false;
  if (params._count !== undefined) {
    if (params._count !== "true" && params._count !== "false") {
      throw badRequest(
        "INVALID_PARAMETER",
        `query parameter "_count" must be true or false; got ${JSON.stringify(params._count)}`,
        {
          parameter: "_count",
          value: params._count,
        },
      );
    }
    count = params._count === "true";
  }
  const lists = {
    countDistinct: splitList("_countDistinct", params._countDistinct),
    sum: splitList("_sum", params._sum),
    min: splitList("_min", params._min),
    max: splitList("_max", params._max),
  };
  // The limit counts the columns as listed, repeats included (the lists themselves are deduplicated).
  const total = [params._countDistinct, params._sum, params._min, params._max].reduce(
    (n, raw) => n + (raw === undefined ? 0 : raw.split(",").length),
    0,
  );
  if (total > MAX_AGGREGATE_COLUMNS) {
    throw badRequest(
      "TOO_MANY_AGGREGATES",
      `at most ${MAX_AGGREGATE_COLUMNS} aggregate columns per request; got ${total}`,
      {
        limit: MAX_AGGREGATE_COLUMNS,
        requested: total,
      },
    );
  }
  for (const [key, columns] of Object.entries(lists)) {
    const parameter = `_${key}`;
    for (const name of columns) {
      const column = knownColumn(parameter, name, meta);
      if (parameter !== "_countDistinct" && !isNumericColumn(name, column)) {
        const numeric = Object.entries(meta.columns)
          .filter(([n, c]) => isNumericColumn(n, c))
          .map(([n]) => n);
        throw badRequest(
          "NON_NUMERIC_COLUMN",
          `${parameter} needs a numeric column (uint, int, bigint or _block_height); ${JSON.stringify(name)} is ${column.type}` +
            (numeric.length ? `; numeric columns: ${numeric.join(", ")}` : "; this table has none"),
          { parameter, column: name, type: column.type, numeric },
        );
      }
    }
  }
  // No aggregate asked for (none named, or only `_count=false`): SPEC.md "With no aggregate
  // parameter the response is { count: <n> }".
  if (!count && total === 0) count = true;
  return { filters, search: null, count, ...lists };
}

/** GET /v1/subgraphs/:name/:table/stream. */
export function parseStreamQuery(query: QueryInput, target: TableTarget): StreamQuery {
  const { params, filters } = scanParams(query, target.meta, STREAM_PARAMS, { aliases: false });
  const since = parseIntegerParam("since", params.since, { min: 0 }) ?? null;
  return { filters, since };
}

/** The `:id` path segment: a positive integer (a row `_id`). */
export function parseRowId(raw: string): string {
  if (/^\d{1,19}$/.test(raw) && isInt8(raw) && BigInt(raw) > 0n) return BigInt(raw).toString();
  const suggestion = didYouMean(raw, ["count", "aggregate", "stream"]);
  throw badRequest(
    "INVALID_PARAMETER",
    `row id must be a positive integer (a row's _id); got ${JSON.stringify(raw.slice(0, 100))}` +
      (suggestion ? `; did you mean .../${suggestion}?` : ""),
    { parameter: "id", suggestion: suggestion ?? null },
  );
}

/** Rejects any query parameter on routes that take none (the single-row route). */
export function rejectAnyParams(query: QueryInput): void {
  for (const name of Object.keys(query)) {
    throw badRequest("UNKNOWN_PARAMETER", `unknown query parameter ${JSON.stringify(name)}; this route takes none`, {
      parameter: name,
      suggestion: null,
    });
  }
}

/** Row-set restriction of a list query (for count and tests). */
export function selectionOf(q: ListQuery): RowSelection {
  return { filters: q.filters, search: q.search };
}

interface Scanned {
  params: Record<string, string | undefined>;
  filters: Filter[];
}

/**
 * Sorts the parameters into the route's own (`reserved`) and column filters; anything else is
 * a 400. A column named like a refused alias (`order`, `sort`) is a filter, not the alias.
 */
function scanParams(
  query: QueryInput,
  meta: TableMeta,
  reserved: readonly string[],
  options: { aliases: boolean },
): Scanned {
  const params: Record<string, string | undefined> = {};
  const filters: Filter[] = [];
  for (const [name, raw] of Object.entries(query)) {
    if (reserved.includes(name)) {
      params[name] = singleParam(name, raw);
      continue;
    }
    const filter = parseFilterParam(name, raw, meta);
    if (filter) {
      filters.push(filter);
      continue;
    }
    if (options.aliases) rejectAlias(name);
    const suggestion = didYouMean(name, [...reserved, ...filterParamNames(meta)]);
    throw badRequest(
      "UNKNOWN_PARAMETER",
      `unknown query parameter ${JSON.stringify(name.slice(0, 200))}${suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : ""}`,
      { parameter: name.slice(0, 200), suggestion: suggestion ?? null },
    );
  }
  return { params, filters };
}

/** `<column>` or `<column>.<op>` for a column of the table, validated; null when `name` names no column. */
function parseFilterParam(name: string, raw: unknown, meta: TableMeta): Filter | null {
  let column = name;
  let op: string = "eq";
  if (!Object.hasOwn(meta.columns, name)) {
    const dot = name.lastIndexOf(".");
    if (dot <= 0 || !Object.hasOwn(meta.columns, name.slice(0, dot))) return null;
    column = name.slice(0, dot);
    op = name.slice(dot + 1);
  }
  const type = meta.columns[column].type;
  const allowed = Object.hasOwn(meta.filters, column) ? meta.filters[column] : [];
  const allowedNames = allowed.map((o) => (o === "eq" ? column : `${column}.${o}`));
  if (!(op === "eq" && name === column) && !OPERATOR_SUFFIXES.includes(op as FilterOperator)) {
    throw badRequest(
      "INVALID_FILTER",
      `unknown filter operator ${JSON.stringify(op.slice(0, 50))} on column ${JSON.stringify(column)}` +
        (allowedNames.length ? `; accepted: ${allowedNames.join(", ")}` : "; the column takes no filters"),
      { parameter: name.slice(0, 200), column, operator: op.slice(0, 50), allowed: allowedNames },
    );
  }
  const operator = op as FilterOperator;
  if (!allowed.includes(operator)) {
    throw badRequest(
      "INVALID_FILTER",
      `filter ${JSON.stringify(name)} is not available: column ${JSON.stringify(column)} (${type}) ` +
        (allowedNames.length ? `accepts ${allowedNames.join(", ")}` : "takes no filters"),
      { parameter: name, column, operator, type, allowed: allowedNames },
    );
  }
  const value = singleParam(name, raw) as string;
  if (operator === "like") {
    const problem = textProblem(value);
    if (problem) throw invalidFilterValue(name, column, type, problem, value);
    return { column, op: operator, value };
  }
  const check = checkColumnValue(meta.columns[column], value);
  if (!check.ok) throw invalidFilterValue(name, column, type, check.expected, value);
  return { column, op: operator, value: check.value };
}

function invalidFilterValue(parameter: string, column: string, type: string, expected: string, value: string) {
  return badRequest(
    "INVALID_FILTER",
    `filter ${JSON.stringify(parameter)}: column ${JSON.stringify(column)} (${type}) needs ${expected}; got ${JSON.stringify(value.slice(0, 100))}`,
    { parameter, column, type, expected },
  );
}

function parseSort(raw: string | undefined, meta: TableMeta, filters: readonly Filter[]): string {
  if (raw === undefined) return "_id";
  if (raw.includes(",")) {
    throw badRequest("SORT_NOT_SUPPORTED", `_sort takes exactly one column; got ${JSON.stringify(raw.slice(0, 200))}`, {
      parameter: "_sort",
      sortable: meta.sortable,
    });
  }
  if (!Object.hasOwn(meta.columns, raw)) {
    const bare = raw.replace(/^[-+]/, "");
    const suggestion = Object.hasOwn(meta.columns, bare) ? bare : didYouMean(raw, meta.sortable);
    const hint = raw.startsWith("-") && suggestion === bare ? " (use _order=desc for descending)" : "";
    throw badRequest(
      "INVALID_COLUMN",
      `_sort: unknown column ${JSON.stringify(raw.slice(0, 200))}${suggestion ? `; did you mean ${JSON.stringify(suggestion)}${hint}?` : ""}` +
        `; sortable: ${meta.sortable.join(", ")}`,
      { parameter: "_sort", column: raw.slice(0, 200), suggestion: suggestion ?? null, sortable: meta.sortable },
    );
  }
  const within = meta.sortWithin?.[raw];
  if (within !== undefined) {
    // Served by the (within, raw, _id) index, which orders rows only inside one value of `within`.
    if (filters.some((f) => f.column === within && f.op === "eq")) return raw;
    throw badRequest(
      "SORT_NOT_SUPPORTED",
      `_sort=${raw} needs an equality filter on ${within} (${within}=<value>): ${raw} is sorted only within one ${within}` +
        `; sortable without it: ${meta.sortable.join(", ")}`,
      { parameter: "_sort", column: raw, requires: within, sortable: meta.sortable },
    );
  }
  if (!meta.sortable.includes(raw)) {
    const type = meta.columns[raw].type;
    const why = type === "jsonb" ? "jsonb columns cannot be sorted" : "only indexed columns can be sorted";
    throw badRequest("SORT_NOT_SUPPORTED", `_sort=${raw}: ${why}; sortable: ${meta.sortable.join(", ")}`, {
      parameter: "_sort",
      column: raw,
      sortable: meta.sortable,
    });
  }
  return raw;
}

function parseSearch(raw: string | undefined, meta: TableMeta): string | null {
  if (raw === undefined) return null;
  if (meta.searchable.length === 0) {
    throw badRequest(
      "SEARCH_NOT_SUPPORTED",
      `table ${JSON.stringify(meta.name)} has no searchable column; use column filters`,
      {
        parameter: "_search",
      },
    );
  }
  const problem = raw === "" ? "at least one character" : textProblem(raw);
  if (problem) {
    throw badRequest("INVALID_PARAMETER", `query parameter "_search" must be ${problem}`, { parameter: "_search" });
  }
  return raw;
}

/** A comma-separated list (whitespace around names ignored), deduplicated; 400 when empty. */
function splitList(parameter: string, raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const problem = textProblem(raw);
  const names = raw.split(",").map((s) => s.trim());
  if (problem || names.some((n) => n === "")) {
    throw badRequest(
      "INVALID_PARAMETER",
      `query parameter ${JSON.stringify(parameter)} must be a comma-separated list of column names`,
      {
        parameter,
      },
    );
  }
  return [...new Set(names)];
}

function parseColumnList(parameter: string, raw: string, meta: TableMeta): string[] {
  const names = splitList(parameter, raw);
  for (const name of names) knownColumn(parameter, name, meta);
  return names;
}

function knownColumn(parameter: string, name: string, meta: TableMeta): ColumnMeta {
  if (Object.hasOwn(meta.columns, name)) return meta.columns[name];
  const columns = Object.keys(meta.columns);
  const suggestion = didYouMean(name, columns);
  throw badRequest(
    "INVALID_COLUMN",
    `${parameter}: unknown column ${JSON.stringify(name.slice(0, 200))}${suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : ""}` +
      `; columns: ${columns.join(", ")}`,
    { parameter, column: name.slice(0, 200), suggestion: suggestion ?? null },
  );
}
