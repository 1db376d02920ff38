/**
 * Query strings → typed queries or 400s (runtime/api/subgraphs/query/parse.ts), as given/want
 * tables: SPEC.md "List and count query parameters", "Filter grammar", "Aggregate endpoint".
 */
import { describe, expect, it } from "vitest";
import { encodeCursor } from "../../../../../runtime/api/subgraphs/query/cursor.js";
import {
  MAX_AGGREGATE_COLUMNS,
  filterParamNames,
  parseAggregateQuery,
  parseListQuery,
  parseRowId,
  parseStreamQuery,
} from "../../../../../runtime/api/subgraphs/query/parse.js";
import { ServiceError } from "../../../../../runtime/internal/errors.js";
import { flows, holdings, odd, unsearchable } from "../../../../support/subgraph-tables.js";

function failure(
  fn: () => unknown,
): { status: number; code: string; message: string; details?: Record<string, unknown> } | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return { status: err.status, code: err.code, message: err.message, details: err.details };
  }
}

describe("parseListQuery: accepted", () => {
  it("defaults: _limit 50, _order asc, _id keyset, every field, no filters", () => {
    expect(parseListQuery({}, holdings)).toEqual({
      filters: [],
      search: null,
      limit: 50,
      order: "asc",
      sort: "_id",
      fields: null,
      after: null,
    });
  });

  it("every list parameter and filters of every operator", () => {
    const q = parseListQuery(
      {
        _limit: "1000",
        _order: "desc",
        _sort: "holder",
        _fields: " amount , holder,amount",
        _search: "SP",
        kind: "ft",
        "amount.gte": "-12.5",
        "holder.like": "abc",
        "_created_at.gt": "2026-01-15",
      },
      holdings,
    );
    expect(q).toEqual({
      limit: 1000,
      order: "desc",
      sort: "holder",
      fields: ["amount", "holder"],
      search: "SP",
      after: null,
      filters: [
        { column: "kind", op: "eq", value: "ft" },
        { column: "amount", op: "gte", value: "-12.5" },
        { column: "holder", op: "like", value: "abc" },
        { column: "_created_at", op: "gt", value: "2026-01-15T00:00:00.000000+00:00" },
      ],
    });
  });

  it("a cursor issued for the same sort and order; an empty cursor reads from the start", () => {
    const cursor = encodeCursor(
      { table: "asset-holdings/holdings", sort: "holder", order: "desc" },
      { id: "9", sortValue: "SPX" },
    );
    expect(parseListQuery({ cursor, _sort: "holder", _order: "desc" }, holdings).after).toEqual({
      id: "9",
      sortValue: "SPX",
    });
    expect(parseListQuery({ cursor: "" }, holdings).after).toBeNull();
  });

  it("_sort=_id is the default keyset", () => {
    expect(parseListQuery({ _sort: "_id" }, holdings).sort).toBe("_id");
  });
});

