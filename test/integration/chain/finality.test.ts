/**
 * Finality that holds (README "Finality") on the recorded mainnet-reorg-scenario1 — competing
 * blocks at 30 (the second one wins), 45 and 47 (both undecided at the end), while the burn chain
 * runs far ahead of the Stacks blocks — replayed one request at a time:
 * - after every request, /status reports the boundary an independent model of the fixture
 *   computes (test/support/chain-model.ts expectedFinality: heights, parents, burn heights);
 * - a height reported final is never orphaned later, unless the reorg that orphans it says
 *   `below_finality: true`, is counted in /status and logged;
 * - at the end the boundary is below 47, where two tips compete;
 * - an immutable Index page is no longer answered as immutable (nor from memory) once a
 *   competing block makes its height undecided, and shows the new chain after the reorg.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../../runtime/config/index.js";
import { createLogger } from "../../../runtime/internal/logger.js";
import { type Service, startService } from "../../../runtime/service.js";
import { expectedFinality, type RawRequest } from "../../support/chain-model.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../../support/fixtures.js";
import { postObserver, waitFor } from "../../support/service.js";
import { modelChain, pick } from "../../support/read-api-model.js";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t?.drop();
});

const requests = (): RawRequest[] =>
  readReplayTsv(path.join(FIXTURES_DIR, "observer/stacks-blockchain-api/mainnet-reorg-scenario1.tsv")).map((r) => ({
    path: r.path,
    body: r.body,
  }));

/** The service with FINALITY_BURN_CONFIRMATIONS = `confirmations`, logging errors into `logged`. */
async function service(confirmations: number, logged: Record<string, unknown>[]): Promise<Service> {
  await t.reset();
  const config = parseConfig({
    API_PORT: "0",
    OBSERVER_PORT: "0",
    DATA_DIR: ".tmp/unused",
    NETWORK: "mainnet",
    FINALITY_BURN_CONFIRMATIONS: String(confirmations),
  });
  const logger = createLogger({ level: "error", write: (line) => logged.push(JSON.parse(line)) });
  return startService({ config, logger, db: t.db });
}

interface Status {
  tip: { finalized_height: number | null };
  lag: { burn_blocks: number | null };
  counts: { reorgs: number; reorgs_below_finality: number };
}

async function status(s: Service): Promise<Status> {
  const res = await fetch(`${s.apiUrl}/status`);
  expect(res.status).toBe(200);
  return (await res.json()) as Status;
}

async function canonicalAtOrBelow(height: number): Promise<Map<number, string>> {
  const { rows } = await t.db.query<{ h: number; hash: string }>(
    "SELECT block_height AS h, index_block_hash AS hash FROM chain.blocks WHERE canonical AND block_height <= $1",
    [height],
  );
  return new Map(rows.map((r) => [Number(r.h), r.hash]));
}

