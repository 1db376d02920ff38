/**
 * One meaning of `fork_point_height` on every surface (README "Reorgs"): the lowest orphaned
 * height, i.e. the common ancestor's height + 1.
 * - mainnet-reorg-scenario1 (blocks 30a and 30b both on block 29; 31 builds on 30b): the
 *   `chain.reorg.rollback` delivery, the Index and Streams `reorgs` records, the events SSE
 *   reorg frame and the subgraph row stream's reorg frame all say 30;
 * - a simulated chain with many won forks: a receiver applying SPEC.md's rule for a truncated
 *   rollback (treat everything at or above `fork_point_height` as orphaned) keeps the common
 *   ancestor's applies and ends with exactly the canonical events.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../runtime/service.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { expectedChain, type RawRequest } from "../../support/chain-model.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../../support/fixtures.js";
import { type Receiver, startReceiver } from "../../support/receiver.js";
import { postObserver, startTestService, waitFor } from "../../support/service.js";
import { foldChainDeliveries, waitForOutboxDrained, webhookClient } from "../../support/webhooks.js";
import { applyFrames, modelChain, openSse, pick } from "../../support/read-api-model.js";
import { applyRowFrames, openSse as openSubgraphSse } from "../../support/subgraph-read.js";

let t: TestDb;
let svc: Service | undefined;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await createTestDb();
});

afterAll(async () => {
  await svc?.stop();
  for (const r of receivers) await r.close();
  await t?.drop();
});

async function freshService(env: Record<string, string>): Promise<Service> {
  await svc?.stop();
  await t.reset();
  svc = await startTestService(
    t.db,
    { WEBHOOK_ALLOW_PRIVATE: "true", ...env },
    { dispatcher: { pollIntervalMs: 100 } },
  );
  return svc;
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** Canonical committed events of `types` as `<block_hash>:<tx_id>:<event_index>`, with their heights. */
async function canonicalApplies(types: string[]): Promise<Map<string, number>> {
  const { rows } = await t.db.query<{ k: string; h: number }>(
    `SELECT b.block_hash || ':' || e.tx_id || ':' || e.event_index AS k, e.block_height AS h
       FROM chain.events e JOIN chain.blocks b ON b.index_block_hash = e.index_block_hash
      WHERE e.canonical AND e.committed AND e.event_type = ANY($1::text[])`,
    [types],
  );
  return new Map(rows.map((r) => [r.k, Number(r.h)]));
}

async function tableIds(sqlName: string): Promise<number[]> {
  const { rows } = await t.db.query<{ id: string }>(`SELECT "_id" AS id FROM ${sqlName} ORDER BY "_id"`);
  return rows.map((r) => Number(r.id));
}

async function listPage(url: string): Promise<{ reorgs: Record<string, unknown>[] }> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return (await res.json()) as { reorgs: Record<string, unknown>[] };
}

const reorgData = (items: { kind: string; event?: string; data?: string }[]) =>
  items.filter((i) => i.kind === "event" && i.event === "reorg").map((i) => JSON.parse(i.data as string));

