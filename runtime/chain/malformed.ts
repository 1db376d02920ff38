/**
 * The one rule for a request that can never be ingested: it is journaled as malformed, counted
 * in /status and never tried again, the same whichever journal holds it (database or file) and
 * whether it came from the observer or `sluice import`. Pure.
 */
import { MalformedPayloadError, errorMessage, isRetryable } from "../internal/errors.js";

/**
 * Why a request is malformed, or null when its failure may pass and the request must be tried
 * again. While decoding, every failure is the payload's (the decoder is pure). While applying, only
 * a non-retryable failure is (runtime/internal/errors.ts `isRetryable`: the database refusing the
 * data itself refuses it on every run).
 */
export function malformedReason(stage: "decode" | "apply", err: unknown): string | null {
  if (err instanceof MalformedPayloadError) return err.message;
  if (stage === "decode") return `decoder failed: ${errorMessage(err)}`;
  return isRetryable(err) ? null : `database rejected the data: ${errorMessage(err)}`;
}