describe.skipIf(!hasFixtures)("mainnet-reorg-scenario1 replayed request by request", () => {
  for (const confirmations of [6, 0]) {
    it(`FINALITY_BURN_CONFIRMATIONS=${confirmations}: the boundary holds, or the reorg below it is flagged, counted and logged`, async () => {
      const all = requests();
      const model = expectedFinality(all, confirmations);
      // The model itself on this fixture: one reorg, at 30; it goes below finality only when a
      // block counts as final the moment it arrives.
      expect(model.reorgs).toEqual([{ forkPointHeight: 30, belowFinality: confirmations === 0 }]);

      const logged: Record<string, unknown>[] = [];
      const s = await service(confirmations, logged);
      try {
        // Every height reported final, with the block that was canonical there at the time.
        const promised = new Map<number, Set<string>>();
        for (const [i, r] of all.entries()) {
          await postObserver(s.observerUrl, r.path, r.body);
          await s.idle();
          const now = await status(s);
          expect(
            {
              finalized_height: now.tip.finalized_height,
              reorgs_below_finality: now.counts.reorgs_below_finality,
              burn_blocks: now.lag.burn_blocks,
            },
            `after request ${i + 1} (${r.path})`,
          ).toEqual({
            finalized_height: model.steps[i].finalizedHeight,
            reorgs_below_finality: model.steps[i].reorgsBelowFinality,
            burn_blocks: model.steps[i].burnLag,
          });
          if (now.tip.finalized_height === null) continue;
          for (const [h, hash] of await canonicalAtOrBelow(now.tip.finalized_height)) {
            promised.set(h, (promised.get(h) ?? new Set()).add(hash));
          }
        }

        const { rows: reorgs } = await t.db.query<{ fork_point_height: number; below_finality: boolean }>(
          "SELECT fork_point_height, below_finality FROM chain.reorgs ORDER BY id",
        );
        expect(reorgs.map((r) => ({ forkPointHeight: r.fork_point_height, belowFinality: r.below_finality }))).toEqual(
          model.reorgs,
        );
        for (const route of ["/v1/index/events?from_height=29&to_height=31", "/v1/streams/events?cursor=29:0"]) {
          const page = (await (await fetch(`${s.apiUrl}${route}`)).json()) as { reorgs: Record<string, unknown>[] };
          expect(
            page.reorgs.map((x) => [x.fork_point_height, x.below_finality]),
            route,
          ).toEqual(model.reorgs.map((x) => [x.forkPointHeight, x.belowFinality]));
        }
        // A promise broken: the block reported final at that height is no longer canonical.
        const canonical = await canonicalAtOrBelow(2 ** 31 - 1);
        const broken = [...promised].filter(([h, hashes]) => [...hashes].some((hash) => canonical.get(h) !== hash));
        const flagged = reorgs.filter((r) => r.below_finality);
        for (const [h] of broken) expect(flagged.some((r) => r.fork_point_height <= h)).toBe(true);
        if (confirmations === 6) expect(broken).toEqual([]);
        else expect(broken.map(([h]) => h)).toEqual([30]);

        const end = await status(s);
        expect(end.counts.reorgs_below_finality).toBe(flagged.length);
        const belowLogs = logged.filter((l) => l.msg === "reorg below the finality boundary");
        expect(belowLogs.map((l) => l.fork_point_height)).toEqual(flagged.map((r) => r.fork_point_height));

        // The end: two blocks compete at 47 (one canonical for now), and 47 is not final.
        const { rows: at47 } = await t.db.query<{ canonical: boolean }>(
          "SELECT canonical FROM chain.blocks WHERE block_height = 47 ORDER BY canonical",
        );
        expect(at47.map((r) => r.canonical)).toEqual([false, true]);
        expect(end.tip.finalized_height).not.toBeNull();
        expect(end.tip.finalized_height as number).toBeLessThan(47);
      } finally {
        await s.stop();
      }
    });
  }

  it("an immutable page at a height that becomes contested turns short-lived, and shows the new chain after the reorg", async () => {
    const all = requests();
    const blockAt = (height: number, nth: number) =>
      all.filter((r) => r.path === "/new_block" && JSON.parse(r.body).block_height === height)[nth];
    const upTo = (r: RawRequest) => all.slice(0, all.indexOf(r) + 1);
    const first30 = blockAt(30, 0);
    const second30 = blockAt(30, 1);
    const block31 = blockAt(31, 0);
    // With no confirmations required, 30a is final as soon as it is the tip.
    const model = expectedFinality(all, 0);
    expect(model.steps[all.indexOf(first30)].finalizedHeight).toBe(30);
    expect(model.steps[all.indexOf(second30)].finalizedHeight).toBe(29);

    const s = await service(0, []);
    const url = `${s.apiUrl}/v1/index/events?from_height=30&to_height=30`;
    const read = async () => {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { events: Record<string, unknown>[] };
      return { cacheControl: res.headers.get("cache-control"), events: body.events.map(pick) };
    };
    const want = (sofar: RawRequest[]) => modelChain(sofar).events.filter((e) => e.block_height === 30);
    const ingest = async (rs: RawRequest[]) => {
      for (const r of rs) await postObserver(s.observerUrl, r.path, r.body);
      await s.idle();
    };
    try {
      await ingest(upTo(first30));
      const a = want(upTo(first30));
      expect(a.length).toBeGreaterThan(0);
      await waitFor(async () => (await read()).cacheControl === "public, max-age=31536000, immutable");
      expect((await read()).events).toEqual(a); // answered from memory now

      // 30b ties the tip: height 30 is undecided, the page may still change.
      await ingest(all.slice(all.indexOf(first30) + 1, all.indexOf(second30) + 1));
      await waitFor(async () => (await read()).cacheControl === "public, max-age=2");
      expect((await read()).events).toEqual(a);

      // 31 builds on 30b: the page now shows 30b's events.
      await ingest(all.slice(all.indexOf(second30) + 1, all.indexOf(block31) + 1));
      const b = want(upTo(block31));
      expect(b.map((e) => e.index_block_hash)).not.toEqual(a.map((e) => e.index_block_hash));
      await waitFor(async () => JSON.stringify((await read()).events) === JSON.stringify(b));
    } finally {
      await s.stop();
    }
  });
});
