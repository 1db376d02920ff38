/**
 * runtime/dispatcher/delivery-batch.ts: a batch expanded chunk by chunk yields exactly the
 * (template, webhook) pairs recorded into it, each webhook's rows in recording order, with delivery
 * ids that depend on the batch, the webhook and the dedupe key only.
 */
import { describe, expect, it } from "vitest";
import {
  chunkEnd,
  DeliveryBatchBuilder,
  type DeliveryTemplate,
  expandChunk,
  rowsPerWebhook,
} from "../../../runtime/dispatcher/delivery-batch.js";

const template = (i: number): DeliveryTemplate => ({
  eventType: "chain.stx_transfer.apply",
  kind: "apply",
  txId: `0xt${i}`,
  eventIndex: i,
  blockHash: "0xb",
  blockHeight: 7,
  data: { i },
});

/** Records 40 templates, each for a random subset of 30 webhooks; returns the batch and the pairs recorded. */
function randomBatch(seed: number) {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  const webhooks = Array.from({ length: 30 }, (_, i) => `wh_${i}`);
  const batch = new DeliveryBatchBuilder();
  const pairs: string[] = [];
  for (let i = 0; i < 40; i++) {
    const dense = rand() < 0.3; // every webhook (one run), else a scattered subset
    const ids = webhooks.filter(() => dense || rand() < 0.2);
    batch.add(template(i), ids);
    for (const id of ids) pairs.push(`${id}:${i}`);
  }
  return { batch, pairs };
}

describe("delivery batches", () => {
  it.each([1, 2, 3, 4])(
    "chunked expansion yields the recorded pairs, in recording order per webhook (seed %i)",
    (seed) => {
      const { batch, pairs } = randomBatch(seed);
      const body = JSON.parse(JSON.stringify(batch.body())); // as stored and read back
      const counts = rowsPerWebhook(body);
      const got: string[] = [];
      const perWebhook = new Map<string, number[]>();
      for (let from = 0; from < body.w.length; ) {
        const to = chunkEnd(counts, from, 25);
        const rows = expandChunk("17", body, from, to);
        expect(rows.length === 0 || to - from === 1 || rows.length <= 25).toBe(true);
        for (const r of rows) {
          got.push(`${r.webhookId}:${r.eventIndex}`);
          const list = perWebhook.get(r.webhookId) ?? [];
          list.push(r.eventIndex);
          perWebhook.set(r.webhookId, list);
        }
        from = to;
      }
      expect([...got].sort()).toEqual([...pairs].sort());
      expect(batch.deliveryCount).toBe(pairs.length);
      for (const list of perWebhook.values()) expect(list).toEqual([...list].sort((a, b) => a - b));
    },
  );

  it("stores a template matched by every webhook once, its webhooks as one run", () => {
    const batch = new DeliveryBatchBuilder();
    const ids = Array.from({ length: 1000 }, (_, i) => `wh_${i}`);
    batch.add(template(0), ids);
    batch.add(template(1), ids);
    expect(batch.body().g.map((g) => g.r)).toEqual([
      [0, 1000],
      [0, 1000],
    ]);
    expect(batch.webhookCount).toBe(1000);
    expect(batch.deliveryCount).toBe(2000);
  });

  it("delivery ids: stable for the same batch, new for another batch, distinct per webhook and key", () => {
    const batch = new DeliveryBatchBuilder();
    batch.add(template(0), ["wh_a", "wh_b"]);
    batch.add(template(1), ["wh_a"]);
    const body = batch.body();
    const ids = (batchId: string) => expandChunk(batchId, body, 0, body.w.length).map((r) => r.deliveryId);
    expect(ids("5")).toEqual(ids("5"));
    expect(new Set(ids("5")).size).toBe(3);
    for (const id of ids("5")) expect(id).toMatch(/^msg_[0-9a-z]{26}$/);
    expect(ids("6").some((id) => ids("5").includes(id))).toBe(false);
  });
});
