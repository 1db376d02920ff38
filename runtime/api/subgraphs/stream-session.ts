/**
 * One client of `GET /v1/subgraphs/:name/:table/stream` (SPEC.md "SSE stream routes"): delivers
 * the table's new rows matching the stream's filters, in `_id` order, woken by the table feed
 * (subgraphs/stream-feeds.ts), and tells the client about rows a reorg removed.
 *
 * ## Client contract
 *
 * - Row frame: `id: <_id>`, `data: <the row JSON>` — the same object the list route returns —
 *   default event name (`message`). Rows come in ascending `_id`, each once per connection.
 *   The stream carries rows *new to it*: a row already delivered that is later updated in place
 *   (e.g. a balance) is not sent again; read it back or use webhooks for updates.
 * - Start: with `Last-Event-ID: <id>` (an EventSource sends it by itself on reconnect), right
 *   after that `_id`; else with `since=<h>`, every row whose `_block_height >= h` (rows written
 *   at or after that height, as they are now), then new ones — `since` stays a filter for the
 *   connection's life; else live: only rows created after the connection opened.
 * - Reorg frame: `event: reorg`, `id: <removed_after_id>`, `data:
 *   {"fork_point_height": <int|null>, "removed_after_id": <int>, "removed_ids": [<int>…]|null}`.
 *   Meaning: every row this stream gave you with `_id > removed_after_id` no longer exists
 *   (a reorg undid the blocks that wrote it). Drop them; the rows the winning branch writes
 *   arrive as new frames with new, higher ids. `removed_ids` lists the ids this connection
 *   delivered that are gone (null on a resumed connection, where the server cannot know what you
 *   hold: rely on `removed_after_id`). `fork_point_height` is the reorg's fork point, the lowest
 *   height it orphaned (README "Reorgs"); on a resumed connection, where several reorgs may have
 *   happened meanwhile, a lower bound (the lowest fork point recorded since the newest surviving
 *   row was written); null when no reorg explains it (the rows were deleted by the subgraph itself).
 *   Why one bound suffices: `_id`s come from one sequence in block order, and a reorg undoes
 *   whole blocks at and above its fork point, so the rows it removes are always the newest ones.
 * - The check runs when a reorg is signalled and when a connection resumes (the row named by
 *   `Last-Event-ID` is gone → the frame is the first thing sent).
 * - Rebuilt table (a reindex drops and refills it, and `_id`s start again at 1): open streams get
 *   a reorg frame with `removed_after_id: 0` (drop everything) and then the rebuilt rows (those
 *   matching the stream's `since` and filters) from the start. A client that was disconnected
 *   during a reindex cannot be told (its Last-Event-ID may name a new row): re-read the table
 *   after a reindex (the list route, or a fresh stream with `since`).
 * - Keepalive: a comment line `: ping` every 20 s (the chain hub's interval).
 * - On an internal error the server ends the response; reconnect with `Last-Event-ID`.
 */
import type { Queryable } from "../../db/types.js";
import { errorMessage } from "../../internal/errors.js";
import type { Logger } from "../../internal/logger.js";
import type { ReorgRecordJson } from "../events/reorg-records.js";
import { formatSseFrame, type SseWriter } from "../http/sse.js";
import type { FeedSession, TableFeed } from "./stream-feeds.js";
import { compileExistingIds, compileMaxId, compileResumeForkPoint, compileStreamBatch } from "./query/compile.js";
import { renderRow } from "./query/render.js";
import type { Filter, SqlQuery, TableTarget } from "./query/types.js";

/** Rows read per query while catching up. */
export const STREAM_BATCH = 500;
/** Ids remembered per connection for `removed_ids`. */
export const REMEMBERED_IDS = 1000;

export interface StreamStart {
  /** Read strictly after this `_id`. */
  after: bigint;
  /** The highest `_id` the client may hold (its Last-Event-ID), or null. */
  held: bigint | null;
  /** A reorg frame to send first (resume after vanished rows). */
  initialReorg: ReorgFrame | null;
}

export interface ReorgFrame {
  fork_point_height: number | null;
  removed_after_id: number;
  removed_ids: number[] | null;
}

export interface SubgraphStreamOptions {
  db: Queryable;
  feed: TableFeed;
  logger: Logger;
  writer: SseWriter;
  filters: Filter[];
  since: number | null;
  start: StreamStart;
}

interface Batch {
  ids: bigint[];
  text: string;
  full: boolean;
  /** The feed head when the read began: every row up to it was visible to the read. */
  validTo: bigint;
}

/** The frame text of a reorg notice. Pure. */
export function formatReorgFrame(frame: ReorgFrame): string {
  return formatSseFrame({ id: String(frame.removed_after_id), event: "reorg", data: JSON.stringify(frame) });
}

