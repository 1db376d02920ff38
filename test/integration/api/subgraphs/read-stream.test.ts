/**
 * GET /v1/subgraphs/:name/:table/stream over real HTTP (SPEC.md "SSE stream routes"; client
 * contract in runtime/api/subgraphs/stream-session.ts). A client applying the frames as the
 * contract says must hold exactly the table's rows: live while the engine indexes a simulated
 * chain with forks, across a reconnect with Last-Event-ID, after reorgs signalled live and on
 * resume. Also: `since` replay, filters, the live start, pings, and the fan-out costing one
 * read per block however many clients listen.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiApp } from "../../../../runtime/api/app.js";
import { type ChainHub, createChainHub } from "../../../../runtime/api/events/chain-hub.js";
import { type ApiServer, startApiServer } from "../../../../runtime/api/http/server.js";
import { parseConfig } from "../../../../runtime/config/index.js";
import type { Db } from "../../../../runtime/db/types.js";
import { silentLogger } from "../../../../runtime/internal/logger.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import { createSubgraphEngine, type SubgraphEngine } from "../../../../runtime/subgraphs/index.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { postObserver, startTestService, waitFor } from "../../../support/service.js";
import {
  type ModelRow,
  type SubgraphSseClient as SseClient,
  applyRowFrames,
  commitBlock,
  commitReorg,
  getJson,
  openSse,
  seedHoldings,
} from "../../../support/subgraph-read.js";

const SIM_SEED = "subgraph-read-stream";

let testDb: TestDb;
beforeAll(async () => {
  testDb = await createTestDb();
});
afterAll(async () => {
  await testDb?.drop();
});

async function tableIds(db: Db, sqlName: string, where = "TRUE"): Promise<number[]> {
  const { rows } = await db.query<{ id: string }>(`SELECT "_id" AS id FROM ${sqlName} WHERE ${where} ORDER BY "_id"`);
  return rows.map((r) => Number(r.id));
}

const heldIds = (c: SseClient, held?: Map<number, ModelRow>) =>
  [...applyRowFrames(c.items, held).keys()].sort((a, b) => a - b);
const reorgFrames = (c: SseClient) => c.items.filter((i) => i.kind === "event" && i.event === "reorg");

/** An API on its own chain hub (fast pings), with the subgraph engine's tables. */
async function startCustomApi(db: Db, pingIntervalMs: number, wrapDb: (db: Db) => Db = (d) => d) {
  const config = parseConfig({ API_PORT: "0", OBSERVER_PORT: "0", DATA_DIR: ".tmp/unused" });
  const subgraphs: SubgraphEngine = createSubgraphEngine({ db, config, logger: silentLogger });
  await subgraphs.init();
  const hub: ChainHub = await createChainHub({ db, logger: silentLogger, pingIntervalMs });
  const status = { isReady: () => true, getStatus: async () => ({}) };
  const app = createApiApp({ config, logger: silentLogger, db: wrapDb(db), status, chainHub: hub, subgraphs });
  const server: ApiServer = await startApiServer(app, { host: "127.0.0.1", port: 0, closeGraceMs: 500 });
  return {
    url: server.url,
    hub,
    async close() {
      await server.close();
      await hub.close();
      await subgraphs.close();
    },
  };
}

