/**
 * Expansion of webhook batches into outbox rows, outside the block transactions (DESIGN.md §5).
 * Batches are expanded strictly in id order — the order block transactions recorded them — so each
 * webhook's rows keep block order, and a rollback's fences come after every apply it covers and
 * before the new branch. One process expands at a time (a transaction-scoped advisory lock; the
 * others go on delivering). Each transaction expands whole webhooks of a batch, up to a row budget,
 * and records how far it got in the same commit: a kill at any moment loses nothing and repeats
 * nothing, and delivery ids are derived from the batch, the webhook and the dedupe key.
 */
import type { Db, Queryable } from "../db/types.js";
import {
  advanceBatch,
  type DeliveryBatch,
  deleteBatch,
  headBatches,
  orphanedLater,
  type RollbackBatch,
} from "./batch-store.js";
import { buildRollbackData, type ChainApplyData, ROLLBACK_TYPE } from "./chain-payload.js";
import { chunkEnd, expandChunk, rowsPerWebhook } from "./delivery-batch.js";
import { derivedDeliveryId, insertOutboxRows, markBlockRolledBack, type OutboxInsert } from "./outbox-store.js";

/** Arbitrary constant: the advisory lock that makes one process at a time the expander. */
const EXPANSION_LOCK_KEY = 7_301_955_014;

export interface ExpandResult {
  /** Outbox rows written (or re-armed). */
  rows: number;
  /** Batches remain (the budget ran out, or another process holds the expansion lock). */
  more: boolean;
  /** Another process is expanding. */
  busy: boolean;
}

/**
 * One transaction of expansion: the oldest batches, up to about `maxRows` deliveries (a batch's
 * webhooks are never split below one webhook).
 */
export async function expandBatches(db: Db, maxRows = 5000): Promise<ExpandResult> {
  return db.transaction(async (q) => {
    const { rows: lock } = await q.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS ok", [
      EXPANSION_LOCK_KEY,
    ]);
    if (!lock[0]?.ok) return { rows: 0, more: true, busy: true };
    // Deliveries commit without waiting for the WAL flush: losing the commit to a server crash
    // only means expanding the same chunk again (the same rows and ids).
    if (db.kind === "postgres") await q.query("SET LOCAL synchronous_commit TO off");
    let written = 0;
    let budget = maxRows;
    const batches = await headBatches(q, 64);
    for (const batch of batches) {
      if (budget <= 0) return { rows: written, more: true, busy: false };
      if (batch.kind === "rollback") {
        const n = await expandRollback(q, batch);
        written += n;
        budget -= 1 + n;
        await deleteBatch(q, batch.id);
        continue;
      }
      const step = await expandDeliveries(q, batch, budget);
      written += step.rows;
      budget -= Math.max(1, step.rows);
      if (!step.done) return { rows: written, more: true, busy: false };
    }
    return { rows: written, more: batches.length === 64, busy: false };
  });
}

async function expandDeliveries(
  q: Queryable,
  batch: DeliveryBatch,
  budget: number,
): Promise<{ rows: number; done: boolean }> {
  // Applies of a block a later reorg orphans were never sent: nothing to deliver or roll back.
  if (batch.blockHash !== null && batch.expanded === 0 && (await orphanedLater(q, batch.id, batch.blockHash))) {
    await deleteBatch(q, batch.id);
    return { rows: 0, done: true };
  }
  const counts = rowsPerWebhook(batch.body);
  const end = chunkEnd(counts, batch.expanded, budget);
  const rows = expandChunk(batch.id, batch.body, batch.expanded, end);
  const written = await insertOutboxRows(q, rows);
  if (end >= batch.body.w.length) {
    await deleteBatch(q, batch.id);
    return { rows: Math.max(written, rows.length ? 1 : 0), done: true };
  }
  await advanceBatch(q, batch.id, end);
  return { rows: Math.max(written, 1), done: false };
}

/**
 * A reorg's orphaned blocks: their rows are marked rolled back (never-attempted applies
 * cancelled), and each webhook that may have seen some of them gets one `chain.reorg.rollback`
 * fence listing them (≤ 500, else `truncated`), in block order.
 */
async function expandRollback(q: Queryable, batch: RollbackBatch): Promise<number> {
  const byWebhook = new Map<string, ChainApplyData[]>();
  // Newest first: keep each webhook's list in block order by prepending each (older) block's rows.
  for (const blockHash of batch.orphaned) {
    const seen = new Map<string, ChainApplyData[]>();
    for (const r of await markBlockRolledBack(q, blockHash)) {
      const list = seen.get(r.webhookId) ?? [];
      list.push(r.data as unknown as ChainApplyData);
      seen.set(r.webhookId, list);
    }
    for (const [webhookId, list] of seen) {
      list.sort((a, b) => (a.event?.event_index ?? -1) - (b.event?.event_index ?? -1));
      byWebhook.set(webhookId, [...list, ...(byWebhook.get(webhookId) ?? [])]);
    }
  }
  const fork = batch.forkPointHeight;
  const rows: OutboxInsert[] = [];
  for (const [webhookId, applies] of byWebhook) {
    if (!applies.length) continue;
    // One per reorg and webhook, never deduplicated against an earlier one (the same switch can
    // happen again after a flip back): the batch id names the reorg.
    const blockHash = `rollback:${batch.id}`;
    rows.push({
      webhookId,
      eventType: ROLLBACK_TYPE,
      kind: "rollback",
      txId: "",
      eventIndex: -1,
      blockHash,
      blockHeight: fork,
      data: { ...buildRollbackData(fork, applies) },
      fence: true,
      deliveryId: derivedDeliveryId([batch.id, webhookId, "rollback", "", -1, blockHash, 0]),
    });
  }
  return insertOutboxRows(q, rows);
}
