/**
 * Every Index / Streams page statement (runtime/api/events/sql.ts compileListPage) is planned as
 * index scans on PostgreSQL: over a seeded chain.events (test/support/synthetic-history.ts) with
 * the planner settings the service's own connections use (runtime/db/planner-settings.ts), the
 * plan of each filter combination, with and without a cursor, reads chain.events and chain.blocks
 * through indexes only, and each filtered scan of chain.events has an index condition on one of
 * the request's filters, on the column or on its hash (migration 0016 keys the filter indexes on
 * hashtextextended(column, 0)); an index on the cursor alone, filtering rows one by one, is what a
 * missing filter index turns into. Dropping a filter index makes the check fail (last case).
 * PostgreSQL only: PGlite's planner sees the same statements, but the production figures are
 * PostgreSQL's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileListPage } from "../../../../runtime/api/events/sql.js";
import { parseIndexEventsQuery, parseStreamEventsQuery } from "../../../../runtime/api/events/query.js";
import type { Queryable } from "../../../../runtime/db/types.js";
import { type TestDb, TEST_DB_KIND, createTestDb } from "../../../support/db.js";
import { loadChainEvents, senderAt, recipientAt } from "../../../support/synthetic-history.js";

const EVENTS = 60_000;
const FILTERS: Record<string, string> = {
  contract_id: "SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.token-3",
  sender: senderAt(17),
  recipient: recipientAt(29),
  asset_identifier: "SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.token-3::t",
};
/** The column each filter parameter compares. */
const COLUMN: Record<string, string> = {
  contract_id: "contract_id",
  sender: "sender",
  recipient: "recipient",
  asset_identifier: "asset_identifier",
  types: "event_type",
  not_types: "event_type",
};
const TYPE_SETS: Record<string, string>[] = [
  {},
  { types: "ft_transfer" },
  { types: "ft_transfer,nft_mint" },
  { not_types: "print" },
];

/** Every subset of the value filters × every type set × with / without a cursor. */
function streamQueries(): Record<string, string>[] {
  const names = Object.keys(FILTERS);
  const out: Record<string, string>[] = [];
  for (let mask = 0; mask < 1 << names.length; mask++) {
    const chosen = Object.fromEntries(names.filter((_, i) => mask & (1 << i)).map((n) => [n, FILTERS[n]]));
    for (const types of TYPE_SETS) {
      for (const cursor of [{}, { cursor: "600:7" }] as Record<string, string>[])
        out.push({ limit: "200", ...chosen, ...types, ...cursor });
    }
  }
  return out;
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Schema?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  Plans?: PlanNode[];
}

const scansOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(scansOf)];

/** What is wrong with the plan of `query` (empty: every read of the chain tables is an index scan on a filter). */
async function planProblems(q: Queryable, query: Record<string, string>, index: boolean): Promise<string[]> {
  const parsed = index ? parseIndexEventsQuery(query) : parseStreamEventsQuery(query);
  const { sql, params } = compileListPage(parsed);
  const { rows } = await q.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
  const filterColumns = Object.keys(query)
    .filter((k) => COLUMN[k] !== undefined)
    .map((k) => COLUMN[k]);
  const problems: string[] = [];
  for (const node of scansOf(rows[0]["QUERY PLAN"][0].Plan)) {
    const relation = node["Relation Name"];
    if (relation !== "events" && relation !== "blocks") continue;
    const where = `${node["Node Type"]} on chain.${relation}${node["Index Name"] ? ` using ${node["Index Name"]}` : ""}`;
    // A bitmap heap scan is fed by bitmap index scans (two filters' indexes combined): its
    // recheck condition is what those indexes matched.
    const bitmap = node["Node Type"] === "Bitmap Heap Scan";
    if (!bitmap && !/^Index (Only )?Scan$/.test(node["Node Type"])) {
      problems.push(`${where} (not an index scan)`);
      continue;
    }
    // The horizon probe (last event at or below the tip) reads the cursor index backwards, unfiltered.
    const horizon = node["Node Type"] === "Index Only Scan" && node["Index Name"] === "events_cursor";
    const cond = (bitmap ? node["Recheck Cond"] : node["Index Cond"]) ?? "";
    if (
      relation === "events" &&
      !horizon &&
      filterColumns.length > 0 &&
      !filterColumns.some((c) => cond.includes(`${c} =`) || new RegExp(`hashtextextended\\((\\w+\\.)?${c},`).test(cond))
    )
      problems.push(`${where}: index condition ${cond} uses none of the filters ${filterColumns.join(", ")}`);
  }
  return problems;
}

describe.skipIf(TEST_DB_KIND !== "postgres")("Index / Streams page plans (PostgreSQL)", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
    await loadChainEvents(testDb.db, EVENTS, () => {});
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  it("every filter combination reads chain.events through an index on one of its filters", async () => {
    const problems: string[] = [];
    const indexQueries: Record<string, string>[] = [
      {},
      { cursor: "600:7" },
      { from_height: "300" },
      { to_height: "900" },
    ];
    for (const query of indexQueries)
      for (const p of await planProblems(testDb.db, { limit: "200", ...query }, true))
        problems.push(`index ${JSON.stringify(query)}: ${p}`);
    const queries = streamQueries();
    expect(queries.length).toBe(16 * TYPE_SETS.length * 2);
    for (const query of queries)
      for (const p of await planProblems(testDb.db, query, false))
        problems.push(`streams ${JSON.stringify(query)}: ${p}`);
    expect(problems).toEqual([]);
  });

  it("fails when a filter's index is missing (checked inside a rolled-back transaction)", async () => {
    const rollback = new Error("roll back");
    let problems: string[] = [];
    await expect(
      testDb.db.transaction(async (q) => {
        await q.query("DROP INDEX chain.events_sender_cursor");
        problems = await planProblems(q, { limit: "200", sender: FILTERS.sender }, false);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(problems.length).toBeGreaterThan(0);
    expect(await planProblems(testDb.db, { limit: "200", sender: FILTERS.sender }, false)).toEqual([]);
  });
});
