/** The console's list-query builder (console/src/query.ts): the URL the explorer shows is the one it calls. */
import { describe, expect, it } from "vitest";
import {
  aggregateUrl,
  cellText,
  countUrl,
  listUrl,
  operatorsByColumn,
  type TableQuery,
} from "../../../console/src/query.js";

const base: TableQuery = {
  subgraph: "asset-holdings",
  table: "holdings",
  filters: [],
  search: "",
  fields: "",
  sort: "",
  order: "asc",
  limit: 50,
  cursor: "",
};

describe("console list queries", () => {
  it("a bare query is the table's path; defaults are left out", () => {
    expect(listUrl(base)).toBe("/v1/subgraphs/asset-holdings/holdings");
  });

  it("filters use the API's grammar (column for eq, column.op otherwise), with search, fields, sort, order, limit, cursor", () => {
    const q: TableQuery = {
      ...base,
      filters: [
        { column: "kind", op: "eq", value: "stx" },
        { column: "amount", op: "gte", value: "100" },
        { column: "holder", op: "like", value: "SP 1&2" },
      ],
      search: " abc ",
      fields: "holder, amount",
      sort: "amount",
      order: "desc",
      limit: 7,
      cursor: "eyJ2IjoxfQ.mac",
    };
    expect(listUrl(q)).toBe(
      "/v1/subgraphs/asset-holdings/holdings?kind=stx&amount.gte=100&holder.like=SP+1%262&_search=abc" +
        "&_fields=holder%2Camount&_sort=amount&_order=desc&_limit=7&cursor=eyJ2IjoxfQ.mac",
    );
    // count and aggregate take the filters and search only
    expect(countUrl(q)).toBe(
      "/v1/subgraphs/asset-holdings/holdings/count?kind=stx&amount.gte=100&holder.like=SP+1%262&_search=abc",
    );
    expect(aggregateUrl(q, "_sum", "amount")).toBe(
      "/v1/subgraphs/asset-holdings/holdings/aggregate?kind=stx&amount.gte=100&holder.like=SP+1%262&_search=abc&_count=true&_sum=amount",
    );
  });

  it("reads the metadata route's filter names as operators per column", () => {
    expect(operatorsByColumn(["kind", "kind.neq", "kind.like", "amount.gt", "amount.lte", "_id", "_id.gt"])).toEqual({
      kind: ["eq", "neq", "like"],
      amount: ["gt", "lte"],
      _id: ["eq", "gt"],
    });
  });

  it("shows cells as the API sent them", () => {
    expect([cellText(null), cellText("12"), cellText(3), cellText(true), cellText({ a: [1] })]).toEqual([
      "null",
      "12",
      "3",
      "true",
      '{"a":[1]}',
    ]);
  });
});
