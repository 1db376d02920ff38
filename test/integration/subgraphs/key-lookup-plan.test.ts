/**
 * The read of a transaction's rows by key (selectByKeysSql) must use the key's B-tree index. A
 * searchable column also has a trigram index, which answers `=` too and which the planner prices
 * lower; during a long ingest every trigram lookup scans the index's growing pending list. The test
 * builds a table shaped like a subgraph table (unique key + trigram index on the same column),
 * fills and analyzes it, and asks PostgreSQL for the generic plan the ingest's prepared statement gets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../runtime/db/types.js";
import { selectByKeysSql, type TableTarget } from "../../../runtime/subgraphs/table-sql.js";
import type { ColumnMeta } from "../../../runtime/subgraphs/types.js";
import { type TestDb, createTestDb } from "../../support/db.js";

const column = (type: ColumnMeta["type"], searchable = false, system = false): ColumnMeta => ({
  type,
  indexed: true,
  searchable,
  nullable: false,
  system,
});

const target: TableTarget = {
  subgraph: "lookup-plan",
  schema: "sg_lookup_plan",
  meta: {
    name: "names",
    columns: { fqn: column("text", true), owner: column("principal", true), _id: column("bigint", false, true) },
    uniqueKeys: [["fqn"]],
    filters: {},
    searchable: ["fqn", "owner"],
    sortable: [],
  },
};

async function genericPlan(db: Db, sql: string, keys: string[]): Promise<string> {
  // One connection for the session settings, the prepared statement and its plan.
  return db.transaction(async (q) => {
    await q.query("SET LOCAL plan_cache_mode = force_generic_plan");
    await q.query(`PREPARE lookup(text[]) AS ${sql}`);
    const { rows } = await q.query<{ "QUERY PLAN": string }>(`EXPLAIN EXECUTE lookup('{${keys.join(",")}}')`);
    await q.query("DEALLOCATE lookup");
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  });
}

describe("reading a transaction's rows by key", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
    const { db } = testDb;
    await db.query("CREATE EXTENSION IF NOT EXISTS pg_trgm");
    await db.query(`CREATE SCHEMA ${target.schema}`);
    await db.query(
      `CREATE TABLE ${target.schema}.names (_id bigserial PRIMARY KEY, fqn text NOT NULL, owner text NOT NULL)`,
    );
    await db.query(`CREATE UNIQUE INDEX names_fqn_key ON ${target.schema}.names (fqn)`);
    await db.query(`CREATE INDEX names_fqn_trgm ON ${target.schema}.names USING gin (fqn gin_trgm_ops)`);
    await db.query(
      `INSERT INTO ${target.schema}.names (fqn, owner) SELECT 'name' || i || '.btc', 'SP' || (i % 50) FROM generate_series(1, 2000) i`,
    );
    await db.query(`ANALYZE ${target.schema}.names`);
  });
  afterAll(async () => testDb?.drop());

  it("uses the key's B-tree index, never the trigram index", async () => {
    const plan = await genericPlan(testDb.db, selectByKeysSql(target, ["fqn"]), ["name7.btc", "name9.btc"]);
    expect(plan).not.toMatch(/trgm/);
    expect(plan).toMatch(/names_fqn_key/);
  });

  it("finds exactly the rows of the keys asked for", async () => {
    const { rows } = await testDb.db.query<{ fqn: string }>(selectByKeysSql(target, ["fqn"]), [
      ["name7.btc", "name1999.btc", "missing.btc"],
    ]);
    expect(rows.map((r) => r.fqn).sort()).toEqual(["name1999.btc", "name7.btc"]);
  });
});
