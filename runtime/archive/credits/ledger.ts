/**
 * The credit ledger's SQL (tables in migrations.ts). Every write that depends on a balance runs in
 * one transaction that first locks the key's row (SELECT … FOR UPDATE), so two charges on one key
 * never both read the same balance: the balance is the hard cap even under concurrent presigns.
 * Amounts are integer cents; a balance is SUM(amount_cents) over the key's entries.
 */
import type { Db, Queryable } from "../../db/types.js";
import { hashSecret, type NewCreditKey } from "./credit-key.js";
import { type BundleCharge, crossesThreshold, FREE_REPAIRS_PER_MONTH, monthWindow } from "./money.js";

export type EntryKind = "purchase" | "charge" | "refund" | "free_repair" | "grant";

export interface KeyRow {
  key_id: string;
  email: string | null;
  provider_customer: string | null;
  provider_payment_method: string | null;
  refill_threshold_cents: number | null;
  refill_pack_cents: number | null;
}

export interface Entry {
  entry_id: number;
  kind: EntryKind;
  amount_cents: number;
  created_at: Date;
  idempotency_key: string | null;
  partition: string | null;
  bundle_kind: string | null;
}

/** A refill the charge's transaction reserved; the caller starts the payment after the commit. */
export interface RefillToStart {
  refillId: string;
  keyId: string;
  amountCents: number;
  customerId: string;
  paymentMethodId: string;
}

export type ChargeOutcome =
  | {
      ok: true;
      balanceCents: number;
      chargedCents: number;
      free: boolean;
      entryId: number;
      /** True when the idempotency key had charged already: nothing new was written. */
      replayed: boolean;
      refill: RefillToStart | null;
    }
  | { ok: false; error: "INSUFFICIENT_CREDITS"; balanceCents: number; priceCents: number }
  | { ok: false; error: "UNKNOWN_CREDIT_KEY" }
  | { ok: false; error: "IDEMPOTENCY_KEY_REUSED"; partition: string | null };

const KEY_COLUMNS =
  "key_id, email, provider_customer, provider_payment_method, refill_threshold_cents, refill_pack_cents";

function toKey(r: Record<string, unknown>): KeyRow {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    key_id: String(r.key_id),
    email: (r.email as string | null) ?? null,
    provider_customer: (r.provider_customer as string | null) ?? null,
    provider_payment_method: (r.provider_payment_method as string | null) ?? null,
    refill_threshold_cents: num(r.refill_threshold_cents),
    refill_pack_cents: num(r.refill_pack_cents),
  };
}

function toEntry(r: Record<string, unknown>): Entry {
  return {
    entry_id: Number(r.entry_id),
    kind: r.kind as EntryKind,
    amount_cents: Number(r.amount_cents),
    created_at: new Date(r.created_at as Date),
    idempotency_key: (r.idempotency_key as string | null) ?? null,
    partition: (r.partition as string | null) ?? null,
    bundle_kind: (r.bundle_kind as string | null) ?? null,
  };
}

export async function insertKey(q: Queryable, key: NewCreditKey, now: Date, email: string | null): Promise<void> {
  await q.query("INSERT INTO credits.keys (key_id, secret_sha256, created_at, email) VALUES ($1, $2, $3, $4)", [
    key.keyId,
    key.secretSha256,
    now,
    email,
  ]);
}

/** The key a bearer secret names, or null. */
export async function keyBySecret(q: Queryable, secret: string): Promise<KeyRow | null> {
  const { rows } = await q.query(`SELECT ${KEY_COLUMNS} FROM credits.keys WHERE secret_sha256 = $1`, [
    hashSecret(secret),
  ]);
  return rows[0] ? toKey(rows[0]) : null;
}

export async function keyById(q: Queryable, keyId: string, lock = false): Promise<KeyRow | null> {
  const { rows } = await q.query(
    `SELECT ${KEY_COLUMNS} FROM credits.keys WHERE key_id = $1${lock ? " FOR UPDATE" : ""}`,
    [keyId],
  );
  return rows[0] ? toKey(rows[0]) : null;
}

export async function balanceOf(q: Queryable, keyId: string): Promise<number> {
  const { rows } = await q.query<{ s: string }>(
    "SELECT COALESCE(SUM(amount_cents), 0)::text AS s FROM credits.entries WHERE key_id = $1",
    [keyId],
  );
  return Number(rows[0].s);
}

/** Free repair bundles granted to the key in the calendar month (UTC) holding `now`. */
export async function freeRepairsUsed(q: Queryable, keyId: string, now: Date): Promise<number> {
  const { start, end } = monthWindow(now);
  const { rows } = await q.query<{ n: string }>(
    "SELECT count(*)::text AS n FROM credits.entries WHERE key_id = $1 AND kind = 'free_repair' AND created_at >= $2 AND created_at < $3",
    [keyId, start, end],
  );
  return Number(rows[0].n);
}

export async function entriesOf(q: Queryable, keyId: string): Promise<Entry[]> {
  const { rows } = await q.query("SELECT * FROM credits.entries WHERE key_id = $1 ORDER BY entry_id", [keyId]);
  return rows.map(toEntry);
}

