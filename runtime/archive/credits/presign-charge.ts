/**
 * The seam between credits and the archive server's presign route: a bundle is charged before its
 * presigned URL is issued. The instance sends its credit key (`Authorization: Bearer sck_…`) and
 * an `Idempotency-Key` that stays the same when it asks again for the same bundle of the same
 * restore (after a network error or a kill -9), so a retried presign is charged once. The price is
 * the manifest's `price_units` for the partition times the archive's unit price.
 */
import type { IncomingHttpHeaders } from "node:http";
import { bearerOf } from "./credit-key.js";
import { chargeStatus } from "./charge-status.js";
import { BUNDLE_KINDS, type BundleKind } from "./money.js";
import type { CreditsService } from "./service.js";

export const IDEMPOTENCY_HEADER = "idempotency-key";

export type PresignCharge =
  | { ok: true; balanceCents: number; chargedCents: number; free: boolean; replayed: boolean }
  | { ok: false; status: number; code: string; message: string; details?: Record<string, unknown> };

/** The headers an instance sends with a presign request. */
export function chargeHeaders(creditKey: string, idempotencyKey: string): Record<string, string> {
  return { authorization: `Bearer ${creditKey}`, [IDEMPOTENCY_HEADER]: idempotencyKey };
}

/** The idempotency key of one bundle of one restore: stable across retries and resumes of that restore. */
export function bundleIdempotencyKey(restoreId: string, file: string): string {
  return `${restoreId}:${file}`;
}

/** Cents for a partition: its manifest price units times the unit price. */
export function bundlePriceCents(priceUnits: number, unitPriceCents: number): number {
  if (!Number.isSafeInteger(priceUnits) || priceUnits < 0)
    throw new Error(`price_units ${priceUnits} is not a whole number ≥ 0`);
  return priceUnits * unitPriceCents;
}

/**
 * Reads the credit key and idempotency key from a presign request and charges the bundle.
 * Refusals come back with the status to answer: 401 no or unknown key, 400 no idempotency key or
 * a bad kind, 402 INSUFFICIENT_CREDITS (nothing charged), 409 an idempotency key reused.
 */
export async function chargePresign(
  service: CreditsService,
  headers: IncomingHttpHeaders,
  bundle: { file: string; priceCents: number; kind: unknown },
): Promise<PresignCharge> {
  const creditKey = bearerOf(headers.authorization);
  if (!creditKey)
    return {
      ok: false,
      status: 401,
      code: "INVALID_CREDIT_KEY",
      message:
        "a credit key is required to fetch bundles (Authorization: Bearer sck_…); buy one with sluice archive buy",
    };
  const idem = headers[IDEMPOTENCY_HEADER];
  if (typeof idem !== "string" || idem.length === 0 || idem.length > 200)
    return {
      ok: false,
      status: 400,
      code: "IDEMPOTENCY_KEY_REQUIRED",
      message: "send an Idempotency-Key header (1 to 200 characters)",
    };
  if (!BUNDLE_KINDS.includes(bundle.kind as BundleKind))
    return { ok: false, status: 400, code: "INVALID_KIND", message: `kind must be one of ${BUNDLE_KINDS.join(", ")}` };
  const result = await service.chargeForBundle(
    creditKey,
    { partition: bundle.file, priceCents: bundle.priceCents, kind: bundle.kind as BundleKind },
    idem,
  );
  if (result.ok) return result;
  return {
    ok: false,
    status: chargeStatus(result),
    code: result.error,
    message: result.message,
    ...(result.error === "INSUFFICIENT_CREDITS"
      ? { details: { balance_cents: result.balanceCents, price_cents: result.priceCents } }
      : {}),
  };
}
