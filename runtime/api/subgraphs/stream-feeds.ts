/**
 * Per-process fan-out of new subgraph rows to SSE sessions (SPEC.md "SSE stream routes";
 * DESIGN.md §2 "SSE fan-out across processes uses LISTEN/NOTIFY"). Built on the chain hub
 * (events/chain-hub.ts): the process holds ONE listener on the ingest notification channel, and this
 * registry holds ONE hub subscription for all subgraph streams. Per table with open streams it
 * keeps the table's head (`max(_id)`), re-read once per signal — not once per client — and
 * wakes that table's sessions only when the head moved.
 *
 * Sessions read their next rows by keyset from their own position, through `shared()`: reads
 * with identical SQL and parameters that are in flight at the same time run once, and the rows
 * come back already rendered as SSE frames, so N clients with the same filters at the same
 * position cost one query and one JSON rendering per block.
 *
 * Heads are also re-read every `pollIntervalMs` while streams are open (one query per table):
 * rows written without a chain-tip change (a subgraph backfill) still reach the streams. A head
 * read also notices a rebuilt table (its OID changed: a reindex dropped and recreated it) and
 * tells the sessions, which then start over (subgraphs/stream-session.ts).
 */
import type { Db } from "../../db/types.js";
import { errorMessage } from "../../internal/errors.js";
import type { Logger } from "../../internal/logger.js";
import type { ChainHub, HubSignal } from "../events/chain-hub.js";
import type { ReorgRecordJson } from "../events/reorg-records.js";
import { formatSseComment } from "../http/sse.js";
import { compileTableHead } from "./query/compile.js";
import type { TableTarget } from "./query/types.js";

/** What a feed needs from a session. */
export interface FeedSession {
  /** New rows may exist up to `head`. */
  wake(): void;
  /** A reorg committed; the session checks whether rows it delivered are gone. */
  reorg(reorg: ReorgRecordJson): void;
  /** The table was rebuilt (reindex): every row the session delivered is gone; ids restart. */
  rebuilt(): void;
  ping(text: string): void;
}

export interface TableFeed {
  readonly target: TableTarget;
  /** Highest `_id` seen in the table at the last read (as bigint). */
  readonly head: bigint;
  /** Re-reads the head now; returns it. */
  refreshHead(): Promise<bigint>;
  /** Runs `read` once for every concurrent caller with the same key. */
  shared<T>(key: string, read: () => Promise<T>): Promise<T>;
  add(session: FeedSession): () => void;
}

export interface SubgraphStreams {
  feed(target: TableTarget): TableFeed;
  readonly sessionCount: number;
}

export const DEFAULT_FEED_POLL_MS = 5_000;

const registries = new WeakMap<ChainHub, SubgraphStreams>();

/** The process's registry for `hub` (created on first use; lives as long as the hub). */
export function subgraphStreamsFor(
  hub: ChainHub,
  db: Db,
  logger: Logger,
  pollIntervalMs = DEFAULT_FEED_POLL_MS,
): SubgraphStreams {
  let registry = registries.get(hub);
  if (!registry) {
    registry = createSubgraphStreams(hub, db, logger, pollIntervalMs);
    registries.set(hub, registry);
  }
  return registry;
}

function createSubgraphStreams(hub: ChainHub, db: Db, logger: Logger, pollIntervalMs: number): SubgraphStreams {
  // One feed per table, kept for the registry's life (bounded by the number of tables).
  const feeds = new Map<string, Feed>();
  let sessions = 0;
  let pollTimer: NodeJS.Timeout | null = null;

  const refreshAll = () => {
    for (const feed of feeds.values()) void feed.refreshAndWake();
  };

  hub.subscribe((signal: HubSignal) => {
    if (signal.kind === "ping") {
      const text = formatSseComment("ping");
      for (const feed of feeds.values()) for (const s of feed.sessions) s.ping(text);
    } else if (signal.kind === "reorg") {
      for (const feed of feeds.values()) for (const s of feed.sessions) s.reorg(signal.reorg);
    } else {
      refreshAll();
    }
  });

  const onCountChange = (delta: number) => {
    sessions += delta;
    if (sessions > 0 && pollTimer === null) {
      pollTimer = setInterval(refreshAll, pollIntervalMs);
      pollTimer.unref();
    } else if (sessions === 0 && pollTimer !== null) {
      clearInterval(pollTimer);
      pollTimer = null;
    }
  };

  class Feed implements TableFeed {
    head = 0n;
    /** The table's OID at the last head read; a different one means the table was rebuilt. */
    private oid: string | null = null;
    readonly sessions = new Set<FeedSession>();
    private readonly inflight = new Map<string, Promise<unknown>>();
    private refreshing: Promise<bigint> | null = null;
    private again = false;

    constructor(readonly target: TableTarget) {}

    refreshHead(): Promise<bigint> {
      if (this.refreshing) {
        this.again = true;
        return this.refreshing;
      }
      this.refreshing = (async () => {
        try {
          do {
            this.again = false;
            const q = compileTableHead(this.target);
            const { rows } = await db.query<{ id: string | number; oid: string | number }>(q.sql, q.params);
            this.head = BigInt(rows[0]?.id ?? 0);
            const oid = String(rows[0]?.oid ?? "");
            if (this.oid !== null && oid !== this.oid) for (const s of this.sessions) s.rebuilt();
            this.oid = oid;
          } while (this.again);
          return this.head;
        } finally {
          this.refreshing = null;
        }
      })();
      return this.refreshing;
    }

    async refreshAndWake(): Promise<void> {
      if (this.sessions.size === 0) return;
      const before = this.head;
      try {
        await this.refreshHead();
      } catch (err) {
        logger.warn({
          msg: "subgraph stream head read failed",
          subgraph: this.target.subgraph,
          table: this.target.meta.name,
          error: errorMessage(err),
        });
        return;
      }
      if (this.head !== before) for (const s of this.sessions) s.wake();
    }

    shared<T>(key: string, read: () => Promise<T>): Promise<T> {
      const existing = this.inflight.get(key);
      if (existing) return existing as Promise<T>;
      const promise = read().finally(() => this.inflight.delete(key));
      this.inflight.set(key, promise);
      return promise;
    }

    add(session: FeedSession): () => void {
      this.sessions.add(session);
      onCountChange(1);
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        this.sessions.delete(session);
        onCountChange(-1);
      };
    }
  }

  return {
    feed(target) {
      const key = `${target.schema}\u0000${target.meta.name}`;
      let feed = feeds.get(key);
      if (!feed) {
        feed = new Feed(target);
        feeds.set(key, feed);
      }
      return feed;
    },
    get sessionCount() {
      return sessions;
    },
  };
}
