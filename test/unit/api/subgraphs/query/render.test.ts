/** Rows and aggregates → JSON (runtime/api/subgraphs/query/render.ts; SPEC.md "System columns", "Aggregate endpoint"). */
import { describe, expect, it } from "vitest";
import { renderAggregate, renderRow } from "../../../../../runtime/api/subgraphs/query/render.js";
import { holdings, odd } from "../../../../support/subgraph-tables.js";

describe("renderRow", () => {
  it("_id a number, int/bigint strings, timestamps as selected (ISO text), every column in table order", () => {
    const row = {
      kind: "ft",
      amount: "123456789012345678901234567890",
      holder: "SP1",
      asset_identifier: "A",
      _id: "17",
      _block_height: "99",
      _tx_id: "0xab",
      _created_at: "2026-01-15T10:20:30.123456Z",
    };
    const out = renderRow(holdings, row);
    expect(out).toEqual({ ...row, _id: 17 });
    expect(Object.keys(out)).toEqual([
      "kind",
      "amount",
      "holder",
      "asset_identifier",
      "_id",
      "_block_height",
      "_tx_id",
      "_created_at",
    ]);
  });

  it("projects the requested fields in their order; NULL stays null; booleans and jsonb keep their JSON types", () => {
    expect(renderRow(holdings, { amount: "1", holder: "x", _id: "1" }, ["holder", "amount"])).toEqual({
      holder: "x",
      amount: "1",
    });
    expect(renderRow(odd, { flag: true, meta: { a: [1] }, n: null, _id: 3 }, ["flag", "meta", "n", "_id"])).toEqual({
      flag: true,
      meta: { a: [1] },
      n: null,
      _id: 3,
    });
    expect(renderRow(odd, { _created_at: new Date("2026-01-01T00:00:00Z") }, ["_created_at"])).toEqual({
      _created_at: "2026-01-01T00:00:00.000Z",
    });
  });
});

describe("renderAggregate", () => {
  it("count and countDistinct as numbers, sum/min/max as strings; empty set: sum 0, min/max null", () => {
    const outputs = [
      { kind: "count" as const, column: null, alias: "a0" },
      { kind: "countDistinct" as const, column: "holder", alias: "a1" },
      { kind: "sum" as const, column: "amount", alias: "a2" },
      { kind: "min" as const, column: "amount", alias: "a3" },
      { kind: "max" as const, column: "amount", alias: "a4" },
    ];
    expect(renderAggregate(outputs, { a0: "3", a1: "2", a2: "99999999999999999999999", a3: "-5", a4: "7" })).toEqual({
      count: 3,
      countDistinct: { holder: 2 },
      sum: { amount: "99999999999999999999999" },
      min: { amount: "-5" },
      max: { amount: "7" },
    });
    expect(renderAggregate(outputs, { a0: "0", a1: "0", a2: "0", a3: null, a4: null })).toEqual({
      count: 0,
      countDistinct: { holder: 0 },
      sum: { amount: "0" },
      min: { amount: null },
      max: { amount: null },
    });
  });
});
