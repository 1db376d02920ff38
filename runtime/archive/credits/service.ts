/**
 * Archive credits as one service over the ledger and a payment provider: charge a bundle before
 * its presigned URL is handed out, sell packs through the provider's checkout, credit a purchase
 * when the provider's signed event confirms it (once per event id and once per payment), start
 * one auto-refill when a charge crosses the key's threshold, and operator grants and refunds.
 * The clock is injected: the free repair quota follows calendar months (UTC) of `now()`.
 */
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { Db } from "../../db/types.js";
import { badRequest, conflict, notFound, ServiceError } from "../../internal/errors.js";
import type { Logger } from "../../internal/logger.js";
import { looksLikeSecret, newCreditKey } from "./credit-key.js";
import * as ledger from "./ledger.js";
import {
  BUNDLE_KINDS,
  type BundleCharge,
  FREE_REPAIRS_PER_MONTH,
  formatDollars,
  monthWindow,
  PACK_DOLLARS,
} from "./money.js";
import type { PaymentProvider, ProviderEvent } from "./provider.js";

export interface CreditsServiceDeps {
  /** The ledger's own database, migrated (migrateCredits). */
  db: Db;
  /** null: nothing is sold; balances grow by operator grant only. */
  provider: PaymentProvider | null;
  logger: Logger;
  now?: () => Date;
}

/** What the archive server's presign hook gets back. */
export type ChargeResult =
  | { ok: true; balanceCents: number; chargedCents: number; free: boolean; replayed: boolean }
  | { ok: false; error: "INSUFFICIENT_CREDITS"; message: string; balanceCents: number; priceCents: number }
  | { ok: false; error: "INVALID_CREDIT_KEY" | "IDEMPOTENCY_KEY_REUSED" | "INVALID_BUNDLE"; message: string };

export interface BalanceView {
  key_id: string;
  balance_cents: number;
  balance: string;
  free_repairs_left: number;
  free_repairs_reset_at: string;
  auto_refill: {
    threshold_cents: number;
    pack_cents: number;
    saved_payment_method: boolean;
    last_refill: { status: string; amount_cents: number; error: string | null; at: string } | null;
  } | null;
  can_auto_refill: boolean;
}

export interface CreditsService {
  /** The presign hook: charge one bundle once per idempotency key; never beyond the balance. */
  chargeForBundle(creditKey: string, bundle: BundleCharge, idempotencyKey: string): Promise<ChargeResult>;
  balance(creditKey: string): Promise<BalanceView>;
  /** Opens a checkout for a pack; without a credit key a new one is made and returned (shown once). */
  buy(request: { creditKey: string | null; packCents: number; email: string }): Promise<{
    checkout_url: string;
    session_id: string;
    key_id: string;
    credit_key?: string;
  }>;
  handleProviderEvent(
    rawBody: Buffer,
    headers: IncomingHttpHeaders,
  ): Promise<{ duplicate: boolean; credited_cents: number }>;
  setAutoRefill(creditKey: string, setting: { thresholdCents: number; packCents: number } | null): Promise<BalanceView>;
  grant(request: { keyId: string | null; amountCents: number; note?: string; idempotencyKey?: string }): Promise<{
    key_id: string;
    credit_key?: string;
    entry_id: number | null;
    duplicate: boolean;
    balance_cents: number;
  }>;
  /** Gives back one bundle charge (named by the key id and the charge's idempotency key), once. */
  refund(request: { keyId: string; idempotencyKey: string; note?: string }): Promise<{
    entry_id: number | null;
    duplicate: boolean;
    refunded_cents: number;
    balance_cents: number;
  }>;
  /** Resolves when every refill this service started has been handed to the provider. */
  settled(): Promise<void>;
}

const MAX_TEXT = 200;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const invalidKey = () =>
  new ServiceError(401, "INVALID_CREDIT_KEY", "a valid credit key is required (Authorization: Bearer sck_…)");