describe("live streams while the engine indexes a simulated chain with forks", () => {
  it("after every block, each client holds exactly the table's rows (reorgs applied as signalled)", async () => {
    await testDb.reset();
    const { payloads, truth } = simulateChain({ seed: SIM_SEED, blocks: 36, eventsPerBlock: 14, forkRate: 0.25 });
    expect(truth.forks.length, `seed ${SIM_SEED} should produce forks`).toBeGreaterThan(0);
    const service = await startTestService(testDb.db);
    const watched = [
      {
        path: "/v1/subgraphs/contract-deployments/contracts/stream",
        sql: '"sg_contract_deployments"."contracts"',
        where: "TRUE",
      },
      { path: "/v1/subgraphs/asset-holdings/holdings/stream", sql: '"sg_asset_holdings"."holdings"', where: "TRUE" },
      {
        path: "/v1/subgraphs/asset-holdings/holdings/stream?kind=stx",
        sql: '"sg_asset_holdings"."holdings"',
        where: "kind = 'stx'",
      },
      { path: "/v1/subgraphs/sbtc-flows/flows/stream", sql: '"sg_sbtc_flows"."flows"', where: "TRUE" },
      { path: "/v1/subgraphs/bns-names/names/stream", sql: '"sg_bns_names"."names"', where: "TRUE" },
    ];
    const clients = await Promise.all(watched.map((w) => openSse(`${service.apiUrl}${w.path}`)));
    try {
      for (const c of clients) expect(c.status).toBe(200);
      for (const p of payloads) {
        await postObserver(service.observerUrl, p.path, JSON.stringify(p.body));
        await service.idle();
        for (const [i, w] of watched.entries()) {
          const want = await tableIds(testDb.db, w.sql, w.where);
          await waitFor(() => JSON.stringify(heldIds(clients[i])) === JSON.stringify(want), {
            timeoutMs: 10_000,
          }).catch(() => {
            throw new Error(
              `${w.path} after ${p.path}: holds ${JSON.stringify(heldIds(clients[i]))}, table has ${JSON.stringify(want)}`,
            );
          });
        }
      }
      // Insert-only table: the rows are exactly what the list route returns.
      const listed = await getJson<{ rows: ModelRow[] }>(
        `${service.apiUrl}/v1/subgraphs/contract-deployments/contracts?_limit=1000`,
      );
      expect([...applyRowFrames(clients[0].items).values()]).toEqual(listed.rows);
      const reorgs = clients.reduce((n, c) => n + reorgFrames(c).length, 0);
      console.log(`stream reorg frames seen: ${reorgs}; forks: ${truth.forks.length}`);
      expect(reorgs).toBeGreaterThan(0);
      for (const c of clients) {
        for (const f of reorgFrames(c)) {
          const data = JSON.parse((f as { data: string }).data);
          expect(Object.keys(data).sort()).toEqual(["fork_point_height", "removed_after_id", "removed_ids"]);
          expect(Number.isInteger(data.fork_point_height)).toBe(true);
          expect((f as { id: string }).id).toBe(String(data.removed_after_id));
        }
      }
    } finally {
      for (const c of clients) c.close();
      await service.stop();
    }
  });

  it("a client that reconnects with Last-Event-ID receives every row exactly once", async () => {
    await testDb.reset();
    const { payloads } = simulateChain({ seed: `${SIM_SEED}-resume`, blocks: 30, eventsPerBlock: 12 });
    const service = await startTestService(testDb.db);
    const path = `${service.apiUrl}/v1/subgraphs/contract-deployments/contracts/stream`;
    const sql = '"sg_contract_deployments"."contracts"';
    try {
      let client = await openSse(path);
      const held = new Map<number, ModelRow>();
      const third = Math.floor(payloads.length / 3);
      for (const [n, p] of payloads.entries()) {
        await postObserver(service.observerUrl, p.path, JSON.stringify(p.body));
        if (n === third || n === 2 * third) {
          await service.idle();
          const want = await tableIds(testDb.db, sql);
          await waitFor(() => applyRowFrames(client.items, new Map(held)).size === want.length);
          applyRowFrames(client.items, held); // throws on a duplicate
          const last = client.lastId();
          client.close();
          // Rows written while nobody listens must arrive after the reconnect.
          await postObserver(service.observerUrl, payloads[n + 1].path, JSON.stringify(payloads[n + 1].body));
          client = await openSse(path, last ? { "last-event-id": last } : {});
        }
      }
      await service.idle();
      const want = await tableIds(testDb.db, sql);
      expect(want.length).toBeGreaterThan(5);
      await waitFor(() => applyRowFrames(client.items, new Map(held)).size === want.length);
      applyRowFrames(client.items, held);
      expect([...held.keys()].sort((a, b) => a - b)).toEqual(want);
      client.close();
    } finally {
      await service.stop();
    }
  });
});

