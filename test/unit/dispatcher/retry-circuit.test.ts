/**
 * runtime/dispatcher/retry.ts and circuit.ts with injected `random` and `now`: the backoff
 * schedule and its jitter, Retry-After parsing, dead after the last attempt, and every breaker
 * transition with its timings.
 */
import { describe, expect, it } from "vitest";
import { settleAttempt } from "../../../runtime/dispatcher/attempt.js";
import {
  CLOSED,
  type Circuit,
  recordOutcome,
  retryAt,
  sendAllowance,
  startProbe,
} from "../../../runtime/dispatcher/circuit.js";
import type { ClaimedRow } from "../../../runtime/dispatcher/outbox-store.js";
import { backoffDelay, DEFAULT_RETRY_POLICY, decideRetry, parseRetryAfter } from "../../../runtime/dispatcher/retry.js";

const policy = { baseDelayMs: 1000, maxDelayMs: 60_000, maxRetryAfterMs: 120_000 };

describe("backoffDelay", () => {
  it.each([
    [1, 0, 500],
    [1, 0.999999, 1000],
    [2, 0, 1000],
    [3, 0.5, 3000],
    [7, 1, 60_000], // 64 s capped at 60 s
    [40, 0, 30_000],
  ])("attempt %d, random %d → %d ms", (attempt, r, want) => {
    expect(backoffDelay(attempt, policy, () => r)).toBe(want);
  });

  it("defaults: 5 s base doubling to a 1 h cap, never below half the step", () => {
    const lows = Array.from({ length: 12 }, (_, i) => backoffDelay(i + 1, DEFAULT_RETRY_POLICY, () => 0));
    expect(lows).toEqual([
      2500, 5000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_280_000, 1_800_000, 1_800_000,
    ]);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it.each([
    ["120", 120_000],
    ["0", 0],
    [" 5 ", 5000],
    ["Thu, 01 Jan 2026 00:00:30 GMT", 30_000],
    ["Wed, 31 Dec 2025 23:59:00 GMT", 0],
    [["7", "9"], 7000],
  ])("%j → %d ms", (value, want) => {
    expect(parseRetryAfter(value as string, now)).toBe(want);
  });

  it.each([[undefined], ["soon"], ["1.5"], ["-3"], [""]])("%j → undefined", (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe("decideRetry", () => {
  it("dead after the last attempt", () => {
    expect(decideRetry(3, 3, undefined, policy, () => 0)).toEqual({ kind: "dead" });
    expect(decideRetry(1, 1, 5000, policy, () => 0)).toEqual({ kind: "dead" });
  });

  it("Retry-After wins when it asks for longer, capped", () => {
    expect(decideRetry(1, 5, 10_000, policy, () => 0)).toEqual({ kind: "retry", delayMs: 10_000 });
    expect(decideRetry(1, 5, 100, policy, () => 0)).toEqual({ kind: "retry", delayMs: 500 });
    expect(decideRetry(1, 5, 10_000_000, policy, () => 0)).toEqual({ kind: "retry", delayMs: 120_000 });
  });
});

describe("settleAttempt", () => {
  const row: ClaimedRow = {
    id: "1",
    webhookId: "w",
    deliveryId: "msg",
    eventType: "t",
    dataJson: "{}",
    attempts: 1,
    createdAt: new Date(0),
    fence: false,
    leaseToken: "k",
  };
  const outcome = (status: number | null, error: string | null, retryAfter?: string) => ({
    status,
    error,
    retryAfter,
    excerpt: null,
    durationMs: 20,
  });

  it("2xx is delivered", () => {
    expect(settleAttempt(row, { maxAttempts: 3 }, outcome(204, null), 1000, policy, () => 0)).toMatchObject({
      attempt: 2,
      success: true,
      next: { status: "delivered" },
    });
  });

  it("a failure is retried after the backoff from when it finished, honouring Retry-After", () => {
    expect(
      settleAttempt(row, { maxAttempts: 3 }, outcome(500, "endpoint answered 500"), 1000, policy, () => 0).next,
    ).toEqual({
      status: "pending",
      at: new Date(1020 + 1000),
    });
    expect(
      settleAttempt(row, { maxAttempts: 3 }, outcome(429, "endpoint answered 429", "30"), 1000, policy, () => 0).next,
    ).toEqual({
      status: "pending",
      at: new Date(1020 + 30_000),
    });
  });

  it("the last failed attempt is dead; a timeout (no status) is a failure", () => {
    expect(
      settleAttempt({ ...row, attempts: 2 }, { maxAttempts: 3 }, outcome(null, "timed out"), 0, policy, () => 0),
    ).toMatchObject({
      attempt: 3,
      success: false,
      next: { status: "dead" },
    });
  });
});

describe("circuit breaker", () => {
  const b = { failureThreshold: 3, cooldownMs: 10_000 };
  const fail = (c: Circuit, at: number) => recordOutcome(c, false, at, b);

  it("opens after the threshold of consecutive failures; a success in between resets the count", () => {
    let c = fail(fail(CLOSED, 1), 2);
    expect(c).toEqual({ state: "closed", failures: 2, openedAt: null, probing: false });
    expect(recordOutcome(c, true, 3, b)).toEqual(CLOSED);
    c = fail(c, 3);
    expect(c).toEqual({ state: "open", failures: 3, openedAt: 3, probing: false });
    expect(retryAt(c, b)).toBe(10_003);
  });

  it("open lets nothing through until the cool-down ends, then one probe (half-open)", () => {
    const open: Circuit = { state: "open", failures: 3, openedAt: 1000, probing: false };
    expect(sendAllowance(open, 10_999, b)).toEqual({ circuit: open, allowed: 0 });
    const { circuit, allowed } = sendAllowance(open, 11_000, b);
    expect(circuit.state).toBe("half_open");
    expect(allowed).toBe(1);
    const probing = startProbe(circuit);
    expect(sendAllowance(probing, 11_001, b).allowed).toBe(0);
  });

  it("the probe's success closes; its failure reopens with a fresh cool-down", () => {
    const probing: Circuit = { state: "half_open", failures: 3, openedAt: 1000, probing: true };
    expect(recordOutcome(probing, true, 12_000, b)).toEqual(CLOSED);
    expect(recordOutcome(probing, false, 12_000, b)).toEqual({
      state: "open",
      failures: 4,
      openedAt: 12_000,
      probing: false,
    });
  });

  it("closed lets everything through", () => {
    expect(sendAllowance(CLOSED, 0, b).allowed).toBe(Number.POSITIVE_INFINITY);
  });
});