export function createCreditsService(deps: CreditsServiceDeps): CreditsService {
  const { db, provider, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const inFlight = new Set<Promise<void>>();
  const newRefillId = () => `rf_${randomBytes(12).toString("base64url")}`;

  async function keyFor(creditKey: string): Promise<ledger.KeyRow> {
    const key = looksLikeSecret(creditKey) ? await ledger.keyBySecret(db, creditKey) : null;
    if (!key) throw invalidKey();
    return key;
  }

  async function view(key: ledger.KeyRow): Promise<BalanceView> {
    const at = now();
    const [balance, used, last] = await Promise.all([
      ledger.balanceOf(db, key.key_id),
      ledger.freeRepairsUsed(db, key.key_id, at),
      ledger.lastRefill(db, key.key_id),
    ]);
    const saved = key.provider_customer !== null && key.provider_payment_method !== null;
    return {
      key_id: key.key_id,
      balance_cents: balance,
      balance: formatDollars(balance),
      free_repairs_left: Math.max(FREE_REPAIRS_PER_MONTH - used, 0),
      free_repairs_reset_at: monthWindow(at).end.toISOString(),
      auto_refill:
        key.refill_threshold_cents !== null && key.refill_pack_cents !== null
          ? {
              threshold_cents: key.refill_threshold_cents,
              pack_cents: key.refill_pack_cents,
              saved_payment_method: saved,
              last_refill: last
                ? {
                    status: last.status,
                    amount_cents: last.amount_cents,
                    error: last.error,
                    at: last.created_at.toISOString(),
                  }
                : null,
            }
          : null,
      can_auto_refill: saved && provider !== null,
    };
  }

  /** Hands a reserved refill to the provider after the charge committed; a failure ends the refill. */
  function startRefill(refill: ledger.RefillToStart): void {
    const log = logger.child({ credit_key_id: refill.keyId, refill_id: refill.refillId });
    const run = (async () => {
      const result = provider
        ? await provider.startRefill(refill).catch((err: unknown) => ({
            ok: false as const,
            paymentRef: null,
            error: err instanceof Error ? err.message : String(err),
          }))
        : { ok: false as const, paymentRef: null, error: "no payment provider configured" };
      if (result.ok) {
        await ledger.refillPaymentStarted(db, refill.refillId, result.paymentRef);
        log.info({ msg: "auto-refill started", amount_cents: refill.amountCents, payment_ref: result.paymentRef });
      } else {
        await ledger.finishRefill(db, refill.refillId, "failed", now(), {
          paymentRef: result.paymentRef,
          error: result.error,
        });
        log.warn({ msg: "auto-refill failed", amount_cents: refill.amountCents, error: result.error });
      }
    })().catch((err: unknown) => log.error({ msg: "auto-refill bookkeeping failed", error: err }));
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
  }

  async function creditCheckout(event: Extract<ProviderEvent, { kind: "checkout_completed" }>) {
    const checkout = await ledger.checkoutBySession(db, event.sessionId);
    if (!checkout || !event.paid) {
      // Not ours, or not paid yet (async methods): recorded so a redelivery is a no-op either way.
      return db.transaction(async (q) => {
        const fresh = await ledger.recordProviderEvent(q, event.id, event.type, now());
        return { duplicate: !fresh, credited_cents: 0 };
      });
    }
    // Outside the transaction: a provider call. When it fails the event is answered 503 and the
    // provider sends it again; nothing was recorded.
    const saved = event.paymentRef && provider ? await provider.savedPaymentMethod(event.paymentRef) : null;
    if (event.amountCents !== checkout.pack_cents)
      logger.warn({
        msg: "checkout paid a different amount than the pack",
        session_id: event.sessionId,
        pack_cents: checkout.pack_cents,
        amount_cents: event.amountCents,
      });
    return db.transaction(async (q) => {
      if (!(await ledger.recordProviderEvent(q, event.id, event.type, now())))
        return { duplicate: true, credited_cents: 0 };
      const entry = await ledger.addCredit(q, {
        keyId: checkout.key_id,
        kind: "purchase",
        amountCents: event.amountCents,
        now: now(),
        providerEventId: event.id,
        paymentRef: event.paymentRef ?? `checkout:${event.sessionId}`,
        note: `checkout ${event.sessionId}`,
      });
      if (saved) await ledger.savePaymentMethod(q, checkout.key_id, saved.customerId, saved.paymentMethodId);
      return { duplicate: entry === null, credited_cents: entry === null ? 0 : event.amountCents };
    });
  }

  async function creditRefill(event: Extract<ProviderEvent, { kind: "payment_succeeded" | "payment_failed" }>) {
    return db.transaction(async (q) => {
      if (!(await ledger.recordProviderEvent(q, event.id, event.type, now())))
        return { duplicate: true, credited_cents: 0 };
      const refill = event.refillId ? await ledger.refillById(q, event.refillId, true) : null;
      if (!refill) return { duplicate: false, credited_cents: 0 }; // a checkout's own payment: credited by its session
      if (event.kind === "payment_failed") {
        await ledger.finishRefill(q, refill.refill_id, "failed", now(), {
          paymentRef: event.paymentRef,
          error: event.error,
        });
        logger.warn({ msg: "auto-refill payment failed", credit_key_id: refill.key_id, error: event.error });
        return { duplicate: false, credited_cents: 0 };
      }
      const entry = await ledger.addCredit(q, {
        keyId: refill.key_id,
        kind: "purchase",
        amountCents: event.amountCents,
        now: now(),
        providerEventId: event.id,
        paymentRef: event.paymentRef,
        note: `auto-refill ${refill.refill_id}`,
      });
      await ledger.finishRefill(q, refill.refill_id, "succeeded", now(), { paymentRef: event.paymentRef });
      return { duplicate: entry === null, credited_cents: entry === null ? 0 : event.amountCents };
    });
  }

  return {
    async chargeForBundle(creditKey, bundle, idempotencyKey) {
      const bad = checkBundle(bundle, idempotencyKey);
      if (bad) return { ok: false, error: "INVALID_BUNDLE", message: bad };
      const key = looksLikeSecret(creditKey) ? await ledger.keyBySecret(db, creditKey) : null;
      if (!key) return { ok: false, error: "INVALID_CREDIT_KEY", message: "unknown credit key" };
      const outcome = await ledger.chargeBundle(db, key.key_id, bundle, idempotencyKey, now(), newRefillId);
      if (!outcome.ok) {
        switch (outcome.error) {
          case "INSUFFICIENT_CREDITS":
            return {
              ok: false,
              error: outcome.error,
              balanceCents: outcome.balanceCents,
              priceCents: outcome.priceCents,
              message: `bundle ${bundle.partition} costs ${formatDollars(outcome.priceCents)}, the balance is ${formatDollars(outcome.balanceCents)}; buy credits with: sluice archive buy --pack 25 --email you@example.com`,
            };
          case "IDEMPOTENCY_KEY_REUSED":
            return {
              ok: false,
              error: outcome.error,
              message: `idempotency key ${idempotencyKey} was used for another bundle (${outcome.partition ?? "none"})`,
            };
          default:
            return { ok: false, error: "INVALID_CREDIT_KEY", message: "unknown credit key" };
        }
      }
      if (outcome.refill) startRefill(outcome.refill);
      if (!outcome.replayed)
        logger.info({
          msg: outcome.free ? "free repair bundle" : "bundle charged",
          credit_key_id: key.key_id,
          partition: bundle.partition,
          charged_cents: outcome.chargedCents,
          balance_cents: outcome.balanceCents,
        });
      return {
        ok: true,
        balanceCents: outcome.balanceCents,
        chargedCents: outcome.chargedCents,
        free: outcome.free,
        replayed: outcome.replayed,
      };
    },

    async balance(creditKey) {
      return view(await keyFor(creditKey));
    },

    async buy({ creditKey, packCents, email }) {
      if (!provider)
        throw new ServiceError(
          503,
          "PAYMENTS_NOT_CONFIGURED",
          "this archive sells no credits; its operator grants them (sluice archive credits grant)",
        );
      if (!PACK_DOLLARS.map((d) => d * 100).includes(packCents))
        throw badRequest("INVALID_PACK", `pack must be one of ${PACK_DOLLARS.map((d) => `$${d}`).join(", ")}`, {
          packs: [...PACK_DOLLARS],
        });
      if (typeof email !== "string" || email.length > 254 || !EMAIL.test(email))
        throw badRequest("INVALID_EMAIL", "email must be an e-mail address (the receipt goes there)");
      // The key is written with its checkout, once the provider opened it: a failed checkout leaves
      // no key whose secret nobody ever saw.
      const fresh = creditKey === null ? newCreditKey() : null;
      const keyId = fresh ? fresh.keyId : (await keyFor(creditKey as string)).key_id;
      const checkoutId = `co_${randomBytes(12).toString("base64url")}`;
      const session = await provider
        .createCheckout({ checkoutId, keyId, amountCents: packCents, email })
        .catch((err: unknown) => {
          throw new ServiceError(
            502,
            "PROVIDER_UNAVAILABLE",
            "the payment provider did not open a checkout; try again",
            undefined,
            {
              cause: err,
            },
          );
        });
      await db.transaction(async (q) => {
        if (fresh) await ledger.insertKey(q, fresh, now(), email);
        await ledger.insertCheckout(q, { sessionId: session.sessionId, keyId, packCents, email, now: now() });
      });
      logger.info({
        msg: "checkout opened",
        credit_key_id: keyId,
        session_id: session.sessionId,
        pack_cents: packCents,
      });
      return {
        checkout_url: session.url,
        session_id: session.sessionId,
        key_id: keyId,
        ...(fresh ? { credit_key: fresh.secret } : {}),
      };
    },

    async handleProviderEvent(rawBody, headers) {
      if (!provider) throw notFound("NOT_FOUND", "this archive has no payment provider");
      const event = provider.parseEvent(rawBody, headers); // throws ProviderSignatureError → 400
      switch (event.kind) {
        case "checkout_completed":
          return creditCheckout(event);
        case "payment_succeeded":
        case "payment_failed":
          return creditRefill(event);
        default:
          return db.transaction(async (q) => ({
            duplicate: !(await ledger.recordProviderEvent(q, event.id, event.type, now())),
            credited_cents: 0,
          }));
      }
    },

    async setAutoRefill(creditKey, setting) {
      const key = await keyFor(creditKey);
      if (setting) {
        if (!PACK_DOLLARS.map((d) => d * 100).includes(setting.packCents))
          throw badRequest("INVALID_PACK", `pack must be one of ${PACK_DOLLARS.map((d) => `$${d}`).join(", ")}`);
        if (!Number.isSafeInteger(setting.thresholdCents) || setting.thresholdCents <= 0)
          throw badRequest("INVALID_THRESHOLD", "threshold must be a dollar amount above zero");
        if (!provider)
          throw new ServiceError(
            503,
            "PAYMENTS_NOT_CONFIGURED",
            "this archive takes no card payments, so it cannot refill",
          );
        if (!key.provider_customer || !key.provider_payment_method)
          throw conflict(
            "NO_SAVED_PAYMENT_METHOD",
            "auto-refill charges the card of an earlier purchase: buy a pack by card first (sluice archive buy)",
          );
      }
      await ledger.setAutoRefill(db, key.key_id, setting);
      return view((await ledger.keyById(db, key.key_id)) as ledger.KeyRow);
    },

    async grant({ keyId, amountCents, note, idempotencyKey }) {
      if (!Number.isSafeInteger(amountCents) || amountCents <= 0)
        throw badRequest("INVALID_AMOUNT", "amount must be a dollar amount above zero");
      if (idempotencyKey !== undefined && (idempotencyKey.length === 0 || idempotencyKey.length > MAX_TEXT))
        throw badRequest("INVALID_IDEMPOTENCY_KEY", `idempotency key must be 1 to ${MAX_TEXT} characters`);
      let fresh: ReturnType<typeof newCreditKey> | null = null;
      const result = await db.transaction(async (q) => {
        let id = keyId;
        if (id === null) {
          fresh = newCreditKey();
          id = fresh.keyId;
          await ledger.insertKey(q, fresh, now(), null);
        } else if (!(await ledger.keyById(q, id, true))) throw notFound("CREDIT_KEY_NOT_FOUND", `no credit key ${id}`);
        const entry = await ledger.addCredit(q, {
          keyId: id,
          kind: "grant",
          amountCents,
          now: now(),
          idempotencyKey,
          note: note ?? "operator grant",
        });
        return { key_id: id, entry_id: entry, duplicate: entry === null, balance_cents: await ledger.balanceOf(q, id) };
      });
      logger.info({
        msg: "credits granted",
        credit_key_id: result.key_id,
        amount_cents: amountCents,
        duplicate: result.duplicate,
      });
      const made = fresh as ReturnType<typeof newCreditKey> | null;
      return { ...result, ...(made ? { credit_key: made.secret } : {}) };
    },

    async refund({ keyId, idempotencyKey, note }) {
      return db.transaction(async (q) => {
        if (!(await ledger.keyById(q, keyId, true))) throw notFound("CREDIT_KEY_NOT_FOUND", `no credit key ${keyId}`);
        const charge = await ledger.chargeByIdempotencyKey(q, keyId, idempotencyKey);
        if (!charge || charge.amount_cents === 0)
          throw notFound("CHARGE_NOT_FOUND", `no paid charge with idempotency key ${idempotencyKey} on ${keyId}`);
        const entry = await ledger.addCredit(q, {
          keyId,
          kind: "refund",
          amountCents: -charge.amount_cents,
          now: now(),
          refundOf: charge.entry_id,
          note: note ?? `refund of ${charge.partition ?? "a charge"}`,
        });
        return {
          entry_id: entry,
          duplicate: entry === null,
          refunded_cents: entry === null ? 0 : -charge.amount_cents,
          balance_cents: await ledger.balanceOf(q, keyId),
        };
      });
    },

    async settled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}

/** Why a bundle charge request is malformed, or null. */
function checkBundle(bundle: BundleCharge, idempotencyKey: string): string | null {
  if (typeof bundle?.partition !== "string" || bundle.partition.length === 0 || bundle.partition.length > MAX_TEXT)
    return `partition must be 1 to ${MAX_TEXT} characters`;
  if (!Number.isSafeInteger(bundle.priceCents) || bundle.priceCents < 0)
    return "priceCents must be a whole number of cents, 0 or more";
  if (!BUNDLE_KINDS.includes(bundle.kind)) return `kind must be one of ${BUNDLE_KINDS.join(", ")}`;
  if (typeof idempotencyKey !== "string" || idempotencyKey.length === 0 || idempotencyKey.length > MAX_TEXT)
    return `idempotency key must be 1 to ${MAX_TEXT} characters`;
  return null;
}
