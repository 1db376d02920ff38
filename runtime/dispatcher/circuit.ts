/**
 * Per-endpoint circuit breaker (SPEC.md "States and transitions": a failing endpoint's circuit
 * opens and does not block the queue; DESIGN.md §5), pure: `now` is passed in.
 *
 *   closed ──(failureThreshold consecutive failed attempts)──▶ open
 *   open ──(cooldownMs elapsed, on the next send check)──▶ half_open (one probe at a time)
 *   half_open ──probe succeeds──▶ closed      half_open ──probe fails──▶ open (cool-down restarts)
 *
 * While open, no row of the endpoint is claimed, so its rows keep their attempts for later.
 */

export type CircuitState = "closed" | "open" | "half_open";

export interface Circuit {
  state: CircuitState;
  /** Consecutive failed attempts (reset by any success). */
  failures: number;
  /** When the circuit last opened (ms), else null. */
  openedAt: number | null;
  /** Half-open only: whether the probe is in flight. */
  probing: boolean;
}

export interface BreakerPolicy {
  failureThreshold: number;
  cooldownMs: number;
}

export const DEFAULT_BREAKER_POLICY: Readonly<BreakerPolicy> = { failureThreshold: 5, cooldownMs: 30_000 };

export const CLOSED: Readonly<Circuit> = Object.freeze({
  state: "closed",
  failures: 0,
  openedAt: null,
  probing: false,
});

/** How many attempts may start now, and the circuit after the check (open → half_open). */
export function sendAllowance(c: Circuit, nowMs: number, policy: BreakerPolicy): { circuit: Circuit; allowed: number } {
  switch (c.state) {
    case "closed":
      return { circuit: c, allowed: Number.POSITIVE_INFINITY };
    case "open":
      if (c.openedAt !== null && nowMs - c.openedAt < policy.cooldownMs) return { circuit: c, allowed: 0 };
      return { circuit: { ...c, state: "half_open", probing: false }, allowed: 1 };
    case "half_open":
      return { circuit: c, allowed: c.probing ? 0 : 1 };
  }
}

/** Marks the half-open probe as started. */
export function startProbe(c: Circuit): Circuit {
  return c.state === "half_open" ? { ...c, probing: true } : c;
}

/** The circuit after an attempt's outcome. */
export function recordOutcome(c: Circuit, success: boolean, nowMs: number, policy: BreakerPolicy): Circuit {
  if (success) return c.state === "closed" && c.failures === 0 ? c : { ...CLOSED };
  const failures = c.failures + 1;
  if (c.state === "half_open") return { state: "open", failures, openedAt: nowMs, probing: false };
  if (c.state === "open") return { ...c, failures };
  if (failures >= policy.failureThreshold) return { state: "open", failures, openedAt: nowMs, probing: false };
  return { ...c, failures };
}

/** When an open circuit lets its probe through (ms), else null. */
export function retryAt(c: Circuit, policy: BreakerPolicy): number | null {
  return c.state === "open" && c.openedAt !== null ? c.openedAt + policy.cooldownMs : null;
}
