/**
 * GET /v1/index/events and GET /v1/streams/events over real HTTP on replayed chains (recorded
 * fixtures and a simulated chain with forks): cursor walks with small limits see every canonical
 * event exactly once and in order; filters equal an independent filter of the expected events;
 * reorgs are listed and orphaned events vanish; cache headers (SPEC.md "Index and Streams routes").
 * Expected events come from read-api-model.ts, computed from the raw observer JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import type { Service } from "../../../../runtime/service.js";
import type { RawRequest } from "../../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { hasFixtures } from "../../../support/fixtures.js";
import { postObserver, startTestService } from "../../../support/service.js";
import { type ModelChain, type ModelEvent, modelChain, pick, replayFixtures } from "../../../support/read-api-model.js";

type Page = {
  events: Record<string, unknown>[];
  next_cursor: string;
  tip: { block_height: number | null; finalized_height: number | null };
  reorgs: Record<string, unknown>[];
};

const SIM_SEED = "read-api-walk";

function simulatedRequests(blocks = 60): RawRequest[] {
  const { payloads } = simulateChain({ seed: SIM_SEED, blocks, eventsPerBlock: 25, forkRate: 0.15 });
  return payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
}

async function getPage(url: string): Promise<Page> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Page;
}

/** Pages through a route until a short page; checks next_cursor on the way. */
async function walk(base: string, route: string, params: Record<string, string>, limit: number) {
  const events: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 20_000; pages++) {
    const qs = new URLSearchParams({ ...params, limit: String(limit), ...(cursor !== undefined ? { cursor } : {}) });
    const page = await getPage(`${base}${route}?${qs}`);
    events.push(...page.events);
    if (page.events.length === limit) {
      expect(page.next_cursor).toBe(page.events[limit - 1].cursor);
      cursor = page.next_cursor;
      continue;
    }
    // Caught up: one more read from next_cursor is empty and does not move backwards.
    const again = await getPage(
      `${base}${route}?${new URLSearchParams({ ...params, limit: String(limit), cursor: page.next_cursor })}`,
    );
    expect(again.events).toEqual([]);
    expect(again.next_cursor).toBe(page.next_cursor);
    return { events, last: page };
  }
  throw new Error("walk did not finish");
}

function mostFrequent(values: (string | null)[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
}

async function ingest(service: Service, requests: RawRequest[]) {
  for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
  await service.idle();
}

describe("event walks over replayed chains", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  const cases = [...replayFixtures(), { name: `simulated chain (seed ${SIM_SEED})`, requests: simulatedRequests() }];
  for (const fixture of cases) {
    it(`${fixture.name}: Index and Streams walks see every canonical event once, in order; filters match`, async () => {
      await testDb.reset();
      const service = await startTestService(testDb.db);
      try {
        await ingest(service, fixture.requests);
        const model: ModelChain = modelChain(fixture.requests);
        const want = model.events;
        const base = service.apiUrl;
        const big = want.length > 1000;

        // Index: small limits and the maximum.
        for (const limit of big ? [7, 1000] : [1, 7, 1000]) {
          const { events } = await walk(base, "/v1/index/events", {}, limit);
          expect(events.map(pick)).toEqual(want);
        }
        const { events: all, last } = await walk(base, "/v1/index/events", {}, 1000);
        expect(last.tip.block_height).toBe(model.tipHeight);
        for (const e of all) {
          expect(model.orphanedHashes.has(e.index_block_hash as string)).toBe(false);
          expect(typeof e.payload).toBe("object");
          const fin = last.tip.finalized_height;
          expect(e.finalized).toBe(fin !== null && (e.block_height as number) <= fin);
        }

        // Index: a height range (every chain here has events).
        expect(want.length).toBeGreaterThan(0);
        const lo = want[Math.floor(want.length / 3)].block_height;
        const hi = want[Math.floor((2 * want.length) / 3)].block_height;
        const ranged = await walk(base, "/v1/index/events", { from_height: String(lo), to_height: String(hi) }, 5);
        expect(ranged.events.map(pick)).toEqual(want.filter((e) => e.block_height >= lo && e.block_height <= hi));
        // from_cursor is an exclusive start like cursor.
        const mid = want[Math.floor(want.length / 2)];
        const after = await getPage(`${base}/v1/index/events?from_cursor=${mid.cursor}&limit=3`);
        expect(after.events.map(pick)).toEqual(want.slice(want.indexOf(mid) + 1, want.indexOf(mid) + 4));

        // Streams: unfiltered, then each filter against an independent filter of the model.
        const streams = await walk(base, "/v1/streams/events", {}, big ? 250 : 9);
        expect(streams.events.map(pick)).toEqual(want);
        const filters: [Record<string, string>, (e: ModelEvent) => boolean][] = [];
        for (const type of new Set(want.map((e) => e.event_type)))
          filters.push([{ types: type }, (e) => e.event_type === type]);
        filters.push([
          { not_types: "stx_transfer,print" },
          (e) => e.event_type !== "stx_transfer" && e.event_type !== "print",
        ]);
        const multi = ["ft_transfer", "nft_mint", "stx_lock", "print"];
        filters.push([{ types: multi.join(",") }, (e) => multi.includes(e.event_type)]);
        filters.push([{ types: "ft_mint,ft_burn", not_types: "ft_burn" }, (e) => e.event_type === "ft_mint"]);
        const sender = mostFrequent(want.map((e) => e.sender));
        if (sender) filters.push([{ sender }, (e) => e.sender === sender]);
        const recipient = mostFrequent(want.map((e) => e.recipient));
        if (recipient) filters.push([{ recipient }, (e) => e.recipient === recipient]);
        const contract = mostFrequent(want.map((e) => e.contract_id));
        if (contract) filters.push([{ contract_id: contract }, (e) => e.contract_id === contract]);
        const asset = mostFrequent(want.filter((e) => e.asset_identifier !== "STX").map((e) => e.asset_identifier));
        if (asset) filters.push([{ asset_identifier: asset }, (e) => e.asset_identifier === asset]);
        filters.push([{ asset_identifier: "STX" }, (e) => e.asset_identifier === "STX"]);
        const ftSender = mostFrequent(want.filter((e) => e.event_type === "ft_transfer").map((e) => e.sender));
        if (ftSender) {
          filters.push([
            { types: "ft_transfer,stx_transfer", sender: ftSender },
            (e) => (e.event_type === "ft_transfer" || e.event_type === "stx_transfer") && e.sender === ftSender,
          ]);
        }
        for (const [params, keep] of filters) {
          const expected = want.filter(keep);
          const limit = Math.max(3, Math.ceil(expected.length / 6));
          const { events } = await walk(base, "/v1/streams/events", params, limit);
          expect(events.map(pick), JSON.stringify(params)).toEqual(expected);
        }
      } finally {
        await service.stop();
      }
    });
  }
});