describe.skipIf(!hasFixtures)("mainnet-reorg-scenario1: block 30a orphaned, common ancestor 29", () => {
  it("fork_point_height is 30 in the rollback delivery, the Index/Streams reorgs and both SSE reorg frames", async () => {
    const requests: RawRequest[] = readReplayTsv(
      path.join(FIXTURES_DIR, "observer/stacks-blockchain-api/mainnet-reorg-scenario1.tsv"),
    ).map((r) => ({ path: r.path, body: r.body }));
    // The expectation, from the raw JSON: two blocks at 30 on the same parent at 29; the one seen
    // first is orphaned when 31 builds on the other, so the lowest orphaned height is 29 + 1.
    // biome-ignore lint/suspicious/noExplicitAny: raw fixture JSON
    const blocks: any[] = requests.filter((r) => r.path === "/new_block").map((r) => JSON.parse(r.body));
    const byHash = new Map(blocks.map((b) => [b.index_block_hash, b]));
    const at30 = blocks.filter((b) => b.block_height === 30);
    expect(at30).toHaveLength(2);
    expect(at30.map((b) => byHash.get(b.parent_index_block_hash)?.block_height)).toEqual([29, 29]);
    const child31 = blocks.find((b) => b.block_height === 31);
    expect(child31.parent_index_block_hash).toBe(at30[1].index_block_hash);
    const forkPoint = 29 + 1;
    expect(expectedChain(requests).reorgForkPoints).toEqual([forkPoint]);
    const first30 = requests.findIndex((r) => r.path === "/new_block" && JSON.parse(r.body).block_height === 30);

    const service = await freshService({ NETWORK: "mainnet" });
    const r = await receiver();
    const created = await webhookClient(service.apiUrl).create({
      name: "stx",
      url: r.url,
      triggers: [{ type: "stx_transfer" }],
    });
    const webhookId = String(created.body.id);
    const events = await openSse(`${service.apiUrl}/v1/streams/events/stream?from_height=0`);
    const holdings = await openSubgraphSse(`${service.apiUrl}/v1/subgraphs/asset-holdings/holdings/stream?since=0`);
    const holdingsSql = '"sg_asset_holdings"."holdings"';
    try {
      expect(events.status).toBe(200);
      expect(holdings.status).toBe(200);
      // Up to and including 30a, then wait until every surface has handed 30a out: the reorg then
      // concerns what each consumer holds.
      const phases = [requests.slice(0, first30 + 1), requests.slice(first30 + 1)];
      let sofar: RawRequest[] = [];
      for (const phase of phases) {
        for (const q of phase) await postObserver(service.observerUrl, q.path, q.body);
        await service.idle();
        sofar = [...sofar, ...phase];
        const want = modelChain(sofar).events;
        await waitFor(() => JSON.stringify(applyFrames(events.items).events.map(pick)) === JSON.stringify(want));
        const ids = JSON.stringify(await tableIds(holdingsSql));
        await waitFor(() => JSON.stringify([...applyRowFrames(holdings.items).keys()].sort((a, b) => a - b)) === ids);
        await waitForOutboxDrained(t.db, webhookId);
      }

      // Webhook: one rollback, at 30; a receiver applying the truncated rule keeps everything below.
      const { rollbacks } = foldChainDeliveries(r);
      expect(rollbacks.map((d) => d.fork_point_height)).toEqual([forkPoint]);
      const canonical = await canonicalApplies(["stx_transfer"]);
      expect(foldChainDeliveries(r, { rule: "fork-point" }).applied).toEqual(new Set(canonical.keys()));

      // Index and Streams records.
      const index = await listPage(`${service.apiUrl}/v1/index/events?from_height=29&to_height=31`);
      expect(index.reorgs.map((x) => x.fork_point_height)).toEqual([forkPoint]);
      expect(index.reorgs[0]).toMatchObject({ orphaned_from_height: 30, orphaned_to_height: 30 });
      const streams = await listPage(`${service.apiUrl}/v1/streams/events?cursor=28:0`);
      expect(streams.reorgs.map((x) => x.fork_point_height)).toEqual([forkPoint]);

      // SSE: the events stream's reorg frame is that record; the client ends with the canonical events.
      expect(reorgData(events.items).map((d) => d.fork_point_height)).toEqual([forkPoint]);
      expect(applyFrames(events.items).events.map(pick)).toEqual(modelChain(requests).events);
      // The holdings stream delivered rows 30a created; the revert removed them.
      const rowFrames = reorgData(holdings.items);
      expect(rowFrames.length).toBeGreaterThan(0);
      for (const f of rowFrames) expect(f.fork_point_height).toBe(forkPoint);
    } finally {
      events.close();
      holdings.close();
    }
  });
});

describe("a simulated chain with many won forks", () => {
  it("a receiver dropping every apply at or above fork_point_height keeps the common ancestors' applies", async () => {
    const service = await freshService({ NETWORK: "devnet" });
    const r = await receiver();
    const types = ["stx_transfer", "ft_mint", "nft_mint", "print"];
    const created = await webhookClient(service.apiUrl).create({
      name: "all",
      url: r.url,
      concurrency: 4,
      triggers: [{ type: "stx_transfer" }, { type: "ft_mint" }, { type: "nft_mint" }, { type: "print_event" }],
    });
    const seed = "reorg-fork-point";
    const { payloads, truth } = simulateChain({ seed, blocks: 40, eventsPerBlock: 10, forkRate: 0.3 });
    expect(truth.forks.filter((f) => f.outcome === "won").length, `seed ${seed}`).toBeGreaterThan(3);
    for (const p of payloads) await postObserver(service.observerUrl, p.path, JSON.stringify(p.body));
    await service.idle();
    await waitForOutboxDrained(t.db, String(created.body.id));

    const canonical = await canonicalApplies(types);
    const { applied, rollbacks } = foldChainDeliveries(r, { rule: "fork-point" });
    expect(rollbacks.length).toBeGreaterThan(0);
    // The rule is only tested if some common ancestor (fork_point_height − 1) has applies to keep.
    const heights = new Set(canonical.values());
    expect(rollbacks.some((d) => heights.has((d.fork_point_height as number) - 1))).toBe(true);
    expect(applied).toEqual(new Set(canonical.keys()));
  });
});
