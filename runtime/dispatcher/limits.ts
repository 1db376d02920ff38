/**
 * Per-webhook delivery limits (timeout, max attempts, concurrency): defaults and accepted ranges, and their pure validation.
 */
import { badRequest } from "../internal/errors.js";
import type { DeliveryLimits } from "./webhook-store.js";

export const LIMIT_RULES: Readonly<Record<keyof DeliveryLimits, { min: number; max: number; default: number }>> = {
  /** Per-attempt timeout: connect, send and read the response. */
  timeoutMs: { min: 1_000, max: 60_000, default: 10_000 },
  /** Attempts before a delivery is dead (kept, listable, requeueable). */
  maxAttempts: { min: 1, max: 30, default: 10 },
  /** Deliveries in flight at once to this endpoint, per worker process. */
  concurrency: { min: 1, max: 64, default: 8 },
};

export const DEFAULT_LIMITS: Readonly<DeliveryLimits> = {
  timeoutMs: LIMIT_RULES.timeoutMs.default,
  maxAttempts: LIMIT_RULES.maxAttempts.default,
  concurrency: LIMIT_RULES.concurrency.default,
};

/** Validates the limit fields present in `body`; absent fields stay undefined. */
export function parseLimits(body: Record<string, unknown>): Partial<DeliveryLimits> {
  const out: Partial<DeliveryLimits> = {};
  for (const [key, rule] of Object.entries(LIMIT_RULES) as [
    keyof DeliveryLimits,
    (typeof LIMIT_RULES)["timeoutMs"],
  ][]) {
    const v = body[key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isInteger(v) || v < rule.min || v > rule.max) {
      throw badRequest("VALIDATION_ERROR", `${key} must be an integer from ${rule.min} to ${rule.max}`, { field: key });
    }
    out[key] = v;
  }
  return out;
}
