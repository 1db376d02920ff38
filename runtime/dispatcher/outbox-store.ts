/**
 * Outbox SQL (DESIGN.md §5): batched inserts inside the block transaction, the claim of due rows
 * (`FOR UPDATE SKIP LOCKED`, per-webhook caps, fences respected), and the batched completion of
 * attempts. Every write of a worker carries its lease token, so a worker whose lease expired (it
 * was stalled or killed) can never overwrite a newer claim.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Queryable } from "../db/types.js";

/** NOTIFY channel: new or re-armed outbox rows, webhook changes. Workers wake on it. */
export const WEBHOOK_CHANNEL = "sluice_webhooks";
/** A notification on WEBHOOK_CHANNEL naming one webhook changed through the API: `webhook:<id>`. */
export const WEBHOOK_CHANGED_PREFIX = "webhook:";

/**
 * A CTE (`async_commit`) that a worker's statement joins. On PostgreSQL its transaction then
 * commits without waiting for the WAL flush: a commit lost to a server crash only means a row is
 * claimed or delivered again (at-least-once), while waiting for each flush would cap deliveries
 * at the disk's fsync rate. Set inside the statement, it needs no transaction block of its own
 * (one round trip instead of four) and applies to that transaction only: the connection goes back
 * to the pool unchanged. The embedded database (one process, no WAL writer) keeps its commits as
 * they are.
 */
const commitMode = (asyncCommit: boolean) =>
  asyncCommit
    ? "async_commit AS (SELECT set_config('synchronous_commit', 'off', true))"
    : "async_commit AS (SELECT NULL)";

export type DedupeKind = "apply" | "confirm" | "replay" | "row" | "revert" | "rollback" | "test";

export interface OutboxInsert {
  webhookId: string;
  eventType: string;
  kind: DedupeKind;
  txId: string;
  eventIndex: number;
  blockHash: string;
  seq?: number | string;
  blockHeight: number | null;
  data: Record<string, unknown>;
  replayId?: string | null;
  /** Delivered strictly in order with the webhook's other rows (rollbacks, compensating reverts). */
  fence?: boolean;
  /** The `webhook-id` (derived from the batch and the dedupe key when expanded); a new random one when absent. */
  deliveryId?: string;
}

/** A new delivery id (`webhook-id` header): `msg_` + 26 base32 characters. */
export function newDeliveryId(): string {
  return `msg_${base32(randomBytes(16)).slice(0, 26)}`;
}

/**
 * The delivery id of one expanded delivery: a hash of the batch it comes from and its webhook and
 * dedupe key, so expanding the same batch twice (it never is: each chunk commits with its progress)
 * could only ever produce the same ids, and a block applied again later (a new batch) gets new ones.
 */
export function derivedDeliveryId(parts: readonly (string | number)[]): string {
  return `msg_${base32(createHash("sha256").update(parts.join("\n")).digest()).slice(0, 26)}`;
}

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
function base32(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + ALPHABET[(value << (5 - bits)) & 31] : out;
}

/**
 * The CTE every statement that makes outbox rows pending joins (its rows as `ins(webhook_id)`):
 * it adds them to their webhooks' bound of outstanding deliveries (control.webhook_pending_bound,
 * read by the expander for WEBHOOK_MAX_PENDING; see backlog-store.ts). In the same statement, so
 * the bound is never below what is pending, whatever commits or crashes.
 */
const BUMP_BOUND = `bump AS (
       INSERT INTO control.webhook_pending_bound AS b (webhook_id, bound)
       SELECT webhook_id, count(*) FROM ins GROUP BY webhook_id
       ON CONFLICT (webhook_id) DO UPDATE SET bound = b.bound + EXCLUDED.bound
     )`;

/**
 * Inserts rows (one statement). A row whose dedupe key exists is skipped, unless the existing row
 * was rolled back by a reorg (its block is canonical again: a fresh delivery with a new id) or is
 * a compensating revert (the block was orphaned a second time). Returns how many rows were
 * inserted or re-armed.
 */
