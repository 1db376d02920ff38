/**
 * Replay and forward-only triggers (SPEC.md replay rules):
 * chain webhooks start at the tip; a replay enqueues history flagged `is_replay`, is idempotent
 * (same range → same replayId, nothing enqueued twice), never moves the live start, never replays
 * `sbtc_withdrawal_swept_confirmed`, which fires once when a withdrawal-accept print becomes final;
 * subgraph webhooks replay their table's rows as `<subgraph>.<table>.replay`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../runtime/service.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { type Receiver, startReceiver } from "../../support/receiver.js";
import { postObserver, startTestService, waitFor } from "../../support/service.js";
import { outboxCount, waitForOutboxDrained, webhookClient } from "../../support/webhooks.js";

let t: TestDb;
let svc: Service;
let api: ReturnType<typeof webhookClient>;
const receivers: Receiver[] = [];
const REGISTRY = "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.sbtc-registry";

// A devnet chain rich in sBTC activity; finality after 2 burn confirmations, so prints become final mid-run.
const { payloads } = simulateChain({
  seed: "webhooks-replay",
  blocks: 40,
  eventsPerBlock: 8,
  forkRate: 0.1,
  mix: { sbtc: 4, stx_transfer: 3, ft_mint: 2, bns: 1 },
});
const firstHalf = payloads.slice(0, Math.floor(payloads.length / 2));
const secondHalf = payloads.slice(firstHalf.length);

async function post(list: typeof payloads): Promise<void> {
  for (const p of list) await postObserver(svc.observerUrl, p.path, JSON.stringify(p.body));
  await svc.idle();
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function tipHeight(): Promise<number> {
  const { rows } = await t.db.query<{ h: number }>("SELECT block_height AS h FROM control.chain_tip");
  return rows[0].h;
}

async function canonicalCount(where: string, params: unknown[] = []): Promise<number> {
  const { rows } = await t.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM chain.events e WHERE e.canonical AND e.committed AND ${where}`,
    params,
  );
  return Number(rows[0].n);
}

beforeAll(async () => {
  t = await createTestDb();
  svc = await startTestService(
    t.db,
    { WEBHOOK_ALLOW_PRIVATE: "true", NETWORK: "devnet", FINALITY_BURN_CONFIRMATIONS: "2" },
    { dispatcher: { pollIntervalMs: 100 } },
  );
  api = webhookClient(svc.apiUrl);
});

afterAll(async () => {
  await svc?.stop();
  for (const r of receivers) await r.close();
  await t?.drop();
});

describe("replay", () => {
  it("chain webhooks start at the tip; a replay sends history flagged is_replay, idempotently, without moving the live start", async () => {
    const early = await receiver();
    const sweeps = await api.create({
      name: "sweeps",
      url: early.url,
      triggers: [{ type: "sbtc_withdrawal_swept_confirmed" }],
    });
    expect(sweeps.status).toBe(201);
    await post(firstHalf);
    const tip = await tipHeight();

    const r = await receiver();
    const created = await api.create({
      name: "history",
      url: r.url,
      triggers: [
        { type: "stx_transfer" },
        { type: "sbtc_withdrawal_accept" },
        { type: "sbtc_withdrawal_swept_confirmed" },
      ],
    });
    expect(created.body.startHeight).toBe(tip);
    const id = String(created.body.id);
    expect(await outboxCount(t.db, "webhook_id = $1", [id])).toBe(0); // no backfill

    const replay = await api.replay("history", { fromBlock: 1, toBlock: tip });
    expect(replay.status).toBe(200);
    const transfers = await canonicalCount("e.event_type = 'stx_transfer' AND e.block_height BETWEEN 1 AND $1", [tip]);
    const accepts = await canonicalCount(
      "e.event_type = 'print' AND e.contract_id = $2 AND e.payload->'value'->>'topic' = 'withdrawal-accept' AND e.block_height BETWEEN 1 AND $1",
      [tip, REGISTRY],
    );
    expect(accepts).toBeGreaterThan(0);
    expect(replay.body).toEqual({
      replayId: expect.stringMatching(/^rpl_/),
      enqueuedCount: transfers + accepts,
      scannedCount: expect.any(Number),
    });
    expect(Number(replay.body.scannedCount)).toBeGreaterThanOrEqual(transfers + accepts);
    await waitForOutboxDrained(t.db, id);
    const bodies = r.deliveredBodies() as { type: string; data: { is_replay?: boolean; trigger: string } }[];
    expect(bodies).toHaveLength(transfers + accepts);
    for (const b of bodies) {
      expect(b.data.is_replay).toBe(true);
      expect(b.type).toBe(`chain.${b.data.trigger}.apply`);
      expect(b.data.trigger).not.toBe("sbtc_withdrawal_swept_confirmed"); // forward-only, never replayed
    }

    // Idempotent: the same range again enqueues nothing and answers the same replayId.
    const again = await api.replay("history", { fromBlock: 1, toBlock: tip });
    expect(again.body).toMatchObject({ replayId: replay.body.replayId, enqueuedCount: 0 });
    const overlap = await api.replay(id, { fromBlock: Math.max(1, tip - 5), toBlock: tip });
    expect(overlap.body.enqueuedCount).toBe(0);
    expect(overlap.body.replayId).not.toBe(replay.body.replayId);
    expect(await outboxCount(t.db, "webhook_id = $1", [id])).toBe(transfers + accepts);

    // The live start did not move: new blocks above the tip are delivered live, not as replays.
    expect((await api.get("history")).body.startHeight).toBe(tip);
    await post(secondHalf);
    await waitForOutboxDrained(t.db, id);
    const live = (
      r.deliveredBodies() as { data: { action: string; is_replay?: boolean; block_height: number } }[]
    ).filter((b) => b.data.action === "apply" && !b.data.is_replay);
    expect(live.length).toBeGreaterThan(0);
    for (const b of live) expect(b.data.block_height).toBeGreaterThan(tip);

    // Sweep confirmations fired once each, for accepts that became final after the webhook's start.
    const { rows } = await t.db.query<{ h: number }>(
      "SELECT swept_confirmed_height AS h FROM control.webhook_progress",
    );
    const confirmedTo = rows[0].h;
    const finalAccepts = await canonicalCount(
      "e.event_type = 'print' AND e.contract_id = $1 AND e.payload->'value'->>'topic' = 'withdrawal-accept' AND e.block_height > $2 AND e.block_height <= $3",
      [REGISTRY, sweeps.body.startHeight, confirmedTo],
    );
    expect(finalAccepts).toBeGreaterThan(0);
    await waitForOutboxDrained(t.db, String(sweeps.body.id));
    const confirmations = early.deliveredBodies() as {
      type: string;
      data: { tx_id: string; event: { event_index: number } };
    }[];
    expect(confirmations.every((b) => b.type === "chain.sbtc_withdrawal_swept_confirmed.apply")).toBe(true);
    expect(new Set(confirmations.map((b) => `${b.data.tx_id}:${b.data.event.event_index}`)).size).toBe(finalAccepts);
    expect(confirmations).toHaveLength(finalAccepts);
  });

  it("a subgraph webhook replays its table's rows in the range as <subgraph>.<table>.replay", async () => {
    const r = await receiver();
    const created = await api.create({
      name: "names",
      url: r.url,
      subgraphName: "asset-holdings",
      tableName: "holdings",
      filter: { kind: "ft" },
    });
    const id = String(created.body.id);
    const tip = await tipHeight();
    const { rows } = await t.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM sg_asset_holdings.holdings WHERE kind = 'ft' AND _block_height BETWEEN 1 AND $1",
      [tip],
    );
    const expected = Number(rows[0].n);
    expect(expected).toBeGreaterThan(0);
    const replay = await api.replay("names", { fromBlock: 1, toBlock: tip });
    expect(replay.body).toMatchObject({ enqueuedCount: expected });
    expect(Number(replay.body.scannedCount)).toBeGreaterThanOrEqual(expected);
    await waitFor(() => r.deliveredBodies().length === expected);
    for (const b of r.deliveredBodies() as {
      type: string;
      data: { action: string; is_replay: boolean; row: { kind: string } };
    }[]) {
      expect(b.type).toBe("asset-holdings.holdings.replay");
      expect(b.data).toMatchObject({ action: "replay", is_replay: true, row: { kind: "ft" } });
    }
    expect((await api.replay("names", { fromBlock: 1, toBlock: tip })).body).toMatchObject({ enqueuedCount: 0 });
    await waitForOutboxDrained(t.db, id);
  });
});
