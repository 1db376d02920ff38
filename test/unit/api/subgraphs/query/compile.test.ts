/**
 * Typed queries → SQL text and parameters (runtime/api/subgraphs/query/compile.ts): keyset
 * predicates as row values, NULL segments, filters cast to the column type, LIKE escaping,
 * identifier quoting and values that never reach the SQL text.
 */
import { describe, expect, it } from "vitest";
import {
  compileAggregate,
  compileCount,
  compileExistingIds,
  compileListPage,
  compileMaxId,
  compileRowById,
  compileResumeForkPoint,
  compileStreamBatch,
  compileTableHead,
  escapeLike,
} from "../../../../../runtime/api/subgraphs/query/compile.js";
import { parseAggregateQuery, parseListQuery } from "../../../../../runtime/api/subgraphs/query/parse.js";
import type { ListQuery } from "../../../../../runtime/api/subgraphs/query/types.js";
import { flows, holdings, odd } from "../../../../support/subgraph-tables.js";

const CREATED = `to_char("_created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "_created_at"`;
const H_COLS = `"kind", "amount", "holder", "asset_identifier", "_id", "_block_height", "_tx_id", ${CREATED}`;
const F_COLS = `"topic", "amount", "sender", "request_id", "burn_height", "bitcoin_txid", "_id", "_block_height", "_tx_id", ${CREATED}`;
const H = `"sg_asset_holdings"."holdings"`;
const F = `"sg_sbtc_flows"."flows"`;

const list = (over: Partial<ListQuery>): ListQuery => ({
  filters: [],
  search: null,
  limit: 50,
  order: "asc",
  sort: "_id",
  fields: null,
  after: null,
  ...over,
});

describe("compileListPage: keyset pages", () => {
  const cases: {
    name: string;
    target: typeof holdings;
    q: ListQuery;
    want: { sql: string; params: (string | null)[] }[];
  }[] = [
    {
      name: "_id asc, first page",
      target: holdings,
      q: list({}),
      want: [{ sql: `SELECT ${H_COLS} FROM ${H} ORDER BY "_id" ASC LIMIT $1::int`, params: ["51"] }],
    },
    {
      name: "_id desc after a cursor",
      target: holdings,
      q: list({ order: "desc", after: { id: "77" }, limit: 10 }),
      want: [
        {
          sql: `SELECT ${H_COLS} FROM ${H} WHERE "_id" < $1::bigint ORDER BY "_id" DESC LIMIT $2::int`,
          params: ["77", "11"],
        },
      ],
    },
    {
      name: "_sort on a NOT NULL column: one row-value predicate on (col, _id)",
      target: holdings,
      q: list({
        sort: "holder",
        after: { id: "5", sortValue: "SP9" },
        filters: [{ column: "kind", op: "eq", value: "ft" }],
      }),
      want: [
        {
          sql:
            `SELECT ${H_COLS}, "holder"::text AS "sluice:k" FROM ${H} WHERE "kind" = $1::text AND ("holder", "_id") > ($2::text, $3::bigint)` +
            ` ORDER BY "holder" ASC, "_id" ASC LIMIT $4::int`,
          params: ["ft", "SP9", "5", "51"],
        },
      ],
    },
    {
      name: "nullable _sort asc, first page: values, then NULLs",
      target: flows,
      q: list({ sort: "request_id" }),
      want: [
        {
          sql: `SELECT ${F_COLS}, "request_id"::text AS "sluice:k" FROM ${F} WHERE "request_id" IS NOT NULL ORDER BY "request_id" ASC, "_id" ASC LIMIT $1::int`,
          params: ["51"],
        },
        {
          sql: `SELECT ${F_COLS}, "request_id"::text AS "sluice:k" FROM ${F} WHERE "request_id" IS NULL ORDER BY "_id" ASC LIMIT $1::int`,
          params: ["51"],
        },
      ],
    },
    {
      name: "nullable _sort asc after a value: the rest of the values, then NULLs",
      target: flows,
      q: list({ sort: "request_id", after: { id: "3", sortValue: "12" } }),
      want: [
        {
          sql:
            `SELECT ${F_COLS}, "request_id"::text AS "sluice:k" FROM ${F} WHERE ("request_id", "_id") > ($1::numeric, $2::bigint)` +
            ` ORDER BY "request_id" ASC, "_id" ASC LIMIT $3::int`,
          params: ["12", "3", "51"],
        },
        {
          sql: `SELECT ${F_COLS}, "request_id"::text AS "sluice:k" FROM ${F} WHERE "request_id" IS NULL ORDER BY "_id" ASC LIMIT $1::int`,
          params: ["51"],
        },
      ],
    },
    {
      name: "nullable _sort asc inside the NULL run",
      target: flows,
      q: list({ sort: "request_id", after: { id: "40", sortValue: null } }),
      want: [
        {
          sql: `SELECT ${F_COLS}, "request_id"::text AS "sluice:k" FROM ${F} WHERE "request_id" IS NULL AND "_id" > $1::bigint ORDER BY "_id" ASC LIMIT $2::int`,
          params: ["40", "51"],
        },
      ],
    },
    {
      name: "nullable _sort desc: NULLs first, then values",
      target: flows,
      q: list({ sort: "request_id", order: "desc", after: { id: "40", sortValue: null } }),
      want: [
        {
          sql: `SELECT ${F_COLS}, "request_id"::text AS "sluice:k" FROM ${F} WHERE "request_id" IS NULL AND "_id" < $1::bigint ORDER BY "_id" DESC LIMIT $2::int`,
          params: ["40", "51"],
        },
        {
          sql: `SELECT ${F_COLS}, "request_id"::text AS "sluice:k" FROM ${F} WHERE "request_id" IS NOT NULL ORDER BY "request_id" DESC, "_id" DESC LIMIT $1::int`,
          params: ["51"],
        },
      ],
    },
    {
      name: "nullable _sort desc after a value: only values remain",
      target: flows,
      q: list({ sort: "request_id", order: "desc", after: { id: "3", sortValue: "12" } }),
      want: [
        {
          sql:
            `SELECT ${F_COLS}, "request_id"::text AS "sluice:k" FROM ${F} WHERE ("request_id", "_id") < ($1::numeric, $2::bigint)` +
            ` ORDER BY "request_id" DESC, "_id" DESC LIMIT $3::int`,
          params: ["12", "3", "51"],
        },
      ],
    },
    {
      name: "_fields selects the fields plus _id and the sort column; a timestamp sort key is ISO text",
      target: odd,
      q: list({ sort: "at", fields: ["flag"] }),
      want: [
        {
          sql:
            `SELECT "flag", to_char("at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "at", "_id", ` +
            `to_char("at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "sluice:k" FROM "sg_o""dd"."we""ird" ORDER BY "at" ASC, "_id" ASC LIMIT $1::int`,
          params: ["51"],
        },
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(compileListPage(c.target, c.q)).toEqual(c.want);
    });
  }
});