describe("parseListQuery: 400s", () => {
  const cases: [string, Record<string, unknown>, string, Record<string, unknown>?][] = [
    ["_limit=0", { _limit: "0" }, "INVALID_PARAMETER", { parameter: "_limit" }],
    ["_limit=-3", { _limit: "-3" }, "INVALID_PARAMETER"],
    ["_limit=2.5", { _limit: "2.5" }, "INVALID_PARAMETER"],
    ["_limit=1001", { _limit: "1001" }, "INVALID_PARAMETER", { max: 1000 }],
    ["_limit=ten", { _limit: "ten" }, "INVALID_PARAMETER"],
    ["_order=sideways", { _order: "sideways" }, "INVALID_PARAMETER", { allowed: ["asc", "desc"] }],
    ["_offset", { _offset: "10" }, "INVALID_PARAMETER", { use: "cursor" }],
    ["bare limit", { limit: "10" }, "INVALID_PARAMETER", { use: "_limit" }],
    ["bare order", { order: "asc" }, "INVALID_PARAMETER", { use: "_order" }],
    ["bare sort", { sort: "kind" }, "INVALID_PARAMETER", { use: "_sort" }],
    ["unknown, close to a parameter", { _limits: "1" }, "UNKNOWN_PARAMETER", { suggestion: "_limit" }],
    ["unknown, close to a filter", { asset_identifer: "x" }, "UNKNOWN_PARAMETER", { suggestion: "asset_identifier" }],
    ["unknown, nothing close", { qqqqqq: "x" }, "UNKNOWN_PARAMETER", { suggestion: null }],
    ["prototype names are unknown", { __proto__x: "1", constructor: "1" }, "UNKNOWN_PARAMETER"],
    ["repeated", { _limit: ["1", "2"] }, "INVALID_PARAMETER"],
    ["_sort on two columns", { _sort: "kind,holder" }, "SORT_NOT_SUPPORTED"],
    ["_sort on a non-indexed column", { _sort: "amount" }, "SORT_NOT_SUPPORTED"],
    ["_sort on an unknown column", { _sort: "holdr" }, "INVALID_COLUMN", { suggestion: "holder" }],
    ["_fields unknown", { _fields: "kind,nope" }, "INVALID_COLUMN"],
    ["_fields empty entry", { _fields: "kind," }, "INVALID_PARAMETER"],
    ["_search empty", { _search: "" }, "INVALID_PARAMETER"],
    [
      "like on a number",
      { "amount.like": "1" },
      "INVALID_FILTER",
      { allowed: ["amount", "amount.neq", "amount.gt", "amount.gte", "amount.lt", "amount.lte"] },
    ],
    ["ordering on text", { "kind.gt": "a" }, "INVALID_FILTER"],
    ["unknown operator", { "kind.in": "a" }, "INVALID_FILTER"],
    ["explicit .eq", { "kind.eq": "a" }, "INVALID_FILTER"],
    ["non-numeric value", { "amount.gt": "12abc" }, "INVALID_FILTER", { column: "amount" }],
    ["exponent", { amount: "1e9" }, "INVALID_FILTER"],
    ["non-integer _id", { _id: "1.0" }, "INVALID_FILTER", { column: "_id" }],
    ["_block_height beyond bigint", { _block_height: "9223372036854775808" }, "INVALID_FILTER"],
    ["impossible date", { _created_at: "2025-02-29" }, "INVALID_FILTER"],
    ["NUL in a text value", { holder: "a\u0000b" }, "INVALID_FILTER"],
    ["huge text value", { holder: "x".repeat(5000) }, "INVALID_FILTER"],
    ["garbage cursor", { cursor: "nope" }, "INVALID_CURSOR"],
  ];
  for (const [name, query, code, details] of cases) {
    it(`${name} → 400 ${code}`, () => {
      const f = failure(() => parseListQuery(query, holdings));
      expect(f?.status).toBe(400);
      expect(f?.code).toBe(code);
      if (details) expect(f?.details).toMatchObject(details);
    });
  }

  it("_search on a table with no searchable column → SEARCH_NOT_SUPPORTED; a jsonb _sort → SORT_NOT_SUPPORTED", () => {
    expect(failure(() => parseListQuery({ _search: "x" }, unsearchable))?.code).toBe("SEARCH_NOT_SUPPORTED");
    expect(failure(() => parseListQuery({ _sort: "meta" }, odd))?.message).toContain("jsonb");
  });

  it("a cursor under another sort or order → INVALID_CURSOR", () => {
    const cursor = encodeCursor({ table: "asset-holdings/holdings", sort: "_id", order: "asc" }, { id: "9" });
    expect(failure(() => parseListQuery({ cursor, _order: "desc" }, holdings))?.code).toBe("INVALID_CURSOR");
    expect(failure(() => parseListQuery({ cursor, _sort: "kind" }, holdings))?.code).toBe("INVALID_CURSOR");
  });

  it("a column named like a refused alias is a filter, not the alias", () => {
    const withOrder = {
      ...odd,
      meta: {
        ...odd.meta,
        columns: { ...odd.meta.columns, order: odd.meta.columns.flag },
        filters: { ...odd.meta.filters, order: ["eq" as const] },
      },
    };
    expect(parseListQuery({ order: "true" }, withOrder).filters).toEqual([
      { column: "order", op: "eq", value: "true" },
    ]);
  });
});

