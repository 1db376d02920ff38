/**
 * Read replicas (README "Read replicas"): PostgreSQL streaming standbys of the primary
 * (DATABASE_READ_URL) that /v1 reads of indexed chain data run on, and the rule that keeps their
 * answers consistent with the primary.
 *
 * The consistency rule. A read runs on a replica inside one REPEATABLE READ, READ ONLY
 * transaction that first reads the chain tip the replica's snapshot holds (control.chain_tip's
 * index_block_hash). Its answer is used only when that tip is, after the read, a canonical block
 * on the primary: the tip the request itself read from the primary, or else one single-row
 * primary-key read of chain.blocks. Otherwise (the primary rolled that tip back, or the replica
 * has no block yet) the read runs again on the primary. Why that suffices: everything a snapshot
 * shows as canonical lies on the chain ending at its tip, and a block's ancestors are canonical
 * whenever it is; so an answer whose tip the primary still holds canonical shows nothing the
 * primary has rolled back at a moment after the request arrived, as a primary read would. A
 * replica read that fails (connection lost, a query cancelled by replay) runs again on the
 * primary: a replica never turns a read into an error.
 *
 * Which replica: one whose last check found it replaying (pg_is_in_recovery) and whose lag
 * (replica-lag.ts: bytes and an upper bound in time) stays within READ_REPLICA_MAX_LAG_MS, taken
 * in turn. Replicas are checked every probeIntervalMs; a replica that cannot be reached or whose
 * read failed is left out until a check succeeds again. Nothing here delays start-up: replicas
 * that are down at start are connected by later checks.
 */
import type { Db, Queryable } from "../db/types.js";
import { createPostgresDb } from "../db/postgres.js";
import { ServiceError, errorMessage } from "../internal/errors.js";
import type { Logger } from "../internal/logger.js";
import { databaseAddress } from "../internal/startup-errors.js";
import {
  type ReplicaHealth,
  type ReplicaState,
  LsnHistory,
  judgeReplica,
  parseLsn,
  probeIntervalMs,
} from "./replica-lag.js";

/** Where /v1 reads of indexed chain data run (what the API sees of this module). */
export interface ChainReads {
  /**
   * Runs `read` on a usable replica under the consistency rule, else (or when the rule rejects the
   * answer) on the primary. `primaryTip`: the tip index_block_hash the request read from the
   * primary, if it did (a replica answer at that tip needs no further check).
   */
  run<T>(read: (q: Queryable) => Promise<T>, options?: { primaryTip?: string | null }): Promise<ReadAnswer<T>>;
}

export interface ReadAnswer<T> {
  value: T;
  /** The replica that answered ("0", "1", … in DATABASE_READ_URL order), or null for the primary. */
  replica: string | null;
  /** The chain tip of the replica's snapshot (null when the primary answered). */
  tip: string | null;
}

/** What a replica read came to (README "Read replicas"; the reads counter's `result`). */
export type ReplicaReadResult = "served" | "not_canonical" | "failed";

/** One replica as /status shows it. */
export interface ReplicaStatus {
  replica: string;
  /** host:port/database, never credentials. */
  address: string;
  state: ReplicaState;
  /** Whether requests use it now (state healthy). */
  used: boolean;
  lag_bytes: number | null;
  lag_seconds: number | null;
  replay_lsn: string | null;
  replay_paused: boolean | null;
  checked_at: string | null;
  error: string | null;
  reads: Record<ReplicaReadResult, number>;
}

export interface ReadReplicas extends ChainReads {
  readonly maxLagMs: number;
  status(): ReplicaStatus[];
  /** Checks every replica now (the timer does it on its own; tests and start-up call it). */
  probe(): Promise<void>;
  close(): Promise<void>;
}

