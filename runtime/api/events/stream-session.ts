/**
 * One client of `GET /v1/streams/events/stream` (SPEC.md "SSE stream routes"): reads matching
 * events by keyset from its own position whenever the chain hub signals a change, writes them as
 * SSE frames, and handles reorgs. The handler (events/streams-routes.ts) resolves where it starts.
 *
 * ## Client contract
 *
 * - Event frame: `id: <cursor>` and `data: <event JSON>` (the event object of the list routes),
 *   default event name (`message`), in cursor order.
 * - Reorg frame: `event: reorg`, `data: <reorg record>` (the `reorgs` entries of the list routes)
 *   and `id: <resume_cursor>`. It is sent only when this stream has already delivered (or the
 *   client resumed from) a position at or above `fork_point_height`, the lowest orphaned height
 *   (README "Reorgs"). On receiving it, discard what you derived from events with
 *   `block_height >= fork_point_height`; the stream continues with the new canonical events after
 *   `resume_cursor` (some events you already had at those heights may come again — that is the
 *   new chain). Delivery is at-least-once.
 *   (`resume_cursor` is "" only when no event at all precedes the fork point; an EventSource then
 *   reconnects without Last-Event-ID, i.e. from the URL's own start position.)
 * - Keepalive: a comment line `: ping` every 20 s.
 * - Resume: reconnect with `Last-Event-ID: <last id received>` (an EventSource does this itself);
 *   the stream continues exactly after that cursor, on this process or any other of the instance
 *   (ids are cursors, the same everywhere). If that cursor's height was orphaned by a
 *   reorg (the reorg's orphaned range contains it), the stream first sends that reorg's frame
 *   (the deepest such reorg) and continues from its `resume_cursor`, since the server cannot
 *   know whether the events you hold at that height were the orphaned ones.
 * - Start without a position: after the last event at or below `tip − 3` blocks (the live-tail
 *   reorg margin): the newest blocks, the ones a reorg can still replace, are sent first, so a
 *   later reorg frame refers to events the client has seen.
 */
import type { Queryable } from "../../db/types.js";
import { errorMessage } from "../../internal/errors.js";
import type { Logger } from "../../internal/logger.js";
import type { ChainHub, HubSignal } from "./chain-hub.js";
import {
  BEFORE_ALL,
  comparePositions,
  formatCursor,
  latestPosition,
  parseCursorText,
  type Position,
} from "./cursor.js";
import { readEventRows } from "./page.js";
import type { EventFilters } from "./query.js";
import type { ReorgRecordJson } from "./reorg-records.js";
import { formatSseComment, formatSseFrame, type SseWriter } from "../http/sse.js";

/** Events read per query while catching up. */
export const STREAM_BATCH = 500;

export interface EventStreamSessionOptions {
  db: Queryable;
  hub: ChainHub;
  logger: Logger;
  writer: SseWriter;
  filters: EventFilters;
  /** Read strictly after this position. */
  start: Position;
  /** The last position the client already holds (a resumed cursor), or null. */
  delivered: Position | null;
  /** Never read below this (a from_height start), even after a reorg rewinds. */
  floor?: Position | null;
  /** A reorg to announce before anything else (see "Resume" above). */
  initialReorg?: ReorgRecordJson | null;
}

/** Runs the session until the client disconnects. Returns once the first catch-up is scheduled. */
export function startEventStreamSession(options: EventStreamSessionOptions): void {
  const { db, hub, logger, writer, filters } = options;
  let position = options.start;
  let delivered = options.delivered;
  const floor = options.floor ?? null;
  const reorgs: ReorgRecordJson[] = options.initialReorg ? [options.initialReorg] : [];
  let dirty = true;
  let running = false;

  const unsubscribe = hub.subscribe((signal: HubSignal) => {
    if (signal.kind === "ping") {
      writer.writeIfIdle(formatSseComment("ping"));
      return;
    }
    if (signal.kind === "reorg") reorgs.push(signal.reorg);
    dirty = true;
    void pump();
  });
  writer.onClose(unsubscribe);

  async function applyReorg(reorg: ReorgRecordJson): Promise<void> {
    if (position.height < reorg.fork_point_height) return; // nothing read at an orphaned height
    const resume = parseCursorText(reorg.resume_cursor) ?? BEFORE_ALL;
    if (delivered && delivered.height >= reorg.fork_point_height) {
      await writer.write(formatSseFrame({ id: reorg.resume_cursor, event: "reorg", data: JSON.stringify(reorg) }));
      delivered = resume;
    }
    position = latestPosition(resume, floor) ?? BEFORE_ALL;
  }

  async function pump(): Promise<void> {
    if (running) return;
    running = true;
    try {
      while (!writer.closed && (dirty || reorgs.length)) {
        while (reorgs.length && !writer.closed) await applyReorg(reorgs.shift() as ReorgRecordJson);
        dirty = false;
        const { tipHeight, finalizedHeight, horizon } = hub.state;
        if (tipHeight === null) continue;
        const after = comparePositions(position, BEFORE_ALL) === 0 ? null : position;
        const rows = await readEventRows(
          db,
          { after, filters, limit: STREAM_BATCH },
          { maxHeight: tipHeight, finalizedHeight },
        );
        for (const row of rows) {
          if (writer.closed) return;
          await writer.write(formatSseFrame({ id: formatCursor(row.position), data: row.json }));
          position = row.position;
          delivered = row.position;
        }
        if (rows.length === STREAM_BATCH) dirty = true;
        // Everything up to the tip has been read: skip ahead, so a sparse filter never re-scans.
        else position = latestPosition(position, horizon) ?? position;
      }
    } catch (err) {
      // Ending the response makes the client reconnect with its Last-Event-ID.
      logger.warn({ msg: "event stream failed; closing it", error: errorMessage(err) });
      writer.end();
    } finally {
      running = false;
    }
  }

  void pump();
}
