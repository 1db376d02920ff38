/**
 * Expansion of webhook batches into outbox rows, outside the block transactions (DESIGN.md §5).
 * Batches are expanded strictly in id order — the order block transactions recorded them — so each
 * webhook's rows keep block order, and a rollback's fences come after every apply it covers and
 * before the new branch. One process expands at a time (a transaction-scoped advisory lock; the
 * others go on delivering). Each transaction expands whole webhooks of a batch, up to a row budget,
 * and records how far it got in the same commit: a kill at any moment loses nothing and repeats
 * nothing, and delivery ids are derived from the batch, the webhook and the dedupe key.
 *
 * WEBHOOK_MAX_PENDING bounds each webhook's outstanding deliveries (backlog-limit.ts): what does not
 * fit is held (control.webhook_held) as the rows it becomes, ids included, behind which every later
 * share of that webhook waits; each transaction first releases held shares, oldest first, of
 * webhooks that drained. A held share of a block a reorg orphans is dropped unsent (as a batch
 * would be); the webhook's rollback fence waits behind its other held shares like any row.
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
import { admittedRows, releasePlan } from "./backlog-limit.js";
import {
  deleteHeld,
  dropHeldOfBlocks,
  type HeldShare,
  headHeld,
  heldRows,
  heldWebhookIds,
  holdShares,
  keepHeldRows,
  pendingUpTo,
  webhookLoads,
} from "./backlog-store.js";
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
  /** Webhooks that may still have held shares (their finished deliveries make room: expand again). */
  throttled: Set<string>;
}

/**
 * One transaction of expansion: held shares of webhooks that drained, then the oldest batches, up
 * to about `maxRows` deliveries (a batch's webhooks are never split below one webhook);
 * `maxPending` is WEBHOOK_MAX_PENDING.
 */
export async function expandBatches(
  db: Db,
  maxRows = 5000,
  maxPending = Number.POSITIVE_INFINITY,
): Promise<ExpandResult> {
  return db.transaction(async (q) => {
    const { rows: lock } = await q.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS ok", [
      EXPANSION_LOCK_KEY,
    ]);
    if (!lock[0]?.ok) return { rows: 0, more: true, busy: true, throttled: new Set<string>() };
    // Deliveries commit without waiting for the WAL flush: losing the commit to a server crash
    // only means expanding the same chunk again (the same rows and ids).
    if (db.kind === "postgres") await q.query("SET LOCAL synchronous_commit TO off");
    const limit = new PendingLimit(maxPending);
    const released = await releaseHeld(q, limit, maxRows);
    let written = released.rows;
    let budget = maxRows - released.rows;
    const done = (more: boolean): ExpandResult => ({ rows: written, more, busy: false, throttled: limit.throttled });
    if (budget <= 0) return done(true);
    const batches = await headBatches(q, 64);
    for (const batch of batches) {
      if (budget <= 0) return done(true);
      if (batch.kind === "rollback") {
        const n = await expandRollback(q, batch, limit);
        written += n.rows;
        budget -= 1 + n.rows + n.held;
        await deleteBatch(q, batch.id);
        continue;
      }
      const step = await expandDeliveries(q, batch, budget, limit);
      written += step.rows;
      budget -= Math.max(1, step.rows + step.held);
      if (!step.done) return done(true);
    }
    return done(batches.length === 64);
  });
}

/** WEBHOOK_MAX_PENDING as one transaction of expansion applies it, and the webhooks it held. */
class PendingLimit {
  readonly throttled = new Set<string>();
  constructor(readonly max: number) {}

  /**
   * Splits `rows` (in delivery order) into those the outbox takes now and each webhook's held
   * remainder (its share of batch `batchId`).
   */
  async apply(
    q: Queryable,
    batchId: string,
    blockHash: string | null,
    rows: readonly OutboxInsert[],
  ): Promise<{ admitted: OutboxInsert[]; held: number }> {
    if (this.max === Number.POSITIVE_INFINITY) {
      // No limit: only shares held under an earlier, lower limit make a webhook wait.
      if (!this.throttled.size && !(await anyHeld(q))) return { admitted: [...rows], held: 0 };
    }
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.webhookId, (counts.get(r.webhookId) ?? 0) + 1);
    const loads = await webhookLoads(q, counts, this.max);
    const room = new Map<string, number>();
    for (const [webhookId, n] of counts) {
      room.set(webhookId, admittedRows(loads.get(webhookId) ?? { pending: 0, held: false }, n, this.max));
    }
    const admitted: OutboxInsert[] = [];
    const heldByWebhook = new Map<string, OutboxInsert[]>();
    for (const r of rows) {
      const left = room.get(r.webhookId) ?? 0;
      if (left > 0) {
        room.set(r.webhookId, left - 1);
        admitted.push(r);
        continue;
      }
      const list = heldByWebhook.get(r.webhookId) ?? [];
      list.push(r);
      heldByWebhook.set(r.webhookId, list);
    }
    const shares: HeldShare[] = [...heldByWebhook].map(([webhookId, list]) => ({
      webhookId,
      batchId,
      blockHash: blockHash ?? forwardRowsBlock(list),
      rows: list,
    }));
    await holdShares(q, shares);
    for (const s of shares) this.throttled.add(s.webhookId);
    return { admitted, held: rows.length - admitted.length };
  }
}

