/**
 * GET /v1/streams/events/stream over real HTTP (SPEC.md "SSE stream routes"; client contract in
 * runtime/api/events/stream-session.ts): live delivery while blocks arrive, reorg frames, exact
 * resume with Last-Event-ID, filters, the live-tail start, keepalive pings. The client applies
 * frames as the contract says (read-api-model.ts applyFrames) and must end with exactly the
 * canonical events computed from the raw observer JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiApp } from "../../../../runtime/api/app.js";
import { createChainHub } from "../../../../runtime/api/events/chain-hub.js";
import { startApiServer } from "../../../../runtime/api/http/server.js";
import { parseConfig } from "../../../../runtime/config/index.js";
import { silentLogger } from "../../../../runtime/internal/logger.js";
import type { Service } from "../../../../runtime/service.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import type { RawRequest } from "../../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { hasFixtures } from "../../../support/fixtures.js";
import { postObserver, startTestService, waitFor } from "../../../support/service.js";
import {
  type SseClient,
  applyFrames,
  modelChain,
  openSse,
  pick,
  replayFixtures,
} from "../../../support/read-api-model.js";

const SIM_SEED = "read-api-sse";

let testDb: TestDb;
beforeAll(async () => {
  testDb = await createTestDb();
});
afterAll(async () => {
  await testDb?.drop();
});

async function ingest(service: Service, requests: RawRequest[]) {
  for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
  await service.idle();
}

/** Polls until `actual()` deep-equals `expected`; on timeout, fails showing the difference. */
async function eventually<T>(actual: () => T, expected: T, timeoutMs = 30_000) {
  const want = JSON.stringify(expected);
  try {
    await waitFor(() => JSON.stringify(actual()) === want, { timeoutMs });
  } catch {
    expect(actual()).toEqual(expected);
  }
}

const received = (c: SseClient) => applyFrames(c.items).events.map(pick);

const eventFrames = (c: SseClient) => c.items.filter((i) => i.kind === "event" && i.event === undefined);