/**
 * Charges one bundle (or grants it free, for the first repairs of the month), once per
 * `idempotencyKey`. Refuses when the balance does not cover the price: nothing is written then.
 */
export async function chargeBundle(
  db: Db,
  keyId: string,
  bundle: BundleCharge,
  idempotencyKey: string,
  now: Date,
  newRefillId: () => string,
): Promise<ChargeOutcome> {
  return db.transaction(async (q) => {
    const key = await keyById(q, keyId, true);
    if (!key) return { ok: false, error: "UNKNOWN_CREDIT_KEY" };
    const before = await balanceOf(q, keyId);

    const { rows: prior } = await q.query(
      "SELECT * FROM credits.entries WHERE key_id = $1 AND idempotency_key = $2 AND kind IN ('charge', 'free_repair')",
      [keyId, idempotencyKey],
    );
    if (prior[0]) {
      const entry = toEntry(prior[0]);
      if (entry.partition !== bundle.partition || entry.bundle_kind !== bundle.kind)
        return { ok: false, error: "IDEMPOTENCY_KEY_REUSED", partition: entry.partition };
      return {
        ok: true,
        balanceCents: before,
        chargedCents: -entry.amount_cents,
        free: entry.kind === "free_repair",
        entryId: entry.entry_id,
        replayed: true,
        refill: null,
      };
    }

    const free = bundle.kind === "repair" && (await freeRepairsUsed(q, keyId, now)) < FREE_REPAIRS_PER_MONTH;
    const price = free ? 0 : bundle.priceCents;
    if (price > before) return { ok: false, error: "INSUFFICIENT_CREDITS", balanceCents: before, priceCents: price };

    const { rows } = await q.query<{ entry_id: string }>(
      `INSERT INTO credits.entries (key_id, kind, amount_cents, created_at, idempotency_key, partition, bundle_kind)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING entry_id`,
      [keyId, free ? "free_repair" : "charge", -price, now, idempotencyKey, bundle.partition, bundle.kind],
    );
    const after = before - price;
    const refill = await reserveRefill(q, key, before, after, now, newRefillId);
    return {
      ok: true,
      balanceCents: after,
      chargedCents: price,
      free,
      entryId: Number(rows[0].entry_id),
      replayed: false,
      refill,
    };
  });
}

/** How long a started refill may wait for its provider's confirmation before another may start. */
export const STALE_REFILL_MS = 24 * 60 * 60 * 1000;

/** Reserves one refill when this charge crossed the key's threshold and none is in flight. */
async function reserveRefill(
  q: Queryable,
  key: KeyRow,
  before: number,
  after: number,
  now: Date,
  newRefillId: () => string,
): Promise<RefillToStart | null> {
  const { refill_threshold_cents: threshold, refill_pack_cents: pack } = key;
  if (threshold === null || pack === null || !crossesThreshold(before, after, threshold)) return null;
  if (!key.provider_customer || !key.provider_payment_method) return null;
  // A refill whose payment was never confirmed stops blocking the next one after a day; if its
  // event still arrives it is credited then (the money was taken).
  await q.query(
    `UPDATE credits.refills SET status = 'failed', finished_at = $2, error = 'no confirmation from the payment provider within a day'
     WHERE key_id = $1 AND status = 'started' AND created_at < $3`,
    [key.key_id, now, new Date(now.getTime() - STALE_REFILL_MS)],
  );
  const refillId = newRefillId();
  const { rowCount } = await q.query(
    `INSERT INTO credits.refills (refill_id, key_id, amount_cents, status, created_at) VALUES ($1, $2, $3, 'started', $4)
     ON CONFLICT (key_id) WHERE status = 'started' DO NOTHING`,
    [refillId, key.key_id, pack, now],
  );
  if (rowCount === 0) return null;
  return {
    refillId,
    keyId: key.key_id,
    amountCents: pack,
    customerId: key.provider_customer,
    paymentMethodId: key.provider_payment_method,
  };
}

/**
 * Adds credit (a purchase, an operator grant, a refund) in one statement. Returns the entry id, or
 * null when a unique column (provider event, payment, refunded entry, idempotency key) says it was
 * credited already.
 */
export async function addCredit(
  q: Queryable,
  c: {
    keyId: string;
    kind: "purchase" | "grant" | "refund";
    amountCents: number;
    now: Date;
    providerEventId?: string;
    paymentRef?: string;
    refundOf?: number;
    idempotencyKey?: string;
    note?: string;
  },
): Promise<number | null> {
  const { rows } = await q.query<{ entry_id: string }>(
    `INSERT INTO credits.entries (key_id, kind, amount_cents, created_at, provider_event_id, payment_ref, refund_of, idempotency_key, note)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING entry_id`,
    [
      c.keyId,
      c.kind,
      c.amountCents,
      c.now,
      c.providerEventId ?? null,
      c.paymentRef ?? null,
      c.refundOf ?? null,
      c.idempotencyKey ?? null,
      c.note ?? null,
    ],
  );
  return rows[0] ? Number(rows[0].entry_id) : null;
}