describe("parseAggregateQuery", () => {
  it("lists, deduplicated per parameter; no aggregate → count", () => {
    expect(parseAggregateQuery({}, flows)).toEqual({
      filters: [],
      search: null,
      count: true,
      countDistinct: [],
      sum: [],
      min: [],
      max: [],
    });
    // `_count=false` alone asks for no aggregate: answered like no aggregate parameter.
    expect(parseAggregateQuery({ _count: "false" }, flows).count).toBe(true);
    expect(
      parseAggregateQuery({ _sum: "request_id,request_id,burn_height", _max: "_block_height", topic: "x" }, flows),
    ).toEqual({
      filters: [{ column: "topic", op: "eq", value: "x" }],
      search: null,
      count: false,
      countDistinct: [],
      sum: ["request_id", "burn_height"],
      min: [],
      max: ["_block_height"],
    });
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ["_sum on text", { _sum: "topic" }, "NON_NUMERIC_COLUMN"],
    ["_min on _id (serial)", { _min: "_id" }, "NON_NUMERIC_COLUMN"],
    ["_max on a timestamp", { _max: "_created_at" }, "NON_NUMERIC_COLUMN"],
    ["_sum on an unknown column", { _sum: "nope" }, "INVALID_COLUMN"],
    ["_countDistinct on an unknown column", { _countDistinct: "nope" }, "INVALID_COLUMN"],
    ["_count=1", { _count: "1" }, "INVALID_PARAMETER"],
    ["_sum empty", { _sum: "" }, "INVALID_PARAMETER"],
    ["_limit is not an aggregate parameter", { _limit: "5" }, "UNKNOWN_PARAMETER"],
    ["a bad filter", { "request_id.gt": "x" }, "INVALID_FILTER"],
  ];
  for (const [name, query, code] of cases) {
    it(`${name} → 400 ${code}`, () => {
      expect(failure(() => parseAggregateQuery(query, flows))?.code).toBe(code);
    });
  }

  it(`more than ${MAX_AGGREGATE_COLUMNS} columns → TOO_MANY_AGGREGATES, counted across parameters before names are checked`, () => {
    const many = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`).join(",");
    expect(failure(() => parseAggregateQuery({ _countDistinct: many(33, "c") }, flows))?.code).toBe(
      "TOO_MANY_AGGREGATES",
    );
    expect(
      failure(() => parseAggregateQuery({ _countDistinct: many(20, "c"), _sum: many(13, "s") }, flows))?.code,
    ).toBe("TOO_MANY_AGGREGATES");
    expect(failure(() => parseAggregateQuery({ _countDistinct: many(32, "c") }, flows))?.code).toBe("INVALID_COLUMN");
  });

  it("columns count as listed: 33 repeats of one column are TOO_MANY_AGGREGATES, 32 are one aggregate", () => {
    const repeated = (n: number) => Array.from({ length: n }, () => "request_id").join(",");
    expect(failure(() => parseAggregateQuery({ _sum: repeated(33) }, flows))?.code).toBe("TOO_MANY_AGGREGATES");
    expect(parseAggregateQuery({ _sum: repeated(32) }, flows).sum).toEqual(["request_id"]);
  });
});

describe("parseStreamQuery, parseRowId, filterParamNames", () => {
  it("since and filters; other parameters are unknown", () => {
    expect(parseStreamQuery({ since: "12", kind: "ft" }, holdings)).toEqual({
      since: 12,
      filters: [{ column: "kind", op: "eq", value: "ft" }],
    });
    expect(parseStreamQuery({}, holdings)).toEqual({ since: null, filters: [] });
    expect(failure(() => parseStreamQuery({ since: "-1" }, holdings))?.code).toBe("INVALID_PARAMETER");
    expect(failure(() => parseStreamQuery({ _limit: "1" }, holdings))?.code).toBe("UNKNOWN_PARAMETER");
    expect(failure(() => parseStreamQuery({ _search: "x" }, holdings))?.code).toBe("UNKNOWN_PARAMETER");
  });

  it("row ids are positive integers; a near miss of a route word is suggested", () => {
    expect(parseRowId("0042")).toBe("42");
    for (const bad of ["0", "-1", "1.0", "x", "", "99999999999999999999"])
      expect(failure(() => parseRowId(bad))?.code).toBe("INVALID_PARAMETER");
    expect(failure(() => parseRowId("coutn"))?.details?.suggestion).toBe("count");
  });

  it("lists every filter parameter of a table", () => {
    expect(filterParamNames(holdings.meta)).toContain("amount.lte");
    expect(filterParamNames(holdings.meta)).toContain("kind");
    expect(filterParamNames(holdings.meta)).not.toContain("amount.like");
  });
});
