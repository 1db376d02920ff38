/**
 * Retry schedule (DESIGN.md §5: exponential backoff with jitter, dead after the last attempt;
 * `Retry-After` honoured), pure: `random` and `now` are passed in.
 *
 * Delay after failed attempt n (1-based): d = min(cap, base · 2^(n-1)), drawn uniformly from
 * [d/2, d] ("equal jitter": never less than half the step, so retries still back off, yet
 * endpoints recovering together are not hit in lockstep). With the defaults (5 s base, 1 h cap)
 * the steps are 5 s, 10 s, 20 s, 40 s, 80 s, 160 s, 320 s, 640 s, 1280 s, 2560 s, then 1 h: with
 * 10 attempts (9 waits) a delivery is retried for about 21 to 43 minutes before it is dead.
 */

export interface RetryPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest `Retry-After` honoured; a larger value is cut to this. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  baseDelayMs: 5_000,
  maxDelayMs: 60 * 60_000,
  maxRetryAfterMs: 6 * 60 * 60_000,
};

/** Jittered backoff after failed attempt `attempt` (1-based); `random` in [0, 1). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40));
  return Math.round(exp / 2 + random() * (exp / 2));
}

/**
 * `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. Returns milliseconds from
 * `nowMs` (0 for a date in the past), or undefined when absent or unparseable.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined; // "1.5", "-3": not delay-seconds, not a date
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

export type RetryDecision = { kind: "retry"; delayMs: number } | { kind: "dead" };

/**
 * What happens after failed attempt `attempt` of `maxAttempts`: dead after the last one;
 * otherwise the backoff, or the receiver's Retry-After when that asks for longer (capped).
 */
export function decideRetry(
  attempt: number,
  maxAttempts: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  random: () => number,
): RetryDecision {
  if (attempt >= maxAttempts) return { kind: "dead" };
  const backoff = backoffDelay(attempt, policy, random);
  const asked = retryAfterMs === undefined ? 0 : Math.min(retryAfterMs, policy.maxRetryAfterMs);
  return { kind: "retry", delayMs: Math.max(backoff, asked) };
}
