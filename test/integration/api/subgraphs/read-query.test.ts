/**
 * The subgraph read routes over real HTTP on simulated rows inserted into the real generated
 * tables (SPEC.md "List and count query parameters", "Filter grammar", "Aggregate endpoint",
 * "System columns"): keyset walks in both orders and under every `_sort` see every row once,
 * in the model's order, and agree with /count; filters, `_search` and `_fields` equal an
 * independent filter of the rows; aggregates equal an independent BigInt computation.
 * Runs on PGlite, and on PostgreSQL with SLUICE_TEST_DB=postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../../runtime/service.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { startTestService } from "../../../support/service.js";
import {
  type ModelRow,
  type ModelTable,
  type Op,
  distinctCount,
  getJson,
  intBetween,
  modelAggregate,
  modelFilter,
  modelSort,
  PLAIN_SPEC,
  pickOne,
  prng,
  seedFlows,
  seedPlain,
  seedHoldings,
  seedNames,
  walk,
} from "../../../support/subgraph-read.js";

const SEED = process.env.SUBGRAPH_READ_SEED ?? "subgraph-read-query-1";

let testDb: TestDb;
let service: Service;
let base: string;
let holdings: ModelTable;
let flows: ModelTable;
let names: ModelTable;
let plain: ModelTable;

beforeAll(async () => {
  console.log(`subgraph-read-query seed: ${SEED}`);
  testDb = await createTestDb();
  service = await startTestService(testDb.db);
  base = service.apiUrl;
  holdings = await seedHoldings(testDb.db, `${SEED}/holdings`, 400);
  flows = await seedFlows(testDb.db, `${SEED}/flows`, 160);
  names = await seedNames(testDb.db, `${SEED}/names`, 120);
  await service.subgraphs.deploy(PLAIN_SPEC, "yaml");
  plain = await seedPlain(testDb.db, `${SEED}/plain`, 90);
});

afterAll(async () => {
  await service?.stop();
  await testDb?.drop();
});

const pathOf = (t: ModelTable) => `/v1/subgraphs/${t.subgraph}/${t.table}`;
const idsOf = (rows: ModelRow[]) => rows.map((r) => r._id);
const tables = () => [holdings, flows, names, plain];
const SORTABLE: Record<string, string[]> = {
  // asset-holdings sets blockHeightIndex: false (its rows are rewritten every block).
  holdings: ["kind", "holder", "asset_identifier", "_id"],
  flows: ["topic", "sender", "request_id", "_id", "_block_height"],
  names: ["fqn", "name", "owner", "topic", "namespace", "_id", "_block_height"],
  items: ["flag", "happened", "big", "_id", "_block_height"],
};

describe("list rows: envelope and system columns", () => {
  it("every row has every column; _id integer; numbers as digit strings; _created_at ISO 8601", async () => {
    for (const t of tables()) {
      const page = await getJson<{ rows: ModelRow[]; next_cursor: string | null; tip: Record<string, number> }>(
        `${base}${pathOf(t)}?_limit=1000`,
      );
      expect(Object.keys(page).sort()).toEqual(["next_cursor", "rows", "tip"]);
      expect(page.next_cursor).toBeNull();
      expect(Object.keys(page.tip).sort()).toEqual(["block_height", "blocks_behind", "subgraph_height"]);
      for (const v of Object.values(page.tip)) expect(Number.isInteger(v)).toBe(true);
      expect(page.rows).toEqual(modelSort(t, t.rows, "_id", "asc"));
      for (const row of page.rows) {
        expect(Number.isInteger(row._id)).toBe(true);
        expect(row._block_height).toMatch(/^-?\d+(\.\d+)?$/);
        expect(typeof row._tx_id).toBe("string");
        expect(row._created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
        expect(Number.isNaN(Date.parse(row._created_at as string))).toBe(false);
      }
    }
    for (const row of holdings.rows) expect(row.amount).toMatch(/^-?\d+$/);
  });

  it("default _limit is 50 and the first page is the lowest ids", async () => {
    const page = await getJson<{ rows: ModelRow[]; next_cursor: string | null }>(`${base}${pathOf(holdings)}`);
    expect(page.rows).toHaveLength(50);
    expect(idsOf(page.rows)).toEqual(idsOf(modelSort(holdings, holdings.rows, "_id", "asc")).slice(0, 50));
    expect(typeof page.next_cursor).toBe("string");
  });

  it("GET .../:id returns the row; an unknown id is 404 ROW_NOT_FOUND", async () => {
    const row = pickOne(prng(SEED), holdings.rows);
    expect(await getJson(`${base}${pathOf(holdings)}/${row._id}`)).toEqual(row);
    const res = await fetch(`${base}${pathOf(holdings)}/999999999`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe("ROW_NOT_FOUND");
  });
});

describe("keyset walks", () => {
  it("every table, every sortable column, both orders: each row once, in order, count agrees", async () => {
    for (const t of tables()) {
      const count = (await getJson<{ count: number }>(`${base}${pathOf(t)}/count`)).count;
      expect(count).toBe(t.rows.length);
      for (const sort of SORTABLE[t.table]) {
        for (const order of ["asc", "desc"] as const) {
          for (const limit of [7, 1000]) {
            const params: Record<string, string> = { _order: order };
            if (sort !== "_id") params._sort = sort;
            const rows = await walk(base, pathOf(t), params, limit);
            expect(new Set(idsOf(rows)).size, `${t.table} _sort=${sort} ${order} limit ${limit}: duplicates`).toBe(
              rows.length,
            );
            expect(rows.length).toBe(count);
            expect(rows, `${t.table} _sort=${sort} ${order} limit ${limit}`).toEqual(modelSort(t, t.rows, sort, order));
          }
        }
      }
    }
  });

  it("a limit of 1 walks the whole table (both orders) and a page ending exactly at the last row has next_cursor null", async () => {
    for (const order of ["asc", "desc"] as const) {
      const rows = await walk(base, pathOf(names), { _order: order, _sort: "owner" }, 1);
      expect(rows).toEqual(modelSort(names, names.rows, "owner", order));
    }
    const n = flows.rows.length;
    const exact = await getJson<{ rows: ModelRow[]; next_cursor: string | null }>(
      `${base}${pathOf(flows)}?_limit=${n}`,
    );
    expect(exact.rows).toHaveLength(n);
    expect(exact.next_cursor).toBeNull();
  });

  it("_fields projects the columns asked for, in that order, and pagination still works under a _sort", async () => {
    const rows = await walk(base, pathOf(holdings), { _fields: "amount,holder", _sort: "holder", _order: "desc" }, 9);
    const want = modelSort(holdings, holdings.rows, "holder", "desc").map((r) => ({
      amount: r.amount,
      holder: r.holder,
    }));
    expect(rows).toEqual(want);
    for (const r of rows) expect(Object.keys(r)).toEqual(["amount", "holder"]);
    const flowsRows = await walk(base, pathOf(flows), { _fields: "topic", _sort: "request_id" }, 5);
    expect(flowsRows).toEqual(modelSort(flows, flows.rows, "request_id", "asc").map((r) => ({ topic: r.topic })));
  });

  it("filters combine with sorts and walks", async () => {
    const holder = holdings.rows[3].holder as string;
    const rows = await walk(
      base,
      pathOf(holdings),
      { kind: "ft", "amount.gt": "0", _sort: "holder", _order: "desc" },
      4,
    );
    const keep = (r: ModelRow) => r.kind === "ft" && BigInt(r.amount as string) > 0n;
    expect(rows).toEqual(modelSort(holdings, holdings.rows.filter(keep), "holder", "desc"));
    const flowsByHeight = await walk(
      base,
      pathOf(flows),
      { "request_id.gte": "0", _sort: "_block_height", _order: "desc" },
      3,
    );
    const withRequest = (r: ModelRow) => r.request_id !== null && BigInt(r.request_id as string) >= 0n;
    expect(flowsByHeight).toEqual(modelSort(flows, flows.rows.filter(withRequest), "_block_height", "desc"));
    // Without its index, _block_height still filters on holdings but does not sort.
    const recent = await walk(base, pathOf(holdings), { "_block_height.gte": "3", _sort: "holder" }, 5);
    const sinceThree = holdings.rows.filter((r) => BigInt(r._block_height as string) >= 3n);
    expect(recent).toEqual(modelSort(holdings, sinceThree, "holder", "asc"));
    const refused = await fetch(`${base}${pathOf(holdings)}?_sort=_block_height`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { code: string }).code).toBe("SORT_NOT_SUPPORTED");
    const mine = await walk(base, pathOf(holdings), { holder }, 2);
    expect(mine).toEqual(
      modelSort(
        holdings,
        holdings.rows.filter((r) => r.holder === holder),
        "_id",
        "asc",
      ),
    );
  });
});

/** Random filters drawn from the model: column, operator allowed for its type, and a value. */
function randomFilters(t: ModelTable, rand: () => number, allowed: Record<string, Op[]>): [string, Op, string][] {
  const count = intBetween(rand, 1, 2);
  const out: [string, Op, string][] = [];
  for (let i = 0; i < count; i++) {
    const column = pickOne(rand, Object.keys(allowed));
    const op = pickOne(rand, allowed[column]);
    const sample = pickOne(rand, t.rows);
    let value =
      sample[column] === null
        ? String(
            pickOne(
              rand,
              t.rows.filter((r) => r[column] !== null),
            )[column],
          )
        : String(sample[column]);
    if (op === "like")
      value = value
        .slice(intBetween(rand, 0, Math.max(0, value.length - 3)), intBetween(rand, 2, value.length))
        .toLowerCase();
    if (t.types[column] === "time" && rand() < 0.4) value = value.slice(0, 10);
    out.push([column, op, value]);
  }
  return out;
}