export async function insertOutboxRows(q: Queryable, rows: readonly OutboxInsert[]): Promise<number> {
  if (!rows.length) return 0;
  const { rows: counted } = await q.query<{ n: string }>(
    `WITH ins AS (
     INSERT INTO control.webhook_outbox (webhook_id, delivery_id, event_type, dedupe_kind, tx_id, event_index,
       block_hash, seq, block_height, data, replay_id, fence)
     SELECT r.webhook_id, r.delivery_id, r.event_type, r.dedupe_kind, r.tx_id, r.event_index, r.block_hash, r.seq,
            r.block_height, r.data, r.replay_id, r.fence
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[],
       $8::bigint[], $9::int[], $10::json[], $11::text[], $12::boolean[]) WITH ORDINALITY
       AS r(webhook_id, delivery_id, event_type, dedupe_kind, tx_id, event_index, block_hash, seq, block_height, data,
            replay_id, fence, ord)
     -- a webhook deleted since its deliveries were recorded gets none
     WHERE EXISTS (SELECT 1 FROM control.webhooks w WHERE w.id = r.webhook_id)
     -- ids in the given order: a webhook's rows are delivered in id order
     ORDER BY r.ord
     ON CONFLICT (webhook_id, dedupe_kind, tx_id, event_index, block_hash, seq) DO UPDATE SET
       status = 'pending', attempts = 0, next_attempt_at = now(), leased_until = NULL, lease_token = NULL,
       rolled_back = false, delivery_id = EXCLUDED.delivery_id, data = EXCLUDED.data, event_type = EXCLUDED.event_type,
       fence = EXCLUDED.fence, replay_id = EXCLUDED.replay_id, last_status = NULL, last_error = NULL,
       created_at = now(), first_attempt_at = NULL, finished_at = NULL
     WHERE control.webhook_outbox.rolled_back OR control.webhook_outbox.dedupe_kind = 'revert'
     RETURNING webhook_id
     ), ${BUMP_BOUND}
     SELECT count(*) AS n FROM ins`,
    [
      rows.map((r) => r.webhookId),
      rows.map((r) => r.deliveryId ?? newDeliveryId()),
      rows.map((r) => r.eventType),
      rows.map((r) => r.kind),
      rows.map((r) => r.txId),
      rows.map((r) => r.eventIndex),
      rows.map((r) => r.blockHash),
      rows.map((r) => r.seq ?? 0),
      rows.map((r) => r.blockHeight),
      rows.map((r) => JSON.stringify(r.data)),
      rows.map((r) => r.replayId ?? null),
      rows.map((r) => r.fence ?? false),
    ],
  );
  return Number(counted[0].n);
}

/**
 * A reorg orphaned `blockHash`: its rows are marked rolled back (a later apply of the same block
 * re-arms them); apply and replay rows never attempted and not in flight are cancelled (the
 * receiver never saw them). Returns the chain rows the receiver may have seen, for the rollback.
 */
export async function markBlockRolledBack(
  q: Queryable,
  blockHash: string,
): Promise<{ webhookId: string; data: Record<string, unknown> & { event?: { event_index?: number } } }[]> {
  const { rows } = await q.query<{
    webhook_id: string;
    dedupe_kind: string;
    status: string;
    attempts: number;
    data: Record<string, unknown> & { event?: { event_index?: number } };
  }>(
    `UPDATE control.webhook_outbox SET rolled_back = true,
       status = CASE WHEN dedupe_kind IN ('apply', 'replay') AND status = 'pending' AND leased_until IS NULL
                     THEN 'cancelled' ELSE status END,
       finished_at = CASE WHEN dedupe_kind IN ('apply', 'replay') AND status = 'pending' AND leased_until IS NULL
                          THEN now() ELSE finished_at END
     WHERE block_hash = $1 AND NOT rolled_back AND dedupe_kind IN ('apply', 'replay', 'row')
     RETURNING webhook_id, dedupe_kind, status, attempts, data`,
    [blockHash],
  );
  return rows
    .filter((r) => r.dedupe_kind !== "row" && !(r.status === "cancelled" && r.attempts === 0))
    .map((r) => ({ webhookId: r.webhook_id, data: r.data }));
}

