/**
 * SQL of control.webhook_held (the shares of webhooks at WEBHOOK_MAX_PENDING, see backlog-limit.ts
 * and expander.ts) and the backlog figures the API reports: outstanding deliveries, held shares,
 * batches not yet expanded, the oldest outstanding delivery.
 */
import type { Queryable } from "../db/types.js";
import type { WebhookLoad } from "./backlog-limit.js";
import type { OutboxInsert } from "./outbox-store.js";

/** One webhook's held share of one batch, as the outbox rows it becomes. */
export interface HeldShare {
  webhookId: string;
  batchId: string;
  /** The block of chain applies or forward subgraph row changes (dropped unsent when a reorg orphans it); null for other rows. */
  blockHash: string | null;
  rows: OutboxInsert[];
}

/** Records held shares, in the order given (a webhook deleted meanwhile gets none). */
export async function holdShares(q: Queryable, shares: readonly HeldShare[]): Promise<void> {
  if (!shares.length) return;
  await q.query(
    `INSERT INTO control.webhook_held (webhook_id, batch_id, block_hash, rows, row_count)
     SELECT s.webhook_id, s.batch_id, s.block_hash, s.rows, s.row_count
       FROM unnest($1::text[], $2::bigint[], $3::text[], $4::json[], $5::int[]) WITH ORDINALITY
         AS s(webhook_id, batch_id, block_hash, rows, row_count, ord)
      WHERE EXISTS (SELECT 1 FROM control.webhooks w WHERE w.id = s.webhook_id)
      ORDER BY s.ord`,
    [
      shares.map((s) => s.webhookId),
      shares.map((s) => s.batchId),
      shares.map((s) => s.blockHash),
      shares.map((s) => JSON.stringify(s.rows)),
      shares.map((s) => s.rows.length),
    ],
  );
}

/**
 * What the expander needs to know of each webhook a share of a batch comes to: whether shares of
 * it are held (new rows then wait behind them whatever the count) and how many deliveries it has
 * outstanding — as its maintained bound (control.webhook_pending_bound, never below the count:
 * one key lookup) while the bound plus its new rows (`incoming`) fits under `limit`, else counted
 * (up to the limit) with the bound lowered to the count. Cost: O(webhooks) lookups, plus a count
 * only for webhooks that may be near the limit.
 */
export async function webhookLoads(
  q: Queryable,
  incoming: ReadonlyMap<string, number>,
  limit: number,
): Promise<Map<string, WebhookLoad>> {
  const out = new Map<string, WebhookLoad>();
  const webhookIds = [...incoming.keys()];
  if (!webhookIds.length) return out;
  const { rows } = await q.query<{ id: string; held: boolean; bound: string | null }>(
    `SELECT w.id, (EXISTS (SELECT 1 FROM control.webhook_held)
                   AND EXISTS (SELECT 1 FROM control.webhook_held h WHERE h.webhook_id = w.id)) AS held,
            b.bound
       FROM unnest($1::text[]) AS w(id) LEFT JOIN control.webhook_pending_bound b ON b.webhook_id = w.id`,
    [webhookIds],
  );
  const recount: string[] = [];
  for (const r of rows) {
    const bound = Number(r.bound ?? 0);
    out.set(r.id, { pending: bound, held: r.held });
    if (!r.held && bound + (incoming.get(r.id) ?? 0) > limit) recount.push(r.id);
  }
  if (recount.length) {
    for (const [id, n] of await recountPending(q, recount, limit)) out.set(id, { pending: n, held: false });
  }
  return out;
}

/**
 * Counts the webhooks' pending rows (each up to `cap`) and lowers their bounds to the counts. The
 * bound is read in the same snapshot as the count, and what other transactions added since (a
 * replay committing meanwhile) is kept: `bound = count + (bound now − bound seen)`.
 */
