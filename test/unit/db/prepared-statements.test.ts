import { describe, expect, it } from "vitest";
import { plannerSessionSettings, startupOptions } from "../../../runtime/db/planner-settings.js";
import { PreparedStatementPolicy, schemaTag } from "../../../runtime/db/prepared-statements.js";

describe("PreparedStatementPolicy", () => {
  it("runs a text unnamed on first use and under one stable name from the second on", () => {
    const policy = new PreparedStatementPolicy();
    const sql = "SELECT * FROM chain.blocks WHERE index_block_hash = $1";
    expect(policy.nameFor(sql)).toBeUndefined();
    const name = policy.nameFor(sql);
    expect(name).toMatch(/^sluice_[0-9a-f]{24}$/);
    expect(policy.nameFor(sql)).toBe(name);
    expect(policy.nameFor(`${sql} `)).toBeUndefined();
    expect(policy.nameFor(`${sql} `)).not.toBe(name);
  });

  it("never prepares an untagged statement on a subgraph table; a tagged one is prepared", () => {
    const policy = new PreparedStatementPolicy();
    const untagged = 'SELECT t.* FROM "sg_asset_holdings"."holdings" t WHERE "_id" = $1';
    for (let i = 0; i < 5; i++) expect(policy.nameFor(untagged)).toBeUndefined();
    const tagged = schemaTag("ab12") + untagged;
    expect(tagged.startsWith("/* schema ab12 */ ")).toBe(true);
    policy.nameFor(tagged);
    expect(policy.nameFor(tagged)).toMatch(/^sluice_/);
    // A new schema version is a new text, hence a new name.
    const next = schemaTag("cd34") + untagged;
    policy.nameFor(next);
    expect(policy.nameFor(next)).not.toBe(policy.nameFor(tagged));
  });

  it("prepares at most `limit` distinct texts, then runs new ones unnamed", () => {
    const policy = new PreparedStatementPolicy(3);
    const names = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const sql = `SELECT ${i}`;
      policy.nameFor(sql);
      const name = policy.nameFor(sql);
      if (name !== undefined) names.add(name);
    }
    expect(names.size).toBe(3);
    expect(policy.nameFor("SELECT 0")).toBeDefined();
    expect(policy.nameFor("SELECT 9")).toBeUndefined();
  });

  it("budgets read-tagged texts apart: many read shapes never take the other statements' places", () => {
    const policy = new PreparedStatementPolicy(2, 3);
    const table = ' FROM "sg_asset_holdings"."holdings" WHERE "holder" = $1';
    const prepared = (sql: string) => {
      policy.nameFor(sql);
      return policy.nameFor(sql) !== undefined;
    };
    const reads = Array.from({ length: 6 }, (_, i) => `${schemaTag("ab12", "read")}SELECT ${i}${table}`);
    expect(reads[0].startsWith("/* schema ab12 read */ ")).toBe(true);
    expect(reads.map(prepared)).toEqual([true, true, true, false, false, false]);
    // The write budget is untouched by the reads, and the reads' by the writes.
    const writes = Array.from({ length: 3 }, (_, i) => `${schemaTag("ab12")}UPDATE x SET a = ${i}${table}`);
    expect(writes.map(prepared)).toEqual([true, true, false]);
    expect(prepared(reads[0])).toBe(true);
    expect(prepared(`${schemaTag("ab12", "read")}SELECT 99${table}`)).toBe(false);
  });
});

describe("planner session settings", () => {
  it("lowers random_page_cost only while the server has the default", () => {
    expect(plannerSessionSettings("4")).toEqual({ random_page_cost: "1.1" });
    expect(plannerSessionSettings("2")).toEqual({});
    expect(plannerSessionSettings("1.1")).toEqual({});
  });

  it("renders libpq startup options, none for no settings", () => {
    expect(startupOptions({ random_page_cost: "1.1" })).toBe("-c random_page_cost=1.1");
    expect(startupOptions({})).toBeUndefined();
  });
});