export interface ReadReplicasOptions {
  primary: Db;
  urls: readonly string[];
  maxLagMs: number;
  logger: Logger;
  /** Sees every replica read's result (the reads counter, runtime/metrics/replicas.ts). */
  onRead?: (replica: string, result: ReplicaReadResult) => void;
  /** Default probeIntervalMs(maxLagMs). */
  intervalMs?: number;
}

/** A replica that does not answer a connection attempt within this is left out until a later check. */
const CONNECT_TIMEOUT_MS = 2000;
/** Connections per replica. */
const POOL_SIZE = 10;

interface Replica {
  name: string;
  url: string;
  address: string;
  db: Db | null;
  connecting: Promise<Db> | null;
  health: ReplicaHealth;
  reads: Record<ReplicaReadResult, number>;
  /** The state last logged, so a change is logged once. */
  logged: ReplicaState | null;
}

export function createReadReplicas(options: ReadReplicasOptions): ReadReplicas {
  const { primary, maxLagMs, logger } = options;
  const intervalMs = options.intervalMs ?? probeIntervalMs(maxLagMs);
  // Long enough to bound any lag up to the maximum, and a minute for the figures /status shows.
  const history = new LsnHistory(Math.max(2 * maxLagMs, 60_000));
  const replicas: Replica[] = options.urls.map((url, i) => ({
    name: String(i),
    url,
    address: replicaAddress(url),
    db: null,
    connecting: null,
    health: { probe: null, error: null },
    reads: { served: 0, not_canonical: 0, failed: 0 },
    logged: null,
  }));
  let turn = 0;
  let closed = false;

  const counted = (r: Replica, result: ReplicaReadResult) => {
    r.reads[result]++;
    options.onRead?.(r.name, result);
  };

  function pick(): Replica | null {
    const now = Date.now();
    for (let i = 0; i < replicas.length; i++) {
      const r = replicas[(turn + i) % replicas.length];
      if (r.db !== null && judgeReplica(r.health, maxLagMs, now).state === "healthy") {
        turn = (turn + i + 1) % replicas.length;
        return r;
      }
    }
    return null;
  }

  async function connected(r: Replica): Promise<Db> {
    if (r.db) return r.db;
    r.connecting ??= createPostgresDb(r.url, POOL_SIZE, { connectTimeoutMs: CONNECT_TIMEOUT_MS }).finally(() => {
      r.connecting = null;
    });
    const db = await r.connecting;
    if (closed) {
      await db.close().catch(() => {});
      throw new Error("closed");
    }
    r.db = db;
    return db;
  }

  async function probeReplica(r: Replica): Promise<void> {
    try {
      const db = await connected(r);
      const { rows } = await db.query<{ recovery: boolean; replay: string | null; paused: boolean }>(
        `SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS replay,
                CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() ELSE false END AS paused`,
      );
      const at = Date.now();
      const row = rows[0];
      const replayLsn = row.replay === null ? null : parseLsn(row.replay);
      r.health.probe = {
        at,
        inRecovery: row.recovery,
        replayLsn,
        replayPaused: row.paused,
        lagMs: replayLsn === null ? null : history.lagMs(replayLsn, at),
        lagBytes: replayLsn === null ? null : history.lagBytes(replayLsn),
      };
    } catch (err) {
      r.health.error = { at: Date.now(), during: "probe", message: errorMessage(err) };
    }
    logChange(r);
  }

  function logChange(r: Replica): void {
    const { state, lagMs } = judgeReplica(r.health, maxLagMs, Date.now());
    if (state === r.logged) return;
    const wasUsed = r.logged === "healthy";
    r.logged = state;
    const fields = { msg: "read replica state", replica: r.name, address: r.address, state, lag_ms: lagMs };
    if (state === "healthy") logger.info(fields);
    else if (wasUsed || state !== "connecting") logger.warn({ ...fields, error: r.health.error?.message ?? null });
  }

  async function probe(): Promise<void> {
    try {
      const { rows } = await primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
      history.record(Date.now(), parseLsn(rows[0].lsn));
    } catch (err) {
      // Without the primary's position the lag bound only grows: replicas drop out as it passes the maximum.
      logger.warn({
        msg: "read replica check: the primary's WAL position could not be read",
        error: errorMessage(err),
      });
    }
    await Promise.all(replicas.map(probeReplica));
  }

  let timer: NodeJS.Timeout | null = null;
  let probing: Promise<void> | null = null;
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      probing = probe().finally(() => {
        probing = null;
        schedule();
      });
    }, intervalMs);
    timer.unref();
  };
  probing = probe().finally(() => {
    probing = null;
    schedule();
  });

  async function canonicalOnPrimary(tip: string): Promise<boolean> {
    const { rows } = await primary.query<{ canonical: boolean }>(
      "SELECT canonical FROM chain.blocks WHERE index_block_hash = $1",
      [tip],
    );
    return rows[0]?.canonical === true;
  }

  return {
    maxLagMs,
    async run<T>(read: (q: Queryable) => Promise<T>, runOptions: { primaryTip?: string | null } = {}) {
      const r = pick();
      const onPrimary = async (): Promise<ReadAnswer<T>> => ({ value: await read(primary), replica: null, tip: null });
      if (r === null || r.db === null) return onPrimary();
      let answer: { tip: string | null; value: T };
      try {
        answer = await r.db.transaction(async (tx) => {
          await tx.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
          const { rows } = await tx.query<{ tip: string | null }>(
            "SELECT index_block_hash AS tip FROM control.chain_tip",
          );
          return { tip: rows[0]?.tip ?? null, value: await read(tx) };
        });
      } catch (err) {
        counted(r, "failed");
        // A 4xx is an answer about this snapshot (a row not replicated yet): the primary decides.
        // Anything else says the replica is in trouble: leave it out until a check succeeds.
        if (!(err instanceof ServiceError)) {
          r.health.error = { at: Date.now(), during: "read", message: errorMessage(err) };
          logChange(r);
        }
        return onPrimary();
      }
      const { tip } = answer;
      if (tip !== null && (tip === runOptions.primaryTip || (await canonicalOnPrimary(tip)))) {
        counted(r, "served");
        return { value: answer.value, replica: r.name, tip };
      }
      counted(r, "not_canonical");
      return onPrimary();
    },
    status() {
      const now = Date.now();
      return replicas.map((r) => {
        const { state, lagMs } = judgeReplica(r.health, maxLagMs, now);
        const probe = r.health.probe;
        const errorIsCurrent = r.health.error !== null && (probe === null || r.health.error.at >= probe.at);
        return {
          replica: r.name,
          address: r.address,
          state,
          used: state === "healthy" && r.db !== null,
          lag_bytes: probe === null || probe.lagBytes === null ? null : Number(probe.lagBytes),
          lag_seconds: lagMs === null ? null : Math.round(lagMs) / 1000,
          replay_lsn: probe?.replayLsn == null ? null : formatLsn(probe.replayLsn),
          replay_paused: probe === null ? null : probe.replayPaused,
          checked_at: probe === null ? null : new Date(probe.at).toISOString(),
          error: errorIsCurrent ? (r.health.error?.message ?? null) : null,
          reads: { ...r.reads },
        };
      });
    },
    probe,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await probing?.catch(() => {});
      await Promise.all(
        replicas.map(async (r) => {
          const db = r.db ?? (await r.connecting?.catch(() => null)) ?? null;
          r.db = null;
          await db?.close().catch(() => {});
        }),
      );
    },
  };
}

/** host:port/database of a replica URL: what /status and the logs show (never credentials). */
export function replicaAddress(url: string): string {
  const hostPort = databaseAddress(url);
  try {
    const database = decodeURIComponent(new URL(url).pathname.replace(/^\//, ""));
    return database ? `${hostPort}/${database}` : hostPort;
  } catch {
    return hostPort;
  }
}

/** A WAL position as PostgreSQL writes it (`16/B374D848`). */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