async function recountPending(q: Queryable, webhookIds: readonly string[], cap: number): Promise<Map<string, number>> {
  const { rows } = await q.query<{ id: string; n: string }>(
    `WITH c AS MATERIALIZED (
       SELECT w.id, b.bound AS seen,
              (SELECT count(*) FROM (SELECT 1 FROM control.webhook_outbox o
                 WHERE o.webhook_id = w.id AND o.status = 'pending' LIMIT $2) p) AS n
         FROM unnest($1::text[]) AS w(id) LEFT JOIN control.webhook_pending_bound b ON b.webhook_id = w.id
     ), lowered AS (
       UPDATE control.webhook_pending_bound b SET bound = c.n + (b.bound - c.seen)
         FROM c WHERE b.webhook_id = c.id AND c.seen IS NOT NULL
     )
     SELECT id, n FROM c`,
    [webhookIds, Math.min(cap, 2 ** 31 - 1)],
  );
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}

/**
 * Webhooks with held shares: one probe per webhook (the held table may be long), and none at all
 * while nothing is held (the first EXISTS is evaluated once).
 */
export async function heldWebhookIds(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `SELECT w.id FROM control.webhooks w
      WHERE EXISTS (SELECT 1 FROM control.webhook_held)
        AND EXISTS (SELECT 1 FROM control.webhook_held h WHERE h.webhook_id = w.id) ORDER BY w.id`,
  );
  return rows.map((r) => r.id);
}