describe.skipIf(!hasFixtures)("reorgs on the Index and Streams lists", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  it("mainnet-reorg-scenario1: a page covering the fork heights lists the reorg; orphaned events are absent", async () => {
    await testDb.reset();
    const fixture = replayFixtures().find((f) => f.name === "mainnet-reorg-scenario1.tsv");
    if (!fixture) throw new Error("fixture missing");
    const service = await startTestService(testDb.db);
    try {
      await ingest(service, fixture.requests);
      const model = modelChain(fixture.requests);
      const page = await getPage(`${service.apiUrl}/v1/index/events?from_height=29&to_height=31&limit=1000`);
      expect(page.events.map(pick)).toEqual(model.events.filter((e) => e.block_height >= 29 && e.block_height <= 31));
      // Blocks 30a and 30b compete on block 29; 31 builds on 30b: the lowest orphaned height is 30.
      expect(page.reorgs.map((r) => r.fork_point_height)).toContain(30);
      const reorg = page.reorgs.find((r) => r.fork_point_height === 30) as Record<string, unknown>;
      expect(reorg).toMatchObject({ orphaned_from_height: 30, orphaned_to_height: 30 });
      const orphaned = (reorg.orphaned_blocks as { index_block_hash: string }[]).map((b) => b.index_block_hash);
      for (const h of orphaned) expect(model.orphanedHashes.has(h)).toBe(true);
      // resume_cursor: the last canonical event below the fork point.
      const below = model.events.filter((e) => e.block_height < 30);
      expect(reorg.resume_cursor).toBe(below[below.length - 1]?.cursor ?? "");
      // A page far from the fork lists no reorg.
      const early = await getPage(`${service.apiUrl}/v1/index/events?to_height=20&limit=1000`);
      expect(early.reorgs).toEqual([]);
      const streams = await getPage(`${service.apiUrl}/v1/streams/events?cursor=29:0&limit=1000`);
      expect(streams.reorgs.map((r) => r.fork_point_height)).toContain(30);
    } finally {
      await service.stop();
    }
  });

  it("mainnet-reorg-scenario2: a reader holding orphaned events is told on its next page and re-reads the new chain", async () => {
    await testDb.reset();
    const fixture = replayFixtures().find((f) => f.name === "mainnet-reorg-scenario2.tsv");
    if (!fixture) throw new Error("fixture missing");
    const blocks = fixture.requests.filter((r) => r.path === "/new_block");
    // Arrival order: h1, h2a, h2b (side branch), h3 on h2b (the reorg), h4.
    const heights = blocks.map((r) => JSON.parse(r.body).block_height);
    expect(heights.slice(0, 4)).toEqual([1, 2, 2, 3]);
    const service = await startTestService(testDb.db);
    try {
      await ingest(service, blocks.slice(0, 2));
      const before = modelChain(blocks.slice(0, 2));
      const first = await getPage(`${service.apiUrl}/v1/index/events?limit=1000`);
      expect(first.events.map(pick)).toEqual(before.events);
      const held = first.next_cursor;
      expect(held.startsWith("2:")).toBe(true);

      await ingest(service, blocks.slice(2));
      const after = modelChain(blocks);
      const next = await getPage(`${service.apiUrl}/v1/index/events?cursor=${held}&limit=1000`);
      expect(next.reorgs).toHaveLength(1);
      const reorg = next.reorgs[0];
      expect(reorg.fork_point_height).toBe(2);
      // Orphaned h2a events are gone from every later page.
      const orphanedH2 = before.events.filter((e) => e.block_height === 2).map((e) => e.index_block_hash);
      for (const e of next.events) expect(orphanedH2).not.toContain(e.index_block_hash);
      // Re-reading from resume_cursor yields exactly the canonical events at and above the fork point.
      const reread = await walk(service.apiUrl, "/v1/index/events", {}, 4);
      expect(reread.events.map(pick)).toEqual(after.events);
      const resumed = await getPage(`${service.apiUrl}/v1/index/events?cursor=${reorg.resume_cursor}&limit=1000`);
      expect(resumed.events.map(pick)).toEqual(after.events.filter((e) => e.block_height >= 2));
    } finally {
      await service.stop();
    }
  });
});

