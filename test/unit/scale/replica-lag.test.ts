/**
 * The read-replica rule's pure parts (runtime/scale/replica-lag.ts, README "Read replicas"): WAL
 * positions, the lag bound from the primary's recorded positions, and when a replica may serve.
 * Expected values are worked out by hand from the inputs.
 */
import { describe, expect, it } from "vitest";
import {
  LsnHistory,
  type ReplicaHealth,
  judgeReplica,
  parseLsn,
  probeIntervalMs,
} from "../../../runtime/scale/replica-lag.js";
import { formatLsn } from "../../../runtime/scale/read-replicas.js";

describe("WAL positions", () => {
  it("parses PostgreSQL's text form: high 32 bits / low 32 bits, hexadecimal", () => {
    expect(parseLsn("0/0")).toBe(0n);
    expect(parseLsn("0/3000148")).toBe(0x3000148n);
    expect(parseLsn("16/B374D848")).toBe(0x16n * 2n ** 32n + 0xb374d848n);
    expect(parseLsn("FFFFFFFF/FFFFFFFF")).toBe(2n ** 64n - 1n);
    expect(formatLsn(parseLsn("16/B374D848"))).toBe("16/B374D848");
  });

  it("refuses anything else", () => {
    for (const bad of ["", "16", "16/", "/1", "G/1", "1/2/3", "123456789/0"]) expect(() => parseLsn(bad)).toThrow();
  });
});

describe("LsnHistory", () => {
  // The primary at 100 after 1000 ms, 200 after 2000 ms, 300 after 3000 ms.
  const history = () => {
    const h = new LsnHistory(60_000);
    h.record(1000, 100n);
    h.record(2000, 200n);
    h.record(3000, 300n);
    return h;
  };

  it("a replica caught up with the latest position lags by the time since that position was read", () => {
    expect(history().lagMs(300n, 3000)).toBe(0);
    expect(history().lagMs(350n, 3400)).toBe(400);
    expect(history().lagBytes(300n)).toBe(0n);
    expect(history().lagBytes(350n)).toBe(0n);
  });

  it("a replica between two positions lags at most since the older one", () => {
    // It holds what the primary held at 2000 ms (200) but not what it held at 3000 ms (300).
    expect(history().lagMs(250n, 3000)).toBe(1000);
    expect(history().lagMs(200n, 3500)).toBe(1500);
    expect(history().lagBytes(250n)).toBe(50n);
  });

  it("a replica behind every position kept has an unknown lag", () => {
    expect(history().lagMs(99n, 3000)).toBeNull();
    expect(new LsnHistory(1000).lagMs(0n, 0)).toBeNull();
    expect(new LsnHistory(1000).lagBytes(0n)).toBeNull();
  });

  it("keeps positions for keepMs (the newest always), so an older replay position becomes unknown", () => {
    const h = new LsnHistory(1500);
    h.record(1000, 100n);
    h.record(2000, 200n);
    expect(h.lagMs(150n, 2000)).toBe(1000);
    h.record(4000, 300n); // 1000 and 2000 are more than 1500 ms before 4000
    expect(h.lagMs(250n, 4000)).toBeNull();
    expect(h.lagMs(300n, 4100)).toBe(100);
    expect(h.latest).toBe(300n);
  });

  it("ignores a position that moves back", () => {
    const h = new LsnHistory(60_000);
    h.record(1000, 500n);
    h.record(2000, 400n);
    expect(h.latest).toBe(500n);
    expect(h.lagMs(450n, 2000)).toBeNull();
  });
});

describe("judgeReplica", () => {
  const probe = (at: number, lagMs: number | null, more: Partial<NonNullable<ReplicaHealth["probe"]>> = {}) => ({
    at,
    inRecovery: true,
    replayLsn: 10n,
    replayPaused: false,
    lagMs,
    lagBytes: 0n,
    ...more,
  });

  it("healthy while lag at the check plus its age stays within the maximum", () => {
    expect(judgeReplica({ probe: probe(1000, 200), error: null }, 1000, 1500)).toEqual({
      state: "healthy",
      lagMs: 700,
    });
    expect(judgeReplica({ probe: probe(1000, 200), error: null }, 1000, 1800)).toEqual({
      state: "healthy",
      lagMs: 1000,
    });
    // No newer check: the bound keeps growing with the check's age.
    expect(judgeReplica({ probe: probe(1000, 200), error: null }, 1000, 1801)).toEqual({
      state: "lagging",
      lagMs: 1001,
    });
  });

  it("lagging when the lag is unknown (behind the history kept)", () => {
    expect(judgeReplica({ probe: probe(1000, null), error: null }, 1000, 1000)).toEqual({
      state: "lagging",
      lagMs: null,
    });
  });

  it("a server that is not in recovery is never used", () => {
    expect(judgeReplica({ probe: probe(1000, 0, { inRecovery: false }), error: null }, 1000, 1000).state).toBe(
      "not_a_replica",
    );
  });

  it("a failure newer than the last good check takes it out until a check succeeds again", () => {
    const good = probe(1000, 0);
    expect(judgeReplica({ probe: null, error: null }, 1000, 0).state).toBe("connecting");
    expect(judgeReplica({ probe: null, error: { at: 5, during: "probe", message: "refused" } }, 1000, 10).state).toBe(
      "unreachable",
    );
    expect(judgeReplica({ probe: good, error: { at: 1000, during: "probe", message: "x" } }, 1000, 1000).state).toBe(
      "unreachable",
    );
    expect(judgeReplica({ probe: good, error: { at: 1200, during: "read", message: "x" } }, 1000, 1300).state).toBe(
      "failing",
    );
    expect(
      judgeReplica({ probe: probe(1400, 0), error: { at: 1200, during: "read", message: "x" } }, 1000, 1400),
    ).toEqual({ state: "healthy", lagMs: 0 });
  });
});

describe("probeIntervalMs", () => {
  it("a quarter of the maximum lag, between 100 ms and 1 s", () => {
    expect(probeIntervalMs(5000)).toBe(1000);
    expect(probeIntervalMs(2000)).toBe(500);
    expect(probeIntervalMs(100)).toBe(100);
    expect(probeIntervalMs(1)).toBe(100);
  });
});