/**
 * The block of a share of forward subgraph row changes (all of one block): held, they were never
 * sent, so a reorg orphaning the block drops them like chain applies (their compensating changes,
 * if held too, then restore what the receiver already has). Null for anything else.
 */
function forwardRowsBlock(rows: readonly OutboxInsert[]): string | null {
  const first = rows[0]?.blockHash;
  return first && rows.every((r) => r.kind === "row" && r.blockHash === first) ? first : null;
}

async function anyHeld(q: Queryable): Promise<boolean> {
  const { rows } = await q.query("SELECT 1 FROM control.webhook_held LIMIT 1");
  return rows.length > 0;
}

/** How many held shares of one webhook a transaction looks at. */
const RELEASE_LOOKAHEAD = 64;

/**
 * Held shares of webhooks below the limit go to the outbox, oldest first, whole while they fit,
 * then the first rows of the next (the rest stays held); at most about `maxRows` rows.
 */
async function releaseHeld(q: Queryable, limit: PendingLimit, maxRows: number): Promise<{ rows: number }> {
  let rows = 0;
  for (const webhookId of await heldWebhookIds(q)) {
    limit.throttled.add(webhookId);
    if (rows >= maxRows) continue;
    const pending = await pendingUpTo(q, webhookId, limit.max);
    const head = await headHeld(q, webhookId, RELEASE_LOOKAHEAD);
    const sizes = head.map((h) => h.rowCount);
    const plan = releasePlan(pending, sizes, limit.max);
    const taken = head.slice(0, plan.whole + (plan.partial ? 1 : 0));
    if (!taken.length) continue;
    const takenIds = taken.map((h) => h.id);
    const shares = await heldRows(q, takenIds);
    const out = shares.slice(0, plan.whole).flat();
    if (plan.partial) {
      const last = shares[plan.whole];
      out.push(...last.slice(0, plan.partial));
      await keepHeldRows(q, taken[plan.whole].id, last.slice(plan.partial));
    }
    await deleteHeld(q, takenIds.slice(0, plan.whole));
    rows += Math.max(await insertOutboxRows(q, out), out.length ? 1 : 0);
    if (!plan.partial && plan.whole === head.length && head.length < RELEASE_LOOKAHEAD) {
      limit.throttled.delete(webhookId);
    }
  }
  return { rows };
}

async function expandDeliveries(
  q: Queryable,
  batch: DeliveryBatch,
  budget: number,
  limit: PendingLimit,
): Promise<{ rows: number; held: number; done: boolean }> {
  // Applies of a block a later reorg orphans were never sent: nothing to deliver or roll back.
  if (batch.blockHash !== null && batch.expanded === 0 && (await orphanedLater(q, batch.id, batch.blockHash))) {
    await deleteBatch(q, batch.id);
    return { rows: 0, held: 0, done: true };
  }
  const counts = rowsPerWebhook(batch.body);
  const end = chunkEnd(counts, batch.expanded, budget);
  const rows = expandChunk(batch.id, batch.body, batch.expanded, end);
  const { admitted, held } = await limit.apply(q, batch.id, batch.blockHash, rows);
  const written = await insertOutboxRows(q, admitted);
  if (end >= batch.body.w.length) {
    await deleteBatch(q, batch.id);
    return { rows: Math.max(written, admitted.length ? 1 : 0), held, done: true };
  }
  await advanceBatch(q, batch.id, end);
  return { rows: Math.max(written, admitted.length ? 1 : 0), held, done: false };
}

/**
 * A reorg's orphaned blocks: their rows are marked rolled back (never-attempted applies
 * cancelled), and each webhook that may have seen some of them gets one `chain.reorg.rollback`
 * fence listing them (≤ 500, else `truncated`), in block order.
 */
async function expandRollback(
  q: Queryable,
  batch: RollbackBatch,
  limit: PendingLimit,
): Promise<{ rows: number; held: number }> {
  // Held applies of the orphaned blocks were never sent: nothing to deliver or roll back.
  await dropHeldOfBlocks(q, batch.orphaned);
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
  const { admitted, held } = await limit.apply(q, batch.id, null, rows);
  return { rows: await insertOutboxRows(q, admitted), held };
}
