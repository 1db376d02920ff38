/**
 * New subgraph rows' `_id`s in import transactions of many blocks: the read-ahead reserves them
 * for the whole transaction in one statement, instead of each table asking during the blocks
 * (where every such round trip waited behind the chain rows sent before it). Checked here:
 * - on a chain without forks, no table asks for ids during the blocks: at most one reservation
 *   statement per transaction, for every table that creates rows;
 * - the rows and their `_id` order equal those of an import with one request per transaction
 *   (which reserves per table as it goes), table by table.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIngestor } from "../../../runtime/chain/ingest.js";
import { importReplayFile } from "../../../runtime/cli/import.js";
import { parseConfig } from "../../../runtime/config/index.js";
import type { Db, Queryable } from "../../../runtime/db/types.js";
import { silentLogger } from "../../../runtime/internal/logger.js";
import { writeSimulation } from "../../../runtime/simulator/index.js";
import { createSubgraphEngine, type SubgraphEngine } from "../../../runtime/subgraphs/index.js";
import { createTestDb, type TestDb } from "../../support/db.js";

/** The `_id` reservation statements seen through `db`: in which transaction, for how many tables. */
interface Seen {
  reservations: { transaction: number; tables: number }[];
  transactions: number;
}

/** `db` with its transactions' statements counted: the same database, only observed. */
function observed(db: Db, seen: Seen): Db {
  // A reservation names its tables in its first parameter (table-sql.ts RESERVE_IDS_SQL).
  const count = (sql: string, params?: unknown[]) => {
    if (/nextval\(pg_get_serial_sequence\(/.test(sql))
      seen.reservations.push({ transaction: seen.transactions, tables: ((params ?? [])[0] as unknown[]).length });
  };
  const watch = (q: Queryable): Queryable =>
    new Proxy(q, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== "query" || typeof value !== "function") return value;
        return (sql: string, params?: unknown[]) => {
          count(sql, params);
          return value.call(target, sql, params);
        };
      },
    });
  return new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== "transaction" || typeof value !== "function") return value;
      return <T>(fn: (tx: Queryable) => Promise<T>) => {
        seen.transactions++;
        return value.call(target, (tx: Queryable) => fn(watch(tx)));
      };
    },
  });
}

/** Every built-in table's rows in `_id` order (without `_id` and `_created_at`, which depend on history). */
async function rowsInIdOrder(db: Db, engine: SubgraphEngine): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const info of engine.list()) {
    for (const [table, meta] of Object.entries(info.module.tables)) {
      const columns = Object.keys(meta.columns).filter((c) => c !== "_id" && c !== "_created_at");
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT ${columns.map((c) => `"${c}"::text AS "${c}"`).join(", ")} FROM "${info.module.schema}"."${table}" ORDER BY "_id"`,
      );
      out[`${info.name}.${table}`] = rows.map((r) => JSON.stringify(columns.map((c) => r[c])));
    }
  }
  return out;
}

describe("subgraph row ids in multi-block import transactions", () => {
  let t: TestDb;
  let dir: string;
  beforeAll(async () => {
    t = await createTestDb();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-id-reservation-"));
  });
  afterAll(async () => {
    await t?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function importFile(file: string, maxRequests: number) {
    await t.reset();
    const seen: Seen = { reservations: [], transactions: 0 };
    const db = observed(t.db, seen);
    const config = parseConfig({ NETWORK: "devnet", DATA_DIR: ".tmp/unused" });
    const engine = createSubgraphEngine({ db, config, logger: silentLogger });
    await engine.init();
    try {
      const ingestor = createIngestor({
        db,
        logger: silentLogger,
        finalityBurnConfirmations: config.finalityBurnConfirmations,
        hooks: [engine.hooks],
      });
      seen.transactions = 0;
      seen.reservations = [];
      await importReplayFile(file, ingestor, undefined, { batch: { maxRequests } });
      return { seen, rows: await rowsInIdOrder(t.db, engine) };
    } finally {
      await engine.close();
    }
  }

  it("a chain without forks: at most one reservation per transaction, for every table at once", async () => {
    const file = path.join(dir, "straight.tsv");
    await writeSimulation({ blocks: 40, eventsPerBlock: 12, forkRate: 0, network: "devnet", seed: "ids" }, file);
    const { seen, rows } = await importFile(file, 1024);
    const created = Object.values(rows).reduce((n, r) => n + r.length, 0);
    expect(created).toBeGreaterThan(100); // the chain makes rows in several tables
    expect(Object.values(rows).filter((r) => r.length > 0).length).toBeGreaterThanOrEqual(3);
    const perTransaction = new Map<number, number>();
    for (const r of seen.reservations) perTransaction.set(r.transaction, (perTransaction.get(r.transaction) ?? 0) + 1);
    expect(seen.reservations.length).toBeGreaterThan(0);
    expect(Math.max(...perTransaction.values())).toBe(1);
    expect(Math.max(...seen.reservations.map((r) => r.tables))).toBeGreaterThanOrEqual(3);
  });

  it("a chain with forks: the same rows in the same _id order as one request per transaction", async () => {
    const file = path.join(dir, "forks.tsv");
    await writeSimulation(
      { blocks: 30, eventsPerBlock: 12, forkRate: 0.2, hotShare: 0.6, network: "devnet", seed: "ids-forks" },
      file,
    );
    const single = await importFile(file, 1);
    const batched = await importFile(file, 1024);
    // One block per transaction reads nothing ahead: its tables reserve one by one.
    expect(single.seen.reservations.length).toBeGreaterThan(0);
    expect(single.seen.reservations.every((r) => r.tables === 1)).toBe(true);
    expect(batched.seen.reservations.some((r) => r.tables > 1)).toBe(true);
    expect(Object.values(batched.rows).reduce((n, r) => n + r.length, 0)).toBeGreaterThan(100);
    expect(batched.rows).toEqual(single.rows);
  });
});
