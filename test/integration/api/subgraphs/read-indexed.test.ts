/**
 * The subgraph read routes on rows the engine indexed from recorded fixtures and from a
 * simulated chain with forks (SPEC.md "Subgraph routes", "Subgraph descriptor"): for every table
 * of every built-in subgraph, walks in both orders and under every `_sort` equal the table read
 * directly, /count, the metadata routes' and the descriptor's rowCount agree, filters equal an
 * independent filter, aggregates an independent BigInt computation; holdings and contracts read
 * over HTTP equal the values computed from the raw observer JSON; tips match the chain.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../../runtime/db/types.js";
import type { Service } from "../../../../runtime/service.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import type { TableMeta } from "../../../../runtime/subgraphs/types.js";
import { type RawRequest, expectedChain } from "../../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../../../support/fixtures.js";
import { postObserver, startTestService, waitFor } from "../../../support/service.js";
import { specsInRepo } from "../../../support/spec-catalog.js";
import { canonicalBlocks, expectedContracts, expectedHoldings } from "../../../support/subgraph-expect.js";
import {
  type ModelRow,
  type ModelTable,
  type Op,
  distinctCount,
  getJson,
  modelAggregate,
  modelFilter,
  modelSort,
  pickOne,
  prng,
  walk,
} from "../../../support/subgraph-read.js";

const SIM_SEED = "subgraph-read-indexed";
const FIXTURES = ["balance-reorg.tsv.gz", "poisonmicroblock.tsv", "mainnet-reorg-scenario1.tsv"];

function cases(): { name: string; network: string; requests: RawRequest[] }[] {
  const out: { name: string; network: string; requests: RawRequest[] }[] = [];
  if (hasFixtures) {
    for (const f of FIXTURES) {
      const requests = readReplayTsv(`${FIXTURES_DIR}/observer/stacks-blockchain-api/${f}`).map((r) => ({
        path: r.path,
        body: r.body,
      }));
      out.push({ name: f, network: "mainnet", requests });
    }
  }
  const { payloads } = simulateChain({ seed: SIM_SEED, blocks: 50, eventsPerBlock: 20, forkRate: 0.2 });
  out.push({
    name: `simulated (seed ${SIM_SEED})`,
    network: "devnet",
    requests: payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) })),
  });
  return out;
}

let testDb: TestDb;
beforeAll(async () => {
  testDb = await createTestDb();
});
afterAll(async () => {
  await testDb?.drop();
});

const MODEL_TYPES: Record<string, ModelTable["types"][string]> = {
  serial: "id",
  int: "num",
  uint: "num",
  bigint: "num",
  timestamp: "time",
  boolean: "bool",
  jsonb: "json",
  text: "text",
  principal: "text",
};

/** The table read directly (the test's own SQL), as the API must render it. */
async function dumpTable(db: Db, subgraph: string, schema: string, meta: TableMeta): Promise<ModelTable> {
  const q = (c: string) => `"${c}"`;
  const select = Object.entries(meta.columns).map(([c, m]) =>
    m.type === "timestamp" ? `to_char(${q(c)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ${q(c)}` : q(c),
  );
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT ${select.join(", ")} FROM "${schema}"."${meta.name}" ORDER BY "_id"`,
  );
  const types = Object.fromEntries(Object.entries(meta.columns).map(([c, m]) => [c, MODEL_TYPES[m.type]]));
  return {
    subgraph,
    table: meta.name,
    sqlName: `"${schema}"."${meta.name}"`,
    types,
    nullable: new Set(
      Object.entries(meta.columns)
        .filter(([, m]) => m.nullable)
        .map(([c]) => c),
    ),
    rows: rows.map((r) =>
      Object.fromEntries(
        Object.keys(meta.columns).map((c) => [c, c === "_id" ? Number(r[c]) : ((r[c] as ModelRow[string]) ?? null)]),
      ),
    ),
  };
}

const OPS: Record<string, Op[]> = {
  id: ["eq", "neq", "gt", "gte", "lt", "lte"],
  num: ["eq", "neq", "gt", "gte", "lt", "lte"],
  time: ["eq", "neq", "like", "gt", "gte", "lt", "lte"],
  text: ["eq", "neq", "like"],
  bool: ["eq", "neq"],
};

async function checkTable(base: string, t: ModelTable, meta: TableMeta, rand: () => number): Promise<void> {
  const path = `/v1/subgraphs/${t.subgraph}/${t.table}`;
  const label = `${t.subgraph}/${t.table}`;
  const count = (await getJson<{ count: number }>(`${base}${path}/count`)).count;
  expect(count, label).toBe(t.rows.length);
  for (const order of ["asc", "desc"] as const) {
    for (const limit of [7, 1000]) {
      expect(await walk(base, path, { _order: order }, limit), `${label} ${order} ${limit}`).toEqual(
        modelSort(t, t.rows, "_id", order),
      );
    }
    for (const sort of meta.sortable) {
      expect(await walk(base, path, { _sort: sort, _order: order }, 13), `${label} _sort=${sort} ${order}`).toEqual(
        modelSort(t, t.rows, sort, order),
      );
    }
  }
  if (t.rows.length === 0) return;
  // Filters with values drawn from the rows.
  const filterable = Object.keys(meta.filters).filter((c) => OPS[t.types[c]]);
  for (let i = 0; i < 12; i++) {
    const column = pickOne(rand, filterable);
    const op = pickOne(
      rand,
      OPS[t.types[column]].filter((o) => meta.filters[column].includes(o)),
    );
    const withValue = t.rows.filter((r) => r[column] !== null);
    if (withValue.length === 0) continue;
    let value = String(pickOne(rand, withValue)[column]);
    if (op === "like") value = value.slice(1, 5).toLowerCase();
    const param = op === "eq" ? column : `${column}.${op}`;
    const want = t.rows.filter(modelFilter(t, column, op, value));
    const qs = new URLSearchParams({ [param]: value });
    expect(await walk(base, path, Object.fromEntries(qs), 250), `${label} ${qs}`).toEqual(want);
    expect((await getJson<{ count: number }>(`${base}${path}/count?${qs}`)).count, `${label} ${qs}`).toBe(want.length);
  }
  // Aggregates against BigInt.
  const numeric = Object.entries(meta.columns)
    .filter(([c, m]) => ["int", "uint", "bigint"].includes(m.type) && (!m.system || c === "_block_height"))
    .map(([c]) => c);
  const all = Object.keys(meta.columns);
  const qs = new URLSearchParams({
    _count: "true",
    _countDistinct: all.join(","),
    _sum: numeric.join(","),
    _min: numeric.join(","),
    _max: numeric.join(","),
  });
  expect(await getJson(`${base}${path}/aggregate?${qs}`), `${label} aggregate`).toEqual({
    count: t.rows.length,
    countDistinct: Object.fromEntries(all.map((c) => [c, distinctCount(t.rows, c)])),
    sum: Object.fromEntries(numeric.map((c) => [c, modelAggregate(t.rows, c).sum])),
    min: Object.fromEntries(numeric.map((c) => [c, modelAggregate(t.rows, c).min])),
    max: Object.fromEntries(numeric.map((c) => [c, modelAggregate(t.rows, c).max])),
  });
  // A few single rows.
  for (let i = 0; i < 3; i++) {
    const row = pickOne(rand, t.rows);
    expect(await getJson(`${base}${path}/${row._id}`)).toEqual(row);
  }
}

describe("read routes over indexed chains", () => {
  for (const c of cases()) {
    it(`${c.name}: every table reads back exactly; metadata, descriptor and tips agree`, async () => {
      await testDb.reset();
      const service: Service = await startTestService(testDb.db, { NETWORK: c.network });
      try {
        for (const r of c.requests) await postObserver(service.observerUrl, r.path, r.body);
        await service.idle();
        await service.subgraphs.idle();
        const base = service.apiUrl;
        const rand = prng(`${SIM_SEED}/${c.name}`);
        const chain = expectedChain(c.requests);
        type Listing = {
          subgraphs: { name: string; tables: Record<string, { rowCount: number }>; tip: Record<string, number> }[];
        };
        // The tip is cached per process and refreshed by the block's notification: wait for it.
        const list = await waitFor(async () => {
          const l = await getJson<Listing>(`${base}/v1/subgraphs`);
          return l.subgraphs.every((s) => s.tip.block_height === chain.tipHeight) ? l : null;
        });
        expect(list.subgraphs.map((s) => s.name)).toEqual(specsInRepo().map((s) => s.name));
        let rows = 0;
        for (const info of service.subgraphs.list()) {
          const module = info.module;
          const summary = list.subgraphs.find((s) => s.name === module.name);
          expect(summary?.tip).toEqual({
            block_height: chain.tipHeight,
            subgraph_height: chain.tipHeight,
            blocks_behind: 0,
          });
          const meta = await getJson<{
            tables: Record<string, { rowCount: number; sortable: string[] }>;
            tip: Record<string, number>;
          }>(`${base}/v1/subgraphs/${module.name}`);
          const descriptor = await getJson<{
            serverUrl: string;
            tables: Record<string, { rowCount: number; query: { sortable: string[] } }>;
          }>(`${base}/v1/subgraphs/${module.name}/descriptor.json`);
          const openapi = await getJson<{ servers: { url: string }[] }>(
            `${base}/v1/subgraphs/${module.name}/openapi.json`,
          );
          expect(descriptor.serverUrl).toBe(base);
          expect(openapi.servers[0].url).toBe(base);
          for (const [name, tableMeta] of Object.entries(module.tables)) {
            const t = await dumpTable(testDb.db, module.name, module.schema, tableMeta);
            rows += t.rows.length;
            expect(summary?.tables[name].rowCount).toBe(t.rows.length);
            expect(meta.tables[name].rowCount).toBe(t.rows.length);
            expect(descriptor.tables[name].rowCount).toBe(t.rows.length);
            expect(descriptor.tables[name].query.sortable).toEqual(tableMeta.sortable);
            expect(meta.tables[name].sortable).toEqual(tableMeta.sortable);
            await checkTable(base, t, tableMeta, rand);
          }
        }
        expect(rows, "the case should index some rows").toBeGreaterThan(0);

        // Against the raw JSON: holdings and contracts read over HTTP.
        const blocks = canonicalBlocks(c.requests);
        const holdings = await walk(base, "/v1/subgraphs/asset-holdings/holdings", {}, 1000);
        expect(
          new Map(holdings.map((r) => [`${r.kind}|${r.asset_identifier}|${r.holder}`, BigInt(r.amount as string)])),
        ).toEqual(expectedHoldings(blocks));
        const contracts = await walk(base, "/v1/subgraphs/contract-deployments/contracts", {}, 1000);
        expect(
          contracts.map((r) => [r.contract_id, r.name, r.deployer, r.deploy_block, r.deploy_tx_id]).sort(),
        ).toEqual(expectedContracts(blocks));
      } finally {
        await service.stop();
      }
    });
  }
});