const NUMERIC_OPS: Op[] = ["eq", "neq", "gt", "gte", "lt", "lte"];
const TEXT_OPS: Op[] = ["eq", "neq", "like"];
const TIME_OPS: Op[] = ["eq", "neq", "like", "gt", "gte", "lt", "lte"];
function allowedOps(t: ModelTable): Record<string, Op[]> {
  const ops = (type: string): Op[] =>
    type === "num" || type === "id"
      ? NUMERIC_OPS
      : type === "time"
        ? TIME_OPS
        : type === "bool"
          ? ["eq", "neq"]
          : TEXT_OPS;
  return Object.fromEntries(
    Object.entries(t.types)
      .filter(([, type]) => type !== "json")
      .map(([c, type]) => [c, ops(type)]),
  );
}
const paramName = (column: string, op: Op) => (op === "eq" ? column : `${column}.${op}`);

describe("filters equal an independent filter over the rows", () => {
  it("random filter combinations on every table: list (walked) and count", async () => {
    const rand = prng(`${SEED}/filters`);
    let selective = 0;
    for (const t of tables()) {
      for (let i = 0; i < 40; i++) {
        const filters = randomFilters(t, rand, allowedOps(t));
        const params: Record<string, string> = {};
        for (const [c, op, v] of filters) params[paramName(c, op)] = v;
        let want = t.rows;
        for (const [c, op, v] of Object.entries(params).map(([k, v]) => {
          const [c, op] = k.includes(".") ? (k.split(".") as [string, Op]) : [k, "eq" as Op];
          return [c, op, v] as const;
        })) {
          want = want.filter(modelFilter(t, c, op, v));
        }
        const label = `${t.table} ${new URLSearchParams(params)}`;
        if (want.length > 0 && want.length < t.rows.length) selective++;
        const rows = await walk(base, pathOf(t), params, 250);
        expect(rows, label).toEqual(modelSort(t, want, "_id", "asc"));
        const { count } = await getJson<{ count: number }>(`${base}${pathOf(t)}/count?${new URLSearchParams(params)}`);
        expect(count, label).toBe(want.length);
      }
    }
    // The draw must exercise real selections, not only empty or full ones.
    expect(selective).toBeGreaterThan(40);
  });

  it(".neq on a nullable column keeps NULL rows; .like is case-insensitive contains and escapes % and _", async () => {
    const sender = flows.rows.find((r) => r.sender !== null)?.sender as string;
    const rows = await walk(base, pathOf(flows), { "sender.neq": sender }, 1000);
    expect(idsOf(rows)).toEqual(idsOf(flows.rows.filter((r) => r.sender !== sender)));
    expect(rows.some((r) => r.sender === null)).toBe(true);
    const lower = holdings.rows[0].holder?.toString().slice(2, 7).toLowerCase() as string;
    const liked = await walk(base, pathOf(holdings), { "holder.like": lower }, 1000);
    expect(idsOf(liked)).toEqual(idsOf(holdings.rows.filter((r) => String(r.holder).toLowerCase().includes(lower))));
    for (const wildcard of ["%", "_", "\\", "S_"]) {
      const res = await getJson<{ count: number }>(
        `${base}${pathOf(holdings)}/count?${new URLSearchParams({ "holder.like": wildcard })}`,
      );
      expect(res.count, wildcard).toBe(holdings.rows.filter((r) => String(r.holder).includes(wildcard)).length);
    }
  });

  it("a value with SQL in it is only a value", async () => {
    for (const v of ["'; DROP TABLE sg_asset_holdings.holdings; --", "x' OR '1'='1", '") OR true --']) {
      const res = await getJson<{ count: number }>(
        `${base}${pathOf(holdings)}/count?${new URLSearchParams({ holder: v })}`,
      );
      expect(res.count).toBe(0);
    }
    expect((await getJson<{ count: number }>(`${base}${pathOf(holdings)}/count`)).count).toBe(holdings.rows.length);
  });

  it("_created_at filters round-trip the rendered microsecond value", async () => {
    const row = holdings.rows[10];
    const eq = await walk(base, pathOf(holdings), { _created_at: row._created_at as string }, 50);
    expect(idsOf(eq)).toEqual(idsOf(holdings.rows.filter((r) => r._created_at === row._created_at)));
    const gt = await getJson<{ count: number }>(`${base}${pathOf(holdings)}/count?_created_at.gt=${row._created_at}`);
    expect(gt.count).toBe(holdings.rows.filter((r) => (r._created_at as string) > (row._created_at as string)).length);
  });

  it("_search matches any searchable column, case-insensitively", async () => {
    const rand = prng(`${SEED}/search`);
    const searchable: Record<string, string[]> = {
      holdings: ["holder", "asset_identifier"],
      flows: ["topic", "bitcoin_txid"],
      names: ["fqn", "name", "owner", "namespace"],
    };
    for (const t of [holdings, flows, names]) {
      for (let i = 0; i < 8; i++) {
        const row = pickOne(rand, t.rows);
        const column = pickOne(
          rand,
          searchable[t.table].filter((c) => row[c] !== null),
        );
        const text = String(row[column]);
        const term = text.slice(0, Math.min(text.length, intBetween(rand, 3, 8)));
        const want = t.rows.filter((r) =>
          searchable[t.table].some((c) => r[c] !== null && String(r[c]).toLowerCase().includes(term.toLowerCase())),
        );
        const rows = await walk(base, pathOf(t), { _search: term.toUpperCase() }, 500);
        expect(idsOf(rows), `${t.table} _search=${term}`).toEqual(idsOf(modelSort(t, want, "_id", "asc")));
        const { count } = await getJson<{ count: number }>(
          `${base}${pathOf(t)}/count?_search=${encodeURIComponent(term)}`,
        );
        expect(count).toBe(want.length);
      }
    }
  });
});