describe("a reindexed table", () => {
  it("open streams are told to drop everything, then receive the rebuilt rows", async () => {
    await testDb.reset();
    const { payloads } = simulateChain({ seed: `${SIM_SEED}-reindex`, blocks: 20, eventsPerBlock: 10 });
    const service = await startTestService(testDb.db);
    const sql = '"sg_contract_deployments"."contracts"';
    try {
      for (const p of payloads) await postObserver(service.observerUrl, p.path, JSON.stringify(p.body));
      await service.idle();
      const before = await tableIds(testDb.db, sql);
      expect(before.length).toBeGreaterThan(3);
      const client = await openSse(`${service.apiUrl}/v1/subgraphs/contract-deployments/contracts/stream?since=0`);
      await waitFor(() => heldIds(client).length === before.length);
      await service.subgraphs.reindex("contract-deployments");
      await service.subgraphs.idle();
      const after = await tableIds(testDb.db, sql);
      expect(after.length).toBe(before.length);
      await waitFor(
        () => reorgFrames(client).length === 1 && JSON.stringify(heldIds(client)) === JSON.stringify(after),
        { timeoutMs: 20_000 },
      );
      expect(JSON.parse((reorgFrames(client)[0] as { data: string }).data)).toEqual({
        fork_point_height: null,
        removed_after_id: 0,
        removed_ids: before,
      });
      client.close();
    } finally {
      await service.stop();
    }
  });
});