/** A webhook's outstanding deliveries, counted up to `cap`. */
export async function pendingUpTo(q: Queryable, webhookId: string, cap: number): Promise<number> {
  const { rows } = await q.query<{ n: string }>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM control.webhook_outbox
       WHERE webhook_id = $1 AND status = 'pending' LIMIT $2) p`,
    [webhookId, Math.min(cap, 2 ** 31 - 1)],
  );
  return Number(rows[0].n);
}

/** A webhook's oldest held shares (ids and sizes), oldest first. */
export async function headHeld(
  q: Queryable,
  webhookId: string,
  limit: number,
): Promise<{ id: string; rowCount: number }[]> {
  const { rows } = await q.query<{ id: string; row_count: number }>(
    "SELECT id, row_count FROM control.webhook_held WHERE webhook_id = $1 ORDER BY id LIMIT $2",
    [webhookId, limit],
  );
  return rows.map((r) => ({ id: String(r.id), rowCount: Number(r.row_count) }));
}

/** The rows of held shares, share by share in id order. */
export async function heldRows(q: Queryable, ids: readonly string[]): Promise<OutboxInsert[][]> {
  if (!ids.length) return [];
  const { rows } = await q.query<{ rows: unknown }>(
    "SELECT rows FROM control.webhook_held WHERE id = ANY($1::bigint[]) ORDER BY id",
    [ids],
  );
  return rows.map((r) => (typeof r.rows === "string" ? JSON.parse(r.rows) : r.rows) as OutboxInsert[]);
}

export async function deleteHeld(q: Queryable, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  await q.query("DELETE FROM control.webhook_held WHERE id = ANY($1::bigint[])", [ids]);
}

/** What is left of a share after its first rows went out. */
export async function keepHeldRows(q: Queryable, id: string, rows: readonly OutboxInsert[]): Promise<void> {
  await q.query("UPDATE control.webhook_held SET rows = $2, row_count = $3 WHERE id = $1", [
    id,
    JSON.stringify(rows),
    rows.length,
  ]);
}

/** Held chain applies of orphaned blocks: never sent, so dropped (nothing to roll back). */
export async function dropHeldOfBlocks(q: Queryable, blockHashes: readonly string[]): Promise<number> {
  if (!blockHashes.length) return 0;
  const { rowCount } = await q.query("DELETE FROM control.webhook_held WHERE block_hash = ANY($1::text[])", [
    blockHashes,
  ]);
  return rowCount;
}

/** One webhook's backlog (GET /api/webhooks/:webhook). */
export interface WebhookBacklog {
  /** Deliveries in the outbox not yet delivered, dead or cancelled. */
  pending: number;
  /** Shares of batches held back by WEBHOOK_MAX_PENDING, and the deliveries they hold. */
  heldBatches: number;
  heldDeliveries: number;
  /** Seconds since the oldest outstanding delivery (pending or held) was recorded; null when none. */
  oldestPendingAgeSeconds: number | null;
}

export async function readWebhookBacklog(q: Queryable, webhookId: string): Promise<WebhookBacklog> {
  const { rows } = await q.query<{ pending: string; held: string; held_rows: string | null; age: number | null }>(
    `SELECT (SELECT count(*) FROM control.webhook_outbox WHERE webhook_id = $1 AND status = 'pending') AS pending,
            (SELECT count(*) FROM control.webhook_held WHERE webhook_id = $1) AS held,
            (SELECT sum(row_count) FROM control.webhook_held WHERE webhook_id = $1) AS held_rows,
            -- the first in delivery order (ids follow recording order): an index probe, not a scan
            extract(epoch FROM now() - LEAST(
              (SELECT created_at FROM control.webhook_outbox WHERE webhook_id = $1 AND status = 'pending'
                ORDER BY id LIMIT 1),
              (SELECT created_at FROM control.webhook_held WHERE webhook_id = $1 ORDER BY id LIMIT 1)))::float8 AS age`,
    [webhookId],
  );
  const r = rows[0];
  return {
    pending: Number(r.pending),
    heldBatches: Number(r.held),
    heldDeliveries: Number(r.held_rows ?? 0),
    oldestPendingAgeSeconds: ageSeconds(r.age),
  };
}

/** Every webhook's backlog together (GET /status `webhooks`). */
export interface BacklogTotals {
  /** Deliveries in the outbox not yet delivered, dead or cancelled. */
  outstanding: number;
  /** Batches recorded by block transactions and not yet expanded into deliveries. */
  unexpanded_batches: number;
  /** Shares held back by WEBHOOK_MAX_PENDING, and the deliveries they hold. */
  held_batches: number;
  held_deliveries: number;
  /** Webhooks with held shares. */
  throttled_webhooks: number;
  /** Seconds since the oldest outstanding delivery or unexpanded batch was recorded; null when none. */
  oldest_pending_age_seconds: number | null;
}

export async function readBacklogTotals(q: Queryable): Promise<BacklogTotals> {
  const { rows } = await q.query<{
    outstanding: string;
    batches: string;
    held: string;
    held_rows: string | null;
    throttled: string;
    age: number | null;
  }>(
    `SELECT (SELECT count(*) FROM control.webhook_outbox WHERE status = 'pending') AS outstanding,
            (SELECT count(*) FROM control.webhook_batches) AS batches,
            (SELECT count(*) FROM control.webhook_held) AS held,
            (SELECT sum(row_count) FROM control.webhook_held) AS held_rows,
            (SELECT count(*) FROM control.webhooks w
              WHERE EXISTS (SELECT 1 FROM control.webhook_held h WHERE h.webhook_id = w.id)) AS throttled,
            -- each webhook's first pending row in delivery order: one index probe per webhook
            extract(epoch FROM now() - LEAST(
              (SELECT min(f.created_at) FROM control.webhooks w CROSS JOIN LATERAL (
                 SELECT o.created_at FROM control.webhook_outbox o
                  WHERE o.webhook_id = w.id AND o.status = 'pending' ORDER BY o.id LIMIT 1) f),
              (SELECT created_at FROM control.webhook_held ORDER BY id LIMIT 1),
              (SELECT created_at FROM control.webhook_batches ORDER BY id LIMIT 1)))::float8 AS age`,
  );
  const r = rows[0];
  return {
    outstanding: Number(r.outstanding),
    unexpanded_batches: Number(r.batches),
    held_batches: Number(r.held),
    held_deliveries: Number(r.held_rows ?? 0),
    throttled_webhooks: Number(r.throttled),
    oldest_pending_age_seconds: ageSeconds(r.age),
  };
}

const ageSeconds = (age: number | null): number | null => (age === null ? null : Math.max(0, Math.floor(Number(age))));