/** Runs the session until the client disconnects. */
export function startSubgraphStreamSession(options: SubgraphStreamOptions): void {
  const { db, feed, logger, writer, filters, since } = options;
  const target = feed.target;
  let position = options.start.after;
  let held = options.start.held;
  const remembered: bigint[] = [];
  const reorgs: ReorgRecordJson[] = [];
  let rebuilt = false;
  let dirty = true;
  let running = false;

  const session: FeedSession = {
    wake() {
      dirty = true;
      void pump();
    },
    reorg(reorg) {
      reorgs.push(reorg);
      void pump();
    },
    rebuilt() {
      rebuilt = true;
      dirty = true;
      void pump();
    },
    ping(text) {
      writer.writeIfIdle(text);
    },
  };
  const remove = feed.add(session);
  writer.onClose(remove);

  // Shared by every session reading the same rows at the same time (subgraphs/stream-feeds.ts).
  const readBatch = (): Promise<Batch> => {
    const q = compileStreamBatch(target, filters, since, position.toString(), STREAM_BATCH);
    return feed.shared(JSON.stringify([q.sql, q.params]), async () => {
      const validTo = feed.head;
      const { rows } = await db.query<Record<string, unknown>>(q.sql, q.params);
      let text = "";
      const ids: bigint[] = [];
      for (const row of rows) {
        const rendered = renderRow(target, row);
        text += formatSseFrame({ id: String(rendered._id), data: JSON.stringify(rendered) });
        ids.push(BigInt(String(row._id)));
      }
      return { ids, text, full: rows.length === STREAM_BATCH, validTo };
    });
  };

  async function checkReorg(reorg: ReorgRecordJson): Promise<void> {
    if (held === null || held === 0n) return;
    const frame = await removedAfter(db, feed, held, reorg.fork_point_height);
    if (!frame) return;
    const gone = remembered.filter((id) => id > BigInt(frame.removed_after_id));
    frame.removed_ids = gone.map(Number);
    remembered.splice(0, remembered.length, ...remembered.filter((id) => id <= BigInt(frame.removed_after_id)));
    await writer.write(formatReorgFrame(frame));
    held = BigInt(frame.removed_after_id);
    if (position > held) position = held;
  }

  /** The table was rebuilt: everything delivered is gone; read the new table from the start. */
  async function startOver(): Promise<void> {
    rebuilt = false;
    reorgs.length = 0;
    if (held !== null) {
      await writer.write(
        formatReorgFrame({ fork_point_height: null, removed_after_id: 0, removed_ids: remembered.map(Number) }),
      );
    }
    remembered.length = 0;
    held = null;
    position = 0n;
  }

  async function pump(): Promise<void> {
    if (running) return;
    running = true;
    try {
      if (options.start.initialReorg) {
        await writer.write(formatReorgFrame(options.start.initialReorg));
        options.start.initialReorg = null;
      }
      while (!writer.closed && (dirty || reorgs.length)) {
        if (rebuilt) await startOver();
        while (reorgs.length && !writer.closed) await checkReorg(reorgs.shift() as ReorgRecordJson);
        dirty = false;
        if (position >= feed.head) continue;
        const batch = await readBatch();
        if (writer.closed) return;
        if (batch.ids.length) {
          await writer.write(batch.text);
          const last = batch.ids[batch.ids.length - 1];
          position = last;
          held = last;
          remembered.push(...batch.ids);
          if (remembered.length > REMEMBERED_IDS) remembered.splice(0, remembered.length - REMEMBERED_IDS);
        }
        if (batch.full) dirty = true;
        // Everything up to validTo was visible to that read: a sparse filter need not re-scan it.
        else if (batch.validTo > position) position = batch.validTo;
      }
    } catch (err) {
      logger.warn({
        msg: "subgraph stream failed; closing it",
        subgraph: target.subgraph,
        table: target.meta.name,
        error: errorMessage(err),
      });
      writer.end();
    } finally {
      running = false;
    }
  }

  void pump();
}

/**
 * Whether rows up to `held` were removed: null when row `held` still exists (then, ids being
 * allocated in block order, no row below it was removed either); otherwise the reorg frame
 * naming the newest surviving id below it. `forkPointHeight` undefined = look it up (resume).
 */
export async function removedAfter(
  db: Queryable,
  feed: TableFeed,
  held: bigint,
  forkPointHeight?: number,
): Promise<ReorgFrame | null> {
  const target = feed.target;
  const shared = <T>(q: SqlQuery, map: (rows: Record<string, unknown>[]) => T) =>
    feed.shared(JSON.stringify([q.sql, q.params]), async () =>
      map((await db.query<Record<string, unknown>>(q.sql, q.params)).rows),
    );
  const exists = await shared(compileExistingIds(target, [held.toString()]), (rows) => rows.length > 0);
  if (exists) return null;
  const survivor = await shared(compileMaxId(target, held.toString()), (rows) => BigInt(String(rows[0]?.id ?? 0)));
  let fork: number | null = forkPointHeight ?? null;
  if (forkPointHeight === undefined) {
    fork = await shared(compileResumeForkPoint(target, survivor.toString()), (rows) =>
      rows[0]?.fork_point_height === null || rows[0]?.fork_point_height === undefined
        ? null
        : Number(rows[0].fork_point_height),
    );
  }
  return { fork_point_height: fork, removed_after_id: Number(survivor), removed_ids: null };
}

export type { TableTarget };