describe("filters and search", () => {
  it("each operator, cast to the column's type; neq on a nullable column keeps NULLs", () => {
    const q = parseListQuery(
      {
        topic: "a",
        "sender.neq": "S",
        "request_id.gt": "1",
        "request_id.gte": "2",
        "burn_height.lt": "3",
        "burn_height.lte": "4",
        "_id.neq": "5",
        "_block_height.gte": "6",
        "_created_at.lt": "2026-01-15T10:20:30.5+02:00",
        "_created_at.like": "2026-01",
        "amount.like": "10",
      },
      flows,
    );
    expect(compileCount(flows, q)).toEqual({
      sql:
        `SELECT count(*) AS count FROM ${F} WHERE "topic" = $1::text AND "sender" IS DISTINCT FROM $2::text` +
        ` AND "request_id" > $3::numeric AND "request_id" >= $4::numeric AND "burn_height" < $5::numeric` +
        ` AND "burn_height" <= $6::numeric AND "_id" <> $7::bigint AND "_block_height" >= $8::bigint` +
        ` AND "_created_at" < $9::timestamptz` +
        ` AND to_char("_created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') ILIKE $10 ESCAPE '\\'` +
        ` AND "amount" ILIKE $11 ESCAPE '\\'`,
      params: ["a", "S", "1", "2", "3", "4", "5", "6", "2026-01-15T10:20:30.500000+02:00", "%2026-01%", "%10%"],
    });
  });

  it("_search ORs a contains-test over every searchable column with one parameter", () => {
    const q = parseListQuery({ _search: "abc" }, holdings);
    expect(compileCount(holdings, q)).toEqual({
      sql: `SELECT count(*) AS count FROM ${H} WHERE ("holder" ILIKE $1 ESCAPE '\\' OR "asset_identifier" ILIKE $1 ESCAPE '\\')`,
      params: ["%abc%"],
    });
  });

  it("LIKE metacharacters are escaped so they match literally", () => {
    expect(escapeLike("50%_off\\")).toBe("50\\%\\_off\\\\");
    const q = parseListQuery({ "holder.like": "a%b_c\\d" }, holdings);
    expect(compileCount(holdings, q).params).toEqual(["%a\\%b\\_c\\\\d%"]);
  });

  it("injection attempts stay in the parameters; identifiers are quoted with doubled quotes", () => {
    const evil = `x"; DROP TABLE chain.blocks; --' OR '1'='1`;
    const q = parseListQuery({ 'na"me': evil, 'na"me.like': evil, _search: evil }, odd);
    const { sql, params } = compileCount(odd, q);
    expect(sql).toBe(
      `SELECT count(*) AS count FROM "sg_o""dd"."we""ird" WHERE "na""me" = $1::text AND "na""me" ILIKE $2 ESCAPE '\\' AND "na""me" ILIKE $3 ESCAPE '\\'`,
    );
    expect(sql).not.toContain("DROP");
    expect(params).toEqual([
      evil,
      `%${evil.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      `%${evil.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    ]);
  });

  it("boolean and non-text contains-tests cast the column to text", () => {
    const q = parseListQuery({ flag: "true", "n.lte": "9" }, odd);
    expect(compileCount(odd, q).sql).toBe(
      `SELECT count(*) AS count FROM "sg_o""dd"."we""ird" WHERE "flag" = $1::boolean AND "n" <= $2::numeric`,
    );
  });
});

describe("aggregates, single rows, streams", () => {
  it("one statement with lossless text for sum/min/max and COALESCE(sum, 0)", () => {
    const q = parseAggregateQuery(
      {
        _count: "true",
        _countDistinct: "topic,sender",
        _sum: "request_id",
        _min: "burn_height",
        _max: "_block_height",
        topic: "t",
      },
      flows,
    );
    expect(compileAggregate(flows, q)).toEqual({
      query: {
        sql:
          `SELECT count(*) AS a0, count(DISTINCT "topic") AS a1, count(DISTINCT "sender") AS a2, COALESCE(sum("request_id"), 0)::text AS a3,` +
          ` min("burn_height")::text AS a4, max("_block_height")::text AS a5 FROM ${F} WHERE "topic" = $1::text`,
        params: ["t"],
      },
      outputs: [
        { kind: "count", column: null, alias: "a0" },
        { kind: "countDistinct", column: "topic", alias: "a1" },
        { kind: "countDistinct", column: "sender", alias: "a2" },
        { kind: "sum", column: "request_id", alias: "a3" },
        { kind: "min", column: "burn_height", alias: "a4" },
        { kind: "max", column: "_block_height", alias: "a5" },
      ],
    });
  });

  it("a row by id; the table head; existing ids", () => {
    expect(compileRowById(holdings, "12")).toEqual({
      sql: `SELECT ${H_COLS} FROM ${H} WHERE "_id" = $1::bigint`,
      params: ["12"],
    });
    expect(compileMaxId(holdings)).toEqual({ sql: `SELECT COALESCE(max("_id"), 0) AS id FROM ${H}`, params: [] });
    expect(compileMaxId(holdings, "9")).toEqual({
      sql: `SELECT COALESCE(max("_id"), 0) AS id FROM ${H} WHERE "_id" < $1::bigint`,
      params: ["9"],
    });
    expect(compileTableHead(odd)).toEqual({
      sql: `SELECT COALESCE(max("_id"), 0) AS id, $1::regclass::oid AS oid FROM "sg_o""dd"."we""ird"`,
      params: ['"sg_o""dd"."we""ird"'],
    });
    expect(compileResumeForkPoint(holdings, "7").params).toEqual(["7"]);
    expect(compileExistingIds(holdings, ["3", "4"])).toEqual({
      sql: `SELECT "_id" AS id FROM ${H} WHERE "_id" = ANY($1::bigint[])`,
      params: ["{3,4}"],
    });
  });

  it("a stream batch: after an id, at or above since, filtered, in _id order", () => {
    expect(compileStreamBatch(holdings, [{ column: "kind", op: "eq", value: "ft" }], 100, "5", 500)).toEqual({
      sql:
        `SELECT ${H_COLS} FROM ${H} WHERE "_id" > $1::bigint AND "_block_height" >= $2::bigint AND "kind" = $3::text` +
        ` ORDER BY "_id" ASC LIMIT $4::int`,
      params: ["5", "100", "ft", "500"],
    });
    expect(compileStreamBatch(holdings, [], null, "0", 10).params).toEqual(["0", "10"]);
  });
});