describe("stream starts, filters, reorg frames and pings (rows written by hand)", () => {
  it("live start, since replay, filters, resume across a reorg, pings", async () => {
    await testDb.reset();
    const api = await startCustomApi(testDb.db, 50);
    const H = "/v1/subgraphs/asset-holdings/holdings";
    const sql = '"sg_asset_holdings"."holdings"';
    try {
      const model = await seedHoldings(testDb.db, "stream/holdings", 60);
      const maxBefore = Math.max(...model.rows.map((r) => r._id as number));
      const since = 10;
      const live = await openSse(`${api.url}${H}/stream`);
      const replay = await openSse(`${api.url}${H}/stream?since=${since}`);
      const filtered = await openSse(`${api.url}${H}/stream?kind=ft&amount.gt=0`);
      // since: every existing row written at or above the height, in _id order.
      const wantReplay = model.rows.filter((r) => BigInt(r._block_height as string) >= BigInt(since));
      await waitFor(() => replay.rows().length === wantReplay.length);
      expect(replay.rows()).toEqual(wantReplay);

      // New rows in a block: everyone gets them; the filtered stream only matching ones.
      const more = await commitBlock(testDb.db, async (q) => {
        await q.query(
          `INSERT INTO ${sql} (kind, amount, holder, asset_identifier, _block_height, _tx_id)
           SELECT CASE WHEN g % 2 = 0 THEN 'ft' ELSE 'stx' END, (g - 3)::numeric, 'SPNEW' || g, 'STX', 500, '0xnew' FROM generate_series(1, 8) g`,
        );
      });
      expect(more).toBeGreaterThan(0);
      const newIds = await tableIds(testDb.db, sql, `"_id" > ${maxBefore}`);
      await waitFor(() => live.rows().length === 8 && replay.rows().length === wantReplay.length + 8);
      expect(live.rows().map((r) => r._id)).toEqual(newIds);
      const wantFiltered = await tableIds(testDb.db, sql, `kind = 'ft' AND amount > 0 AND "_id" > ${maxBefore}`);
      expect(wantFiltered.length).toBeGreaterThan(0);
      await waitFor(() => filtered.rows().length === wantFiltered.length);
      expect(filtered.rows().map((r) => r._id)).toEqual(wantFiltered);
      for (const frame of live.items.filter((i) => i.kind === "event")) {
        const data = JSON.parse((frame as { data: string }).data);
        expect((frame as { id: string }).id).toBe(String(data._id));
        expect(Object.keys(data)).toEqual([
          "kind",
          "amount",
          "holder",
          "asset_identifier",
          "_id",
          "_block_height",
          "_tx_id",
          "_created_at",
        ]);
      }

      // Live reorg: the newest 5 rows vanish → one reorg frame naming the survivor and the ids.
      const cut = newIds[newIds.length - 6];
      await commitReorg(testDb.db, sql, cut, 3);
      await waitFor(() => reorgFrames(live).length === 1);
      const frame = JSON.parse((reorgFrames(live)[0] as { data: string }).data);
      expect(frame).toEqual({ fork_point_height: 3, removed_after_id: cut, removed_ids: newIds.slice(-5) });
      expect(heldIds(live)).toEqual(newIds.slice(0, -5));
      // A stream whose rows were untouched (filtered: maybe) gets a frame only if it held removed rows.
      const filteredRemoved = wantFiltered.filter((id) => id > cut);
      await waitFor(() => reorgFrames(filtered).length === (filteredRemoved.length ? 1 : 0));
      expect(heldIds(filtered)).toEqual(wantFiltered.filter((id) => id <= cut));

      // Resume across a reorg: the client held rows up to `last`, which are gone now.
      const last = live.lastId() as string;
      live.close();
      await commitBlock(testDb.db, async (q) => {
        await q.query(
          `INSERT INTO ${sql} (kind, amount, holder, asset_identifier, _block_height, _tx_id) VALUES ('ft', 1, 'SPLATE1', 'STX', 501, '0xl')`,
        );
      });
      const lateId = (await tableIds(testDb.db, sql)).at(-1) as number;
      await commitReorg(testDb.db, sql, lateId - 1, 4); // removes the row inserted above... and nothing the client held
      const survivor = Math.max(...(await tableIds(testDb.db, sql)));
      const heldBefore = Number(last);
      const resumed = await openSse(`${api.url}${H}/stream`, { "last-event-id": String(lateId) });
      await waitFor(() => reorgFrames(resumed).length === 1);
      // On resume the fork point is a lower bound: the lowest of the reorgs since the survivor was written.
      expect(JSON.parse((reorgFrames(resumed)[0] as { data: string }).data)).toEqual({
        fork_point_height: 3,
        removed_after_id: survivor,
        removed_ids: null,
      });
      expect(resumed.items.find((i) => i.kind === "event")?.kind).toBe("event");
      expect((resumed.items.find((i) => i.kind === "event") as { event?: string }).event).toBe("reorg");
      const stillThere = await openSse(`${api.url}${H}/stream`, { "last-event-id": String(heldBefore) });
      await commitBlock(testDb.db, async (q) => {
        await q.query(
          `INSERT INTO ${sql} (kind, amount, holder, asset_identifier, _block_height, _tx_id) VALUES ('ft', 2, 'SPLATE2', 'STX', 502, '0xm')`,
        );
      });
      const after = await tableIds(testDb.db, sql, `"_id" > ${heldBefore}`);
      await waitFor(() => stillThere.rows().length === after.length);
      expect(stillThere.rows().map((r) => r._id)).toEqual(after);
      expect(reorgFrames(stillThere)).toEqual([]);

      // Pings at the hub's interval, to every stream.
      await waitFor(() => replay.items.filter((i) => i.kind === "comment" && i.text === "ping").length >= 3);
      for (const c of [replay, filtered, resumed, stillThere]) c.close();
    } finally {
      await api.close();
    }
  });

  it("hundreds of clients cost one read per block, not one per client", async () => {
    await testDb.reset();
    let streamReads = 0;
    const counting = (db: Db): Db =>
      new Proxy(db, {
        get(target, prop, receiver) {
          if (prop === "query") {
            return (sql: string, params?: unknown[]) => {
              if (sql.includes('"sg_asset_holdings"."holdings" WHERE "_id" >')) streamReads++;
              return target.query(sql, params);
            };
          }
          return Reflect.get(target, prop, receiver);
        },
      });
    const api = await startCustomApi(testDb.db, 60_000, counting);
    const sql = '"sg_asset_holdings"."holdings"';
    const N = 300;
    try {
      const clients = await Promise.all(
        Array.from({ length: N }, () => openSse(`${api.url}/v1/subgraphs/asset-holdings/holdings/stream`)),
      );
      expect(clients.every((c) => c.status === 200)).toBe(true);
      await waitFor(() => api.hub.subscriberCount >= 1);
      streamReads = 0;
      for (let b = 0; b < 3; b++) {
        await commitBlock(testDb.db, async (q) => {
          await q.query(
            `INSERT INTO ${sql} (kind, amount, holder, asset_identifier, _block_height, _tx_id) VALUES ('ft', $1::numeric, $2, 'STX', $1::bigint, '0xb')`,
            [String(b + 1), `SPFAN${b}`],
          );
        });
        await waitFor(() => clients.every((c) => c.rows().length === b + 1), { timeoutMs: 20_000 });
      }
      console.log(`${N} clients, 3 blocks: ${streamReads} stream reads`);
      expect(streamReads).toBeLessThanOrEqual(3 * 3);
      for (const c of clients) c.close();
    } finally {
      await api.close();
    }
  });
});