/** Records a provider event id; false when it was seen before (then nothing else may be done). */
export async function recordProviderEvent(q: Queryable, eventId: string, type: string, now: Date): Promise<boolean> {
  const { rowCount } = await q.query(
    "INSERT INTO credits.provider_events (event_id, type, received_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
    [eventId, type, now],
  );
  return rowCount > 0;
}

export async function insertCheckout(
  q: Queryable,
  c: { sessionId: string; keyId: string; packCents: number; email: string; now: Date },
): Promise<void> {
  await q.query(
    "INSERT INTO credits.checkouts (session_id, key_id, pack_cents, email, created_at) VALUES ($1, $2, $3, $4, $5)",
    [c.sessionId, c.keyId, c.packCents, c.email, c.now],
  );
}

export async function checkoutBySession(
  q: Queryable,
  sessionId: string,
): Promise<{ key_id: string; pack_cents: number } | null> {
  const { rows } = await q.query<{ key_id: string; pack_cents: string }>(
    "SELECT key_id, pack_cents FROM credits.checkouts WHERE session_id = $1",
    [sessionId],
  );
  return rows[0] ? { key_id: rows[0].key_id, pack_cents: Number(rows[0].pack_cents) } : null;
}

/** Saves the customer and card a paid checkout left for off-session refills. */
export async function savePaymentMethod(
  q: Queryable,
  keyId: string,
  customerId: string,
  paymentMethodId: string,
): Promise<void> {
  await q.query("UPDATE credits.keys SET provider_customer = $2, provider_payment_method = $3 WHERE key_id = $1", [
    keyId,
    customerId,
    paymentMethodId,
  ]);
}

export async function setAutoRefill(
  q: Queryable,
  keyId: string,
  setting: { thresholdCents: number; packCents: number } | null,
): Promise<void> {
  await q.query("UPDATE credits.keys SET refill_threshold_cents = $2, refill_pack_cents = $3 WHERE key_id = $1", [
    keyId,
    setting?.thresholdCents ?? null,
    setting?.packCents ?? null,
  ]);
}

export interface RefillRow {
  refill_id: string;
  key_id: string;
  amount_cents: number;
  status: "started" | "succeeded" | "failed";
  payment_ref: string | null;
  error: string | null;
  created_at: Date;
}

function toRefill(r: Record<string, unknown>): RefillRow {
  return {
    refill_id: String(r.refill_id),
    key_id: String(r.key_id),
    amount_cents: Number(r.amount_cents),
    status: r.status as RefillRow["status"],
    payment_ref: (r.payment_ref as string | null) ?? null,
    error: (r.error as string | null) ?? null,
    created_at: new Date(r.created_at as Date),
  };
}

export async function refillById(q: Queryable, refillId: string, lock = false): Promise<RefillRow | null> {
  const { rows } = await q.query(`SELECT * FROM credits.refills WHERE refill_id = $1${lock ? " FOR UPDATE" : ""}`, [
    refillId,
  ]);
  return rows[0] ? toRefill(rows[0]) : null;
}

export async function lastRefill(q: Queryable, keyId: string): Promise<RefillRow | null> {
  const { rows } = await q.query(
    "SELECT * FROM credits.refills WHERE key_id = $1 ORDER BY created_at DESC, refill_id DESC LIMIT 1",
    [keyId],
  );
  return rows[0] ? toRefill(rows[0]) : null;
}

export async function refillsOf(q: Queryable, keyId: string): Promise<RefillRow[]> {
  const { rows } = await q.query("SELECT * FROM credits.refills WHERE key_id = $1 ORDER BY created_at, refill_id", [
    keyId,
  ]);
  return rows.map(toRefill);
}

/** Records the provider's payment for a started refill (still in flight until its event). */
export async function refillPaymentStarted(q: Queryable, refillId: string, paymentRef: string): Promise<void> {
  await q.query("UPDATE credits.refills SET payment_ref = $2 WHERE refill_id = $1", [refillId, paymentRef]);
}

/** Ends a refill that is still in flight; false when it had ended already. */
export async function finishRefill(
  q: Queryable,
  refillId: string,
  status: "succeeded" | "failed",
  now: Date,
  fields: { paymentRef?: string | null; error?: string | null } = {},
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE credits.refills SET status = $2, finished_at = $3, payment_ref = COALESCE($4, payment_ref), error = $5
     WHERE refill_id = $1 AND status = 'started'`,
    [refillId, status, now, fields.paymentRef ?? null, fields.error ?? null],
  );
  return rowCount > 0;
}

/** A charge entry by its idempotency key (for refunds). */
export async function chargeByIdempotencyKey(
  q: Queryable,
  keyId: string,
  idempotencyKey: string,
): Promise<Entry | null> {
  const { rows } = await q.query(
    "SELECT * FROM credits.entries WHERE key_id = $1 AND idempotency_key = $2 AND kind = 'charge'",
    [keyId, idempotencyKey],
  );
  return rows[0] ? toEntry(rows[0]) : null;
}