/** Wakes the workers (delivered at commit when called inside a transaction). */
export async function notifyWorkers(q: Queryable, payload = "outbox"): Promise<void> {
  await q.query("SELECT pg_notify($1, $2)", [WEBHOOK_CHANNEL, payload]);
}

export interface ClaimedRow {
  id: string;
  webhookId: string;
  deliveryId: string;
  eventType: string;
  /** The delivery's `data` as the JSON text stored (sent as is, never parsed). */
  dataJson: string;
  /** Attempts made before this one. */
  attempts: number;
  createdAt: Date;
  fence: boolean;
  /** The claim's lease token: completing the row requires it. */
  leaseToken: string;
}

/** How many rows to claim for one webhook, and how long each claimed row stays leased. */
export interface ClaimCap {
  webhookId: string;
  cap: number;
  leaseMs: number;
  /**
   * Only rows with a larger id: while a backlog drains, the scan then skips the head of the
   * pending index, where rows delivered since the last vacuum leave dead entries. Rows behind it
   * (retries come due, rows given back) are found by a scan from the head (no `afterId`), which
   * the caller falls back to when a scan comes short, and now and then.
   */
  afterId?: string | null;
  /** Strict order: a row is claimable only when no earlier row of the webhook is pending. */
  ordered?: boolean;
}

/**
 * Claims up to `cap` due rows per webhook, in id (block) order, leased to `token` for `leaseMs` (a
 * killed worker's rows become claimable again when the lease ends; a leased row is in flight). A fence row is claimable only when
 * no earlier row of its webhook is pending; no row after a pending fence is claimable.
 */
