/** diffSchemas: additive changes migrate in place, breaking ones rebuild. */
import { describe, expect, it } from "vitest";
import { diffSchemas } from "../../../runtime/subgraphs/schema-diff.js";
import type { ColumnMeta, TableMeta } from "../../../runtime/subgraphs/types.js";

const col = (type: ColumnMeta["type"], over: Partial<ColumnMeta> = {}): ColumnMeta => ({
  type,
  indexed: false,
  searchable: false,
  nullable: false,
  system: false,
  ...over,
});
const table = (columns: Record<string, ColumnMeta>, uniqueKeys: string[][] = []): TableMeta => ({
  name: "t",
  columns,
  uniqueKeys,
  filters: {},
  searchable: [],
  sortable: [],
});
const base = { t: table({ a: col("text"), n: col("uint") }, [["a"]]) };

describe("diffSchemas", () => {
  it("same schema", () => {
    expect(diffSchemas("sg_x", base, base).kind).toBe("same");
  });
  it("a new nullable column, a new table, a new index and a dropped NOT NULL are additive", () => {
    const after = {
      t: table(
        { a: col("text", { indexed: true }), n: col("uint", { nullable: true }), c: col("uint", { nullable: true }) },
        [["a"]],
      ),
      u: table({ x: col("text") }),
    };
    const diff = diffSchemas("sg_x", base, after);
    expect(diff.kind).toBe("additive");
    expect(diff.statements).toEqual([
      'ALTER TABLE "sg_x"."t" ALTER COLUMN "n" DROP NOT NULL',
      'ALTER TABLE "sg_x"."t" ADD COLUMN IF NOT EXISTS "c" numeric CHECK ("c" >= 0)',
    ]);
  });
  it("a new sortWithin is additive (the migration adds its index)", () => {
    const after = { t: { ...base.t, sortWithin: { n: "a" } } };
    expect(diffSchemas("sg_x", base, after)).toEqual({ kind: "additive", breaking: [], statements: [] });
  });
  it.each([
    ["a removed table", {}],
    ["a removed column", { t: table({ a: col("text") }, [["a"]]) }],
    ["a type change", { t: table({ a: col("text"), n: col("int") }, [["a"]]) }],
    ["a new NOT NULL column", { t: table({ a: col("text"), n: col("uint"), z: col("text") }, [["a"]]) }],
    ["changed unique keys", { t: table({ a: col("text"), n: col("uint") }, [["a", "n"]]) }],
  ])("%s is breaking", (_label, after) => {
    const diff = diffSchemas("sg_x", base, after as Record<string, TableMeta>);
    expect(diff.kind).toBe("breaking");
    expect(diff.breaking.length).toBeGreaterThan(0);
  });
});
