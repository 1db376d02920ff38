/**
 * How far a read replica is behind the primary, and whether it may serve reads now (README
 * "Read replicas"). Pure: the I/O that feeds it is read-replicas.ts.
 *
 * Lag in bytes is the primary's WAL position minus the replica's replay position. Lag in time is
 * measured on this process's own clock, so clock skew between hosts plays no part: every check
 * records the primary's WAL position with the time it was read (`LsnHistory`); a replica that has
 * replayed up to a position the primary had reached at time t holds everything the primary held
 * at t, so its lag is at most now - t. The latest such t gives the bound reported. A replica that
 * has not reached even the oldest position kept is further behind than the history covers: its
 * lag is unknown (null) and it is not used.
 */

/** A WAL position (`pg_lsn` text such as `16/B374D848`) as a number of bytes. */
export function parseLsn(text: string): bigint {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  if (!m) throw new Error(`not a WAL position: ${JSON.stringify(text)}`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

/** The primary's WAL positions as read over time, oldest first. */
export class LsnHistory {
  private readonly samples: { at: number; lsn: bigint }[] = [];

  /** `keepMs`: how far back samples are kept (a replica behind all of them has an unknown lag). */
  constructor(private readonly keepMs: number) {}

  /** Records the primary's position read at `at` (ms). A position never moves back; one that does is ignored. */
  record(at: number, lsn: bigint): void {
    const last = this.samples[this.samples.length - 1];
    if (last !== undefined && (lsn < last.lsn || at < last.at)) return;
    this.samples.push({ at, lsn });
    while (this.samples.length > 1 && this.samples[0].at < at - this.keepMs) this.samples.shift();
  }

  /** The latest position recorded, or null before the first. */
  get latest(): bigint | null {
    return this.samples.length ? this.samples[this.samples.length - 1].lsn : null;
  }

  /**
   * An upper bound of how many ms a replica that replayed up to `replayLsn` is behind the primary
   * at `now`; null when it has not reached the oldest position kept (or nothing is recorded).
   */
  lagMs(replayLsn: bigint, now: number): number | null {
    for (let i = this.samples.length - 1; i >= 0; i--) {
      if (this.samples[i].lsn <= replayLsn) return Math.max(0, now - this.samples[i].at);
    }
    return null;
  }

  /** Bytes of WAL the primary had written, at the latest position, past `replayLsn` (0 when none). */
  lagBytes(replayLsn: bigint): bigint | null {
    const latest = this.latest;
    return latest === null ? null : latest > replayLsn ? latest - replayLsn : 0n;
  }
}

/** The last check of a replica. */
export interface ReplicaProbe {
  /** When it was read (ms, this process's clock). */
  at: number;
  /** pg_is_in_recovery(): false for a server that is not a standby (never used). */
  inRecovery: boolean;
  replayLsn: bigint | null;
  replayPaused: boolean;
  /** LsnHistory.lagMs at `at`. */
  lagMs: number | null;
  lagBytes: bigint | null;
}

export interface ReplicaHealth {
  probe: ReplicaProbe | null;
  /** The last failure: of a check (`probe`) or of a read a request made on it (`read`). */
  error: { at: number; during: "probe" | "read"; message: string } | null;
}

export type ReplicaState = "connecting" | "unreachable" | "failing" | "not_a_replica" | "lagging" | "healthy";

/**
 * Whether a replica may serve reads at `now`, and its lag then. A failure newer than the last good
 * check takes it out until a check succeeds again. The lag at the check grows by the time since:
 * a replica is used only while lag + age stays within `maxLagMs`, so checks that stop (a hung
 * connection) take it out too.
 */
export function judgeReplica(
  health: ReplicaHealth,
  maxLagMs: number,
  now: number,
): { state: ReplicaState; lagMs: number | null } {
  const { probe, error } = health;
  if (error !== null && (probe === null || error.at >= probe.at)) {
    return {
      state: error.during === "probe" ? "unreachable" : "failing",
      lagMs: probe === null ? null : lagNow(probe, now),
    };
  }
  if (probe === null) return { state: "connecting", lagMs: null };
  if (!probe.inRecovery) return { state: "not_a_replica", lagMs: null };
  const lagMs = lagNow(probe, now);
  if (lagMs === null || lagMs > maxLagMs) return { state: "lagging", lagMs };
  return { state: "healthy", lagMs };
}

function lagNow(probe: ReplicaProbe, now: number): number | null {
  return probe.lagMs === null ? null : probe.lagMs + Math.max(0, now - probe.at);
}

/** How often replicas are checked for a given maximum lag: a quarter of it, 100 ms to 1 s. */
export function probeIntervalMs(maxLagMs: number): number {
  return Math.min(1000, Math.max(100, Math.floor(maxLagMs / 4)));
}