export async function claimDueRows(
  q: Queryable,
  caps: readonly ClaimCap[],
  now: Date,
  token: string,
  options: { asyncCommit?: boolean } = {},
): Promise<ClaimedRow[]> {
  if (!caps.length) return [];
  const { rows } = await q.query<{
    id: string;
    webhook_id: string;
    delivery_id: string;
    event_type: string;
    data: string;
    attempts: number;
    created_at: Date;
    fence: boolean;
  }>(
    `WITH ${commitMode(options.asyncCommit ?? false)}, caps AS (
       SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $6::bigint[], $7::boolean[])
                  AS c(webhook_id, cap, lease_ms, after_id, ordered)
     ), picked AS (
       SELECT p.id FROM caps c
       CROSS JOIN LATERAL (
         SELECT o.id FROM control.webhook_outbox o
          WHERE o.webhook_id = c.webhook_id AND o.status = 'pending' AND o.id > COALESCE(c.after_id, 0)
            AND o.next_attempt_at <= $4 AND (o.leased_until IS NULL OR o.leased_until <= $4)
            AND NOT EXISTS (SELECT 1 FROM control.webhook_outbox f
                             WHERE f.webhook_id = o.webhook_id AND f.status = 'pending' AND f.fence AND f.id < o.id)
            AND (NOT (o.fence OR c.ordered) OR NOT EXISTS (SELECT 1 FROM control.webhook_outbox e
                             WHERE e.webhook_id = o.webhook_id AND e.status = 'pending' AND e.id < o.id))
          ORDER BY o.id
          LIMIT c.cap
          FOR UPDATE OF o SKIP LOCKED
       ) p
     )
     UPDATE control.webhook_outbox o
        SET leased_until = $4::timestamptz + caps.lease_ms * interval '1 millisecond',
            lease_token = $5, first_attempt_at = COALESCE(o.first_attempt_at, $4)
       FROM caps, async_commit
      WHERE o.id = ANY(ARRAY(SELECT id FROM picked)) AND caps.webhook_id = o.webhook_id
     RETURNING o.id, o.webhook_id, o.delivery_id, o.event_type, o.data::text AS data, o.attempts, o.created_at, o.fence`,
    [
      caps.map((c) => c.webhookId),
      caps.map((c) => c.cap),
      caps.map((c) => c.leaseMs),
      now,
      token,
      caps.map((c) => c.afterId ?? null),
      caps.map((c) => c.ordered ?? false),
    ],
  );
  return rows
    .map((r) => ({
      id: String(r.id),
      webhookId: r.webhook_id,
      deliveryId: r.delivery_id,
      eventType: r.event_type,
      dataJson: r.data,
      attempts: r.attempts,
      createdAt: new Date(r.created_at),
      fence: r.fence,
      leaseToken: token,
    }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

export interface AttemptResult {
  outboxId: string;
  /** Lease token of the claim this attempt ran under. */
  leaseToken: string;
  webhookId: string;
  /** 1-based number of this attempt. */
  attempt: number;
  startedAt: Date;
  durationMs: number;
  success: boolean;
  responseStatus: number | null;
  responseExcerpt: string | null;
  error: string | null;
  /** The row's state after this attempt. */
  next: { status: "delivered" | "dead" } | { status: "pending"; at: Date };
}

/**
 * Records a batch of finished attempts in one statement: every attempt is logged; each row's state
 * is updated only if the attempt's lease token still holds the row. Returns the ids whose state
 * was updated. `asyncCommit`: see commitMode.
 */
export async function completeAttempts(
  q: Queryable,
  results: readonly AttemptResult[],
  options: { asyncCommit?: boolean } = {},
): Promise<Set<string>> {
  if (!results.length) return new Set();
  const { rows } = await q.query<{ id: string }>(
    `WITH ${commitMode(options.asyncCommit ?? false)}, r AS (
       -- times travel as epoch milliseconds (cheaper to send than timestamps; exact to the microsecond)
       SELECT u.id, u.status, u.attempt, to_timestamp(u.next_ms / 1000) AS next_at, u.code, u.err, u.token,
              to_timestamp(u.started_ms / 1000) AS started,
              to_timestamp((u.started_ms + u.duration_ms) / 1000) AS finished,
              round(u.duration_ms)::int AS duration_ms, u.excerpt, u.success
         FROM unnest($1::bigint[], $2::text[], $3::int[], $4::float8[], $5::int[], $6::text[], $7::text[],
                     $8::float8[], $9::float8[], $10::text[], $11::boolean[])
              AS u(id, status, attempt, next_ms, code, err, token, started_ms, duration_ms, excerpt, success)
     ), updated AS (
       UPDATE control.webhook_outbox o SET
          status = r.status, attempts = r.attempt, next_attempt_at = COALESCE(r.next_at, o.next_attempt_at),
          leased_until = NULL, lease_token = NULL, last_status = r.code, last_error = r.err,
          finished_at = CASE WHEN r.status = 'pending' THEN NULL ELSE r.finished END
         FROM r, async_commit
        -- joined on r.id alone: one primary-key probe per result (an added o.id = ANY($1) makes the
        -- prepared statement's generic plan rescan the whole list for every row it finds)
        WHERE o.id = r.id AND o.lease_token = r.token AND o.status = 'pending'
       RETURNING o.id
     ), logged AS (
       INSERT INTO control.webhook_attempts (outbox_id, webhook_id, attempt, attempted_at, duration_ms,
         response_status, response_excerpt, error, success)
       -- the webhook as the outbox row says (the log has no key of its own to control.webhooks);
       -- a webhook deleted while its delivery was in flight takes its log with it
       SELECT r.id, o.webhook_id, r.attempt, r.started, r.duration_ms, r.code, r.excerpt, r.err, r.success
         FROM r JOIN control.webhook_outbox o ON o.id = r.id
     )
     SELECT id FROM updated`,
    [
      results.map((r) => r.outboxId),
      results.map((r) => r.next.status),
      results.map((r) => r.attempt),
      results.map((r) => (r.next.status === "pending" ? r.next.at.getTime() : null)),
      results.map((r) => r.responseStatus),
      results.map((r) => r.error),
      results.map((r) => r.leaseToken),
      results.map((r) => r.startedAt.getTime()),
      results.map((r) => r.durationMs),
      results.map((r) => r.responseExcerpt),
      results.map((r) => r.success),
    ],
  );
  return new Set(rows.map((r) => String(r.id)));
}

/** Gives claimed rows back (circuit opened, webhook paused, worker stopping): claimable again at once. */
export async function releaseRows(q: Queryable, rows: readonly Pick<ClaimedRow, "id" | "leaseToken">[]): Promise<void> {
  if (!rows.length) return;
  await q.query(
    `UPDATE control.webhook_outbox o SET leased_until = NULL, lease_token = NULL
       FROM unnest($1::bigint[], $2::text[]) AS r(id, token)
      WHERE o.id = r.id AND o.lease_token = r.token AND o.status = 'pending'`,
    [rows.map((r) => r.id), rows.map((r) => r.leaseToken)],
  );
}

/**
 * A test delivery's outbox row, leased to the caller at once (it is sent now, not by a worker);
 * the hour-long lease keeps workers away while the caller sends it.
 */
export async function insertTestDelivery(
  q: Queryable,
  row: { webhookId: string; deliveryId: string; eventType: string; data: Record<string, unknown>; now: Date },
): Promise<ClaimedRow> {
  const leaseToken = `test:${row.deliveryId}`;
  const dataJson = JSON.stringify(row.data);
  const { rows } = await q.query<{ id: string; created_at: Date }>(
    `WITH ins AS (
     INSERT INTO control.webhook_outbox (webhook_id, delivery_id, event_type, dedupe_kind, tx_id, event_index, block_hash,
       data, next_attempt_at, leased_until, lease_token)
     VALUES ($1, $2, $3, 'test', $2, -1, '', $4, $5::timestamptz + interval '1 hour', $5::timestamptz + interval '1 hour', $6)
     RETURNING id, created_at, webhook_id
     ), ${BUMP_BOUND}
     SELECT id, created_at FROM ins`,
    [row.webhookId, row.deliveryId, row.eventType, dataJson, row.now, leaseToken],
  );
  return {
    id: String(rows[0].id),
    webhookId: row.webhookId,
    deliveryId: row.deliveryId,
    eventType: row.eventType,
    dataJson,
    attempts: 0,
    createdAt: new Date(rows[0].created_at),
    fence: false,
    leaseToken,
  };
}

/** A page of a list read newest first: rows after `cursor` (an id), at most `limit`. */
export interface PageRequest {
  cursor?: string;
  limit: number;
}

export interface AttemptLogRow {
  attemptId: string;
  deliveryId: string;
  eventType: string;
  attempt: number;
  attemptedAt: Date;
  success: boolean;
  responseStatus: number | null;
  durationMs: number | null;
  responseExcerpt: string | null;
  error: string | null;
  /** The delivery's status now (pending, delivered, dead, …). */
  deliveryStatus: string;
}

/** A webhook's delivery attempts, newest first, optionally of one delivery; one more row than `limit` tells a next page. */
export async function listAttempts(
  q: Queryable,
  webhookId: string,
  page: PageRequest & { deliveryId?: string },
): Promise<AttemptLogRow[]> {
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT a.id, o.delivery_id, o.event_type, o.status, a.attempt, a.attempted_at, a.duration_ms, a.response_status,
            a.response_excerpt, a.error, a.success
       FROM control.webhook_attempts a JOIN control.webhook_outbox o ON o.id = a.outbox_id
      WHERE a.webhook_id = $1 AND ($2::bigint IS NULL OR a.id < $2) AND ($3::text IS NULL OR o.delivery_id = $3)
      ORDER BY a.id DESC LIMIT $4`,
    [webhookId, page.cursor ?? null, page.deliveryId ?? null, page.limit + 1],
  );
  return rows.map((r) => ({
    attemptId: String(r.id),
    deliveryId: r.delivery_id as string,
    eventType: r.event_type as string,
    attempt: r.attempt as number,
    attemptedAt: new Date(r.attempted_at as string),
    success: r.success as boolean,
    responseStatus: r.response_status as number | null,
    durationMs: r.duration_ms as number | null,
    responseExcerpt: r.response_excerpt as string | null,
    error: r.error as string | null,
    deliveryStatus: r.status as string,
  }));
}

export interface DeadLetterRow {
  id: string;
  deliveryId: string;
  eventType: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date | null;
  finishedAt: Date | null;
  data: unknown;
}

/** A webhook's dead deliveries, newest first; one more row than `limit` tells a next page. */
export async function listDeadLetters(q: Queryable, webhookId: string, page: PageRequest): Promise<DeadLetterRow[]> {
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT id, delivery_id, event_type, attempts, last_status, last_error, created_at, finished_at, data
       FROM control.webhook_outbox
      WHERE webhook_id = $1 AND status = 'dead' AND ($2::bigint IS NULL OR id < $2)
      ORDER BY id DESC LIMIT $3`,
    [webhookId, page.cursor ?? null, page.limit + 1],
  );
  const date = (v: unknown) => (v === null ? null : new Date(v as string));
  return rows.map((r) => ({
    id: String(r.id),
    deliveryId: r.delivery_id as string,
    eventType: r.event_type as string,
    attempts: r.attempts as number,
    lastStatus: r.last_status as number | null,
    lastError: r.last_error as string | null,
    createdAt: date(r.created_at),
    finishedAt: date(r.finished_at),
    data: r.data,
  }));
}

/** A webhook's pending deliveries, counted up to `cap` (the scan stops there). */
export async function pendingCount(q: Queryable, webhookId: string, cap: number): Promise<number> {
  const { rows } = await q.query<{ n: string }>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM control.webhook_outbox WHERE webhook_id = $1 AND status = 'pending' LIMIT $2) p`,
    [webhookId, cap],
  );
  return Number(rows[0].n);
}

/** Dead deliveries of a webhook (one, or all when `deliveryId` is absent) back to pending with fresh attempts. */
export async function requeueDead(q: Queryable, webhookId: string, deliveryId?: string): Promise<number> {
  const { rows } = await q.query<{ n: string }>(
    `WITH ins AS (
     UPDATE control.webhook_outbox SET status = 'pending', attempts = 0, next_attempt_at = now(), finished_at = NULL,
       leased_until = NULL, lease_token = NULL
      WHERE webhook_id = $1 AND ($2::text IS NULL OR delivery_id = $2) AND status = 'dead'
      RETURNING webhook_id
     ), ${BUMP_BOUND}
     SELECT count(*) AS n FROM ins`,
    [webhookId, deliveryId ?? null],
  );
  return Number(rows[0].n);
}

/** Pending and dead deliveries per webhook (the metrics scrape; both counts use partial indexes). */
export async function outboxDepths(q: Queryable): Promise<{ webhookId: string; pending: number; dead: number }[]> {
  const { rows } = await q.query<{ webhook_id: string; pending: string; dead: string }>(
    `SELECT webhook_id, count(*) FILTER (WHERE status = 'pending') AS pending, count(*) FILTER (WHERE status = 'dead') AS dead
       FROM control.webhook_outbox WHERE status IN ('pending', 'dead') GROUP BY webhook_id`,
  );
  return rows.map((r) => ({ webhookId: r.webhook_id, pending: Number(r.pending), dead: Number(r.dead) }));
}