describe("aggregates equal an independent BigInt computation", () => {
  const NUMERIC: Record<string, string[]> = {
    holdings: ["amount", "_block_height"],
    flows: ["request_id", "burn_height", "_block_height"],
    names: ["_block_height"],
    items: ["big", "_block_height"],
  };

  it("count, countDistinct, sum, min and max with random filters (including empty sets)", async () => {
    const rand = prng(`${SEED}/aggregates`);
    for (const t of tables()) {
      const numeric = NUMERIC[t.table];
      const all = Object.keys(t.types);
      for (let i = 0; i < 15; i++) {
        const params: Record<string, string> = {};
        let want = t.rows;
        if (i > 0) {
          for (const [c, op, v] of randomFilters(t, rand, allowedOps(t))) {
            params[paramName(c, op)] = v;
          }
          for (const [k, v] of Object.entries(params)) {
            const [c, op] = k.includes(".") ? (k.split(".") as [string, Op]) : [k, "eq" as Op];
            want = want.filter(modelFilter(t, c, op, v));
          }
        }
        if (i === 14) {
          params["_block_height.lt"] = "-5";
          want = [];
        }
        const qs = new URLSearchParams({
          ...params,
          _count: "true",
          _countDistinct: all.join(","),
          _sum: numeric.join(","),
          _min: numeric.join(","),
          _max: numeric.join(","),
        });
        const got = await getJson<Record<string, Record<string, unknown> | number>>(
          `${base}${pathOf(t)}/aggregate?${qs}`,
        );
        const expected = {
          count: want.length,
          countDistinct: Object.fromEntries(all.map((c) => [c, distinctCount(want, c)])),
          sum: Object.fromEntries(numeric.map((c) => [c, modelAggregate(want, c).sum])),
          min: Object.fromEntries(numeric.map((c) => [c, modelAggregate(want, c).min])),
          max: Object.fromEntries(numeric.map((c) => [c, modelAggregate(want, c).max])),
        };
        expect(got, `${t.table} ${qs}`).toEqual(expected);
      }
    }
  });

  it("no aggregate parameter gives { count }; only the requested aggregates are present", async () => {
    expect(await getJson(`${base}${pathOf(holdings)}/aggregate`)).toEqual({ count: holdings.rows.length });
    expect(await getJson(`${base}${pathOf(holdings)}/aggregate?kind=stx`)).toEqual({
      count: holdings.rows.filter((r) => r.kind === "stx").length,
    });
    expect(await getJson(`${base}${pathOf(holdings)}/aggregate?_sum=amount`)).toEqual({
      sum: { amount: modelAggregate(holdings.rows, "amount").sum },
    });
    expect(await getJson(`${base}${pathOf(holdings)}/aggregate?_count=false`)).toEqual({ count: holdings.rows.length });
    expect(await getJson(`${base}${pathOf(holdings)}/aggregate?_count=false&_max=_block_height`)).toEqual({
      max: { _block_height: modelAggregate(holdings.rows, "_block_height").max },
    });
  });
});