describe("event stream", () => {
  it("a stream open while a simulated chain (with forks) is ingested ends with exactly the canonical events", async () => {
    await testDb.reset();
    const { payloads, truth } = simulateChain({ seed: SIM_SEED, blocks: 40, eventsPerBlock: 12, forkRate: 0.25 });
    expect(truth.forks.length, `seed ${SIM_SEED} should produce forks`).toBeGreaterThan(0);
    const requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    const model = modelChain(requests);
    const service = await startTestService(testDb.db);
    const stream = await openSse(`${service.apiUrl}/v1/streams/events/stream?from_height=0`);
    try {
      expect(stream.status).toBe(200);
      for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
      await service.idle();
      await eventually(() => received(stream), model.events);
    } finally {
      stream.close();
      await service.stop();
    }
  });

  it.skipIf(!hasFixtures)(
    "mainnet-reorg-scenario2: a client that received orphaned events gets a reorg frame and the new chain",
    async () => {
      await testDb.reset();
      const fixture = replayFixtures().find((f) => f.name === "mainnet-reorg-scenario2.tsv");
      if (!fixture) throw new Error("fixture missing");
      const blocks = fixture.requests.filter((r) => r.path === "/new_block");
      const service = await startTestService(testDb.db);
      const stream = await openSse(`${service.apiUrl}/v1/streams/events/stream?from_height=0`);
      try {
        await ingest(service, blocks.slice(0, 2)); // h1, h2a
        const before = modelChain(blocks.slice(0, 2));
        await eventually(() => received(stream), before.events);
        await ingest(service, blocks.slice(2)); // h2b, h3 on h2b (reorg), h4
        const after = modelChain(blocks);
        await eventually(() => received(stream), after.events);
        const { events, reorgs } = applyFrames(stream.items);
        expect(reorgs).toHaveLength(1);
        expect(reorgs[0]).toMatchObject({ fork_point_height: 2, orphaned_from_height: 2, orphaned_to_height: 2 });
        const reorgFrame = stream.items.find((i) => i.kind === "event" && i.event === "reorg");
        expect(reorgFrame?.kind === "event" && reorgFrame.id).toBe(reorgs[0].resume_cursor);
        expect(events.map(pick)).toEqual(after.events);
      } finally {
        stream.close();
        await service.stop();
      }
    },
  );

  it.skipIf(!hasFixtures)(
    "resume: Last-Event-ID continues exactly after that cursor; filters apply; a cursor inside an orphaned range replays from the fork",
    async () => {
      await testDb.reset();
      const fixture = replayFixtures().find((f) => f.name === "mainnet-reorg-scenario1.tsv");
      if (!fixture) throw new Error("fixture missing");
      const model = modelChain(fixture.requests);
      const service = await startTestService(testDb.db);
      try {
        await ingest(service, fixture.requests);
        const wantAll = model.events;
        // A cursor below the fork (29) is outside every orphaned range.
        const resumeAt = wantAll.filter((e) => e.block_height < 25).at(-3);
        if (!resumeAt) throw new Error("fixture too small");
        const expected = wantAll.slice(wantAll.indexOf(resumeAt) + 1);
        for (const open of [
          () => openSse(`${service.apiUrl}/v1/streams/events/stream`, { "last-event-id": resumeAt.cursor }),
          // The header wins over a start position in the URL (an EventSource reconnects with both).
          () =>
            openSse(`${service.apiUrl}/v1/streams/events/stream?from_height=0`, { "last-event-id": resumeAt.cursor }),
          () => openSse(`${service.apiUrl}/v1/streams/events/stream?cursor=${resumeAt.cursor}`),
          () => openSse(`${service.apiUrl}/v1/streams/events/stream?from_cursor=${resumeAt.cursor}`),
        ]) {
          const stream = await open();
          try {
            await eventually(() => received(stream), expected);
            expect(stream.items.some((i) => i.kind === "event" && i.event === "reorg")).toBe(false);
            expect(applyFrames(stream.items).events.map(pick)).toEqual(expected);
            expect(eventFrames(stream).map((f) => f.kind === "event" && f.id)).toEqual(expected.map((e) => e.cursor));
          } finally {
            stream.close();
          }
        }

        // Filters: the same as the list route's.
        const locks = await openSse(`${service.apiUrl}/v1/streams/events/stream?from_height=0&types=stx_lock,print`);
        try {
          const want = wantAll.filter((e) => e.event_type === "stx_lock" || e.event_type === "print");
          await eventually(() => received(locks), want);
        } finally {
          locks.close();
        }

        // A stored cursor at height 30, which the reorg at fork point 29 orphaned: the client may
        // hold orphaned events, so it is told and the stream continues from resume_cursor.
        const atFork = wantAll.filter((e) => e.block_height <= 29).at(-1);
        const stale = await openSse(`${service.apiUrl}/v1/streams/events/stream`, { "last-event-id": "30:0" });
        try {
          const want = wantAll.filter((e) => e.block_height > 29);
          await eventually(() => received(stale), want);
          const first = stale.items.find((i) => i.kind === "event");
          expect(first?.kind === "event" && first.event).toBe("reorg");
          expect(first?.kind === "event" && first.id).toBe(atFork?.cursor);
          expect(applyFrames(stale.items).events.map(pick)).toEqual(want);
        } finally {
          stale.close();
        }
      } finally {
        await service.stop();
      }
    },
  );

  it("with no start position the stream begins three blocks below the tip, then tails new blocks", async () => {
    await testDb.reset();
    const { payloads } = simulateChain({ seed: `${SIM_SEED}-tail`, blocks: 30, eventsPerBlock: 8, forkRate: 0 });
    const requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    const split = requests.findIndex((r) => r.path === "/new_block" && JSON.parse(r.body).block_height === 21);
    const service = await startTestService(testDb.db);
    try {
      await ingest(service, requests.slice(0, split));
      const first = modelChain(requests.slice(0, split));
      const tip = first.tipHeight as number;
      const stream = await openSse(`${service.apiUrl}/v1/streams/events/stream`);
      try {
        const initial = first.events.filter((e) => e.block_height > tip - 3);
        await eventually(() => received(stream), initial);
        await ingest(service, requests.slice(split));
        const all = modelChain(requests);
        const want = all.events.filter((e) => e.block_height > tip - 3);
        await eventually(() => received(stream), want);
      } finally {
        stream.close();
      }
    } finally {
      await service.stop();
    }
  });

  it("sends `: ping` keepalives at the hub's interval and stops when the client leaves", async () => {
    await testDb.reset();
    const hub = await createChainHub({ db: testDb.db, logger: silentLogger, pingIntervalMs: 40 });
    const config = parseConfig({ API_PORT: "0", OBSERVER_PORT: "0", DATA_DIR: ".tmp/unused" });
    const status = { isReady: () => true, getStatus: async () => ({}) };
    const app = createApiApp({ config, logger: silentLogger, db: testDb.db, status, chainHub: hub });
    const server = await startApiServer(app, { host: "127.0.0.1", port: 0, closeGraceMs: 500 });
    try {
      const stream = await openSse(`${server.url}/v1/streams/events/stream`);
      expect(stream.status).toBe(200);
      await waitFor(() => stream.items.filter((i) => i.kind === "comment" && i.text === "ping").length >= 3);
      expect(hub.subscriberCount).toBe(1);
      stream.close();
      await waitFor(() => hub.subscriberCount === 0);
    } finally {
      await server.close();
      await hub.close();
    }
  });
});
