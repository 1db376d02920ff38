/**
 * In-process fan-out of chain changes to SSE streams (SPEC.md "SSE stream routes", DESIGN.md §2
 * "SSE fan-out across processes uses LISTEN/NOTIFY"). One hub per process holds ONE listener on
 * the `sluice_chain` channel (ingest notifies it at the commit of every block and reorg), so
 * thousands of open streams cost no polling: on each notification the hub reads the tip once,
 * reads any new reorg records once, and wakes its subscribers, each of which then reads its own
 * next events by keyset from its own position.
 *
 * Signals, in this order per change: every new reorg (oldest first), then the new tip. The hub
 * also sends a `ping` to everyone every `pingIntervalMs` (SPEC.md: every 20 s) from one timer,
 * and re-reads the tip every `pollIntervalMs` as a safety net should a notification be lost
 * (one query per process, not per stream).
 *
 * The notifications come through PostgreSQL whichever process applied the block (the ingest
 * leader, or this one), so every API process signals the same changes. When the listening
 * connection is lost (runtime/db/pg-listener.ts) the hub is not `live` until it is listening again
 * and has re-read the tip and the reorgs it missed: readers that would otherwise trust `state`
 * without a query (events/page.ts, subgraphs/catalog.ts) read the database meanwhile, and the
 * streams catch up from their own positions, so no frame is lost.
 */
import { CHAIN_CHANNEL } from "../../chain/ingest.js";
import type { Db } from "../../db/types.js";
import { errorMessage } from "../../internal/errors.js";
import type { Logger } from "../../internal/logger.js";
import type { Position } from "./cursor.js";
import { readTipSnapshot } from "./tip.js";
import { compileReorgsSince } from "./sql.js";
import { type ReorgRecordJson, type ReorgRow, reorgFromRow } from "./reorg-records.js";

export interface ChainState {
  tipHeight: number | null;
  finalizedHeight: number | null;
  /** Reorgs that went below finality so far (README "Finality"). */
  reorgsBelowFinality: number;
  /** The last canonical committed event at or below the tip (any type). */
  horizon: Position | null;
}

export type HubSignal =
  | { kind: "tip"; state: ChainState }
  | { kind: "reorg"; reorg: ReorgRecordJson }
  | { kind: "ping" };

export interface ChainHubOptions {
  db: Db;
  logger: Logger;
  /** SSE keepalive period; SPEC.md: 20 s. */
  pingIntervalMs?: number;
  /** Safety-net tip re-read period; default 5 s. */
  pollIntervalMs?: number;
  /** A stream with no start position begins this many blocks below the tip (see events/stream-session.ts). */
  liveTailMarginBlocks?: number;
}

export interface ChainHub {
  /** The tip as of the last refresh. */
  readonly state: ChainState;
  readonly liveTailMarginBlocks: number;
  readonly subscriberCount: number;
  /**
   * Whether `state` follows the notifications: false while the listening connection is being made
   * again and until the hub has caught up after it.
   */
  readonly live: boolean;
  /** Registers a listener; returns its unsubscribe function. Listeners must not throw. */
  subscribe(listener: (signal: HubSignal) => void): () => void;
  /** Reads the tip and new reorgs now and signals what changed. */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_PING_INTERVAL_MS = 20_000;
export const DEFAULT_POLL_INTERVAL_MS = 5_000;
export const DEFAULT_LIVE_TAIL_MARGIN_BLOCKS = 3;

export async function createChainHub(options: ChainHubOptions): Promise<ChainHub> {
  const { db, logger } = options;
  const listeners = new Set<(signal: HubSignal) => void>();
  const initial = await readTipSnapshot(db, null);
  let state: ChainState = {
    tipHeight: initial.tipHeight,
    finalizedHeight: initial.finalizedHeight,
    reorgsBelowFinality: initial.reorgsBelowFinality,
    horizon: initial.horizon,
  };
  let reorgCount = initial.reorgCount;
  const { rows } = await db.query<{ id: string | number }>("SELECT COALESCE(max(id), 0) AS id FROM chain.reorgs");
  let lastReorgId = Number(rows[0]?.id ?? 0);
  let closed = false;

  const emit = (signal: HubSignal) => {
    for (const listener of [...listeners]) {
      try {
        listener(signal);
      } catch (err) {
        logger.warn({ msg: "stream listener failed", error: errorMessage(err) });
      }
    }
  };

  async function refreshOnce(): Promise<void> {
    const tip = await readTipSnapshot(db, null);
    if (tip.reorgCount !== reorgCount) {
      const since = compileReorgsSince(lastReorgId);
      const found = await db.query<ReorgRow>(since.sql, since.params);
      for (const row of found.rows) {
        const reorg = reorgFromRow(row);
        lastReorgId = Math.max(lastReorgId, reorg.id);
        emit({ kind: "reorg", reorg });
      }
      reorgCount = tip.reorgCount;
    }
    const next: ChainState = {
      tipHeight: tip.tipHeight,
      finalizedHeight: tip.finalizedHeight,
      reorgsBelowFinality: tip.reorgsBelowFinality,
      horizon: tip.horizon,
    };
    if (!sameState(state, next)) {
      state = next;
      emit({ kind: "tip", state });
    }
  }

  // Liveness (see the module comment): after a resume, the first read that started after it and
  // succeeded has caught up with whatever was not notified meanwhile.
  let live = true;
  let resumes = 0;
  let catchUp: number | null = null;

  // Single flight: a notification during a refresh asks for exactly one more.
  let running: Promise<void> | null = null;
  let again = false;
  const refresh = (): Promise<void> => {
    if (closed) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          const started = resumes;
          try {
            await refreshOnce();
            if (catchUp !== null && started === catchUp) {
              catchUp = null;
              live = true;
              logger.info({ msg: "chain notifications resumed" });
            }
          } catch (err) {
            logger.warn({ msg: "chain hub refresh failed", error: errorMessage(err) });
          }
        } while (again && !closed);
      } finally {
        running = null;
      }
    })();
    return running;
  };

  const unlisten = await db.listen(CHAIN_CHANNEL, () => void refresh(), {
    onLost() {
      live = false;
      catchUp = null;
      logger.warn({ msg: "chain notifications lost; reconnecting (streams follow the tip by polling meanwhile)" });
    },
    onResume() {
      // Whatever committed while away was not notified: read it now, then trust `state` again.
      catchUp = ++resumes;
      void refresh();
    },
  });
  const pingTimer = setInterval(() => emit({ kind: "ping" }), options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS);
  const pollTimer = setInterval(() => void refresh(), options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
  pingTimer.unref();
  pollTimer.unref();

  return {
    get state() {
      return state;
    },
    liveTailMarginBlocks: options.liveTailMarginBlocks ?? DEFAULT_LIVE_TAIL_MARGIN_BLOCKS,
    get subscriberCount() {
      return listeners.size;
    },
    get live() {
      return live;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    refresh,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(pingTimer);
      clearInterval(pollTimer);
      listeners.clear();
      await unlisten();
      await running?.catch(() => {});
    },
  };
}

function sameState(a: ChainState, b: ChainState): boolean {
  return (
    a.tipHeight === b.tipHeight &&
    a.finalizedHeight === b.finalizedHeight &&
    a.reorgsBelowFinality === b.reorgsBelowFinality &&
    a.horizon?.height === b.horizon?.height &&
    a.horizon?.index === b.horizon?.index
  );
}