describe("compiled SQL on the database: quoting and escaping", () => {
  it("identifiers with quotes, and values full of SQL and LIKE metacharacters, select exactly the right rows", async () => {
    const { odd } = await import("../../../support/subgraph-tables.js");
    const { compileCount, compileListPage } = await import("../../../../runtime/api/subgraphs/query/compile.js");
    const { parseListQuery } = await import("../../../../runtime/api/subgraphs/query/parse.js");
    const db = testDb.db;
    await db.exec(`CREATE SCHEMA IF NOT EXISTS "sg_o""dd";
      CREATE TABLE IF NOT EXISTS "sg_o""dd"."we""ird" (
        "_id" bigserial PRIMARY KEY, "_block_height" bigint NOT NULL, "_tx_id" text NOT NULL,
        "_created_at" timestamptz NOT NULL DEFAULT now(), "na""me" text NOT NULL, "flag" boolean NOT NULL,
        "meta" jsonb, "at" timestamptz NOT NULL, "n" numeric)`);
    const values = [
      "plain",
      "50%_off",
      "a\\b",
      "x'; DROP TABLE chain.blocks; --",
      'q"uote',
      "100%",
      "under_score",
      "ÉCOLE",
    ];
    for (const [i, v] of values.entries()) {
      await db.query(
        `INSERT INTO "sg_o""dd"."we""ird" ("_block_height", "_tx_id", "na""me", "flag", "at", "n") VALUES ($1, '0x', $2, $3, $4, $5)`,
        [i, v, i % 2 === 0, `2026-01-0${i + 1}T00:00:00Z`, i % 3 === 0 ? null : String(i)],
      );
    }
    const count = async (query: Record<string, string>) => {
      const { sql, params } = compileCount(odd, parseListQuery(query, odd));
      return Number((await db.query<{ count: string }>(sql, params)).rows[0].count);
    };
    for (const v of values) expect(await count({ 'na"me': v }), v).toBe(1);
    expect(await count({ 'na"me.like': "%" })).toBe(2);
    expect(await count({ 'na"me.like': "_" })).toBe(2);
    expect(await count({ 'na"me.like': "\\" })).toBe(1);
    expect(await count({ 'na"me.like': "drop table" })).toBe(1);
    expect(await count({ _search: "'" })).toBe(1);
    expect(await count({ 'na"me.neq': "plain" })).toBe(values.length - 1);
    expect(await count({ "n.gte": "2" })).toBe(values.filter((_, i) => i % 3 !== 0 && i >= 2).length);
    expect(await count({ "at.gt": "2026-01-03" })).toBe(values.length - 3);
    expect(await count({ flag: "false" })).toBe(values.length / 2);
    expect(
      Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM chain.blocks")).rows[0].n),
    ).toBeGreaterThanOrEqual(0);
    // A walk under a nullable sort over quoted identifiers.
    const walked: number[] = [];
    let after = null;
    for (;;) {
      const q: ReturnType<typeof parseListQuery> = { ...parseListQuery({ _sort: "n", _limit: "2" }, odd), after };
      const rows: Record<string, unknown>[] = [];
      for (const s of compileListPage(odd, q)) {
        rows.push(...(await db.query<Record<string, unknown>>(s.sql, s.params)).rows);
        if (rows.length > 2) break;
      }
      walked.push(...rows.slice(0, 2).map((r) => Number(r._id)));
      if (rows.length <= 2) break;
      const last = rows[1];
      after = { id: String(last._id), sortValue: (last["sluice:k"] as string | null) ?? null };
    }
    expect(walked).toEqual([2, 3, 5, 6, 8, 1, 4, 7]); // n = 1, 2, 4, 5, 7, then the NULLs by _id
  });
});