describe("cache headers", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  it("finalized pages are immutable with an ETag (If-None-Match → 304); pages near the tip are short-lived", async () => {
    await testDb.reset();
    // A third of the walks' chain: finalized blocks below, six unfinalized at the tip.
    const requests = simulatedRequests(20);
    const service = await startTestService(testDb.db, { FINALITY_BURN_CONFIRMATIONS: "6" });
    try {
      await ingest(service, requests);
      const model = modelChain(requests);
      const probe = await getPage(`${service.apiUrl}/v1/index/events?limit=1`);
      const fin = probe.tip.finalized_height;
      expect(fin).not.toBeNull();
      const finalEvents = model.events.filter((e) => e.block_height <= (fin as number));
      expect(finalEvents.length).toBeGreaterThan(3);

      const url = `${service.apiUrl}/v1/index/events?limit=3`;
      const res = await fetch(url);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      const etag = res.headers.get("etag");
      expect(etag).toMatch(/^W\/"/);
      // fetch adds `Cache-Control: no-cache` to conditional requests unless one is given, and
      // no-cache asks for a full response: send what a revalidating cache sends.
      const cached = await fetch(url, { headers: { "if-none-match": etag as string, "cache-control": "max-age=0" } });
      expect(cached.status).toBe(304);
      expect(await cached.text()).toBe("");
      // to_height at or below the finalized height bounds a short page: immutable too.
      const bounded = await fetch(`${service.apiUrl}/v1/index/events?to_height=${fin}&limit=1000`);
      expect(bounded.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      // A page reaching the tip is short-lived.
      const last = model.events[model.events.length - 1];
      const tail = await fetch(
        `${service.apiUrl}/v1/streams/events?cursor=${model.events[model.events.length - 3].cursor}`,
      );
      expect(tail.headers.get("cache-control")).toBe("public, max-age=2");
      const tailBody = (await tail.json()) as Page;
      expect(tailBody.events.map(pick).at(-1)).toEqual(last);
      expect(tailBody.events.every((e) => e.finalized === (e.block_height as number) <= (fin as number))).toBe(true);
    } finally {
      await service.stop();
    }
  });

  it("an empty chain answers an empty page whose next_cursor reads from the start", async () => {
    await testDb.reset();
    const service = await startTestService(testDb.db);
    try {
      const page = await getPage(`${service.apiUrl}/v1/index/events`);
      expect(page).toEqual({
        events: [],
        next_cursor: "",
        tip: { block_height: null, finalized_height: null },
        reorgs: [],
      });
      const again = await getPage(`${service.apiUrl}/v1/streams/events?cursor=`);
      expect(again.events).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});
