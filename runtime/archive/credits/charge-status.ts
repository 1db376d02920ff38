/**
 * The HTTP answer of a presign whose charge failed (for the archive server's presign route):
 * 402 when the balance is short, 401 for an unknown key, 409 for an idempotency key reused on
 * another bundle, 400 for a malformed bundle.
 */
import type { ChargeResult } from "./service.js";

export function chargeStatus(result: Exclude<ChargeResult, { ok: true }>): number {
  switch (result.error) {
    case "INSUFFICIENT_CREDITS":
      return 402;
    case "INVALID_CREDIT_KEY":
      return 401;
    case "IDEMPOTENCY_KEY_REUSED":
      return 409;
    default:
      return 400;
  }
}
