/**
 * Handlers of the `/v1/streams/...` routes (SPEC.md "Index and Streams routes", "SSE stream
 * routes"):
 * - listStreamEvents: GET /v1/streams/events — filtered events, same envelope and cursor as
 *   the Index list (events/page.ts);
 * - streamEvents: GET /v1/streams/events/stream — the same filters as SSE
 *   (events/stream-session.ts documents the frames and the client contract).
 * Handler names are the routes' operationIds.
 */
import { readTip } from "../../chain/tip.js";
import { ServiceError } from "../../internal/errors.js";
import { BEFORE_ALL, beforeHeight, type Position } from "./cursor.js";
import { readPage } from "./page-read.js";
import { parseStreamEventsQuery, parseStreamSubscription, type StreamStart } from "./query.js";
import { compileLastEventAtOrBelow, compileReorgCoveringHeight } from "./sql.js";
import { startEventStreamSession } from "./stream-session.js";
import { sendJsonText } from "../http/json-response.js";
import { type ReorgRecordJson, type ReorgRow, reorgFromRow } from "./reorg-records.js";
import { formatSseRetry, openEventStream } from "../http/sse.js";
import type { EventsContext, EventsHandler } from "./context.js";

/** What an EventSource waits before reconnecting after the stream ends. */
const RECONNECT_MS = 2000;

/** GET /v1/streams/events */
export const listStreamEvents: EventsHandler = async (req, res, ctx) => {
  const query = parseStreamEventsQuery(req.query);
  const page = await readPage(ctx, query);
  sendJsonText(req, res, page.body, {
    etag: page.etag,
    cacheDirectives: page.cacheDirectives,
    publishedOnLoopback: ctx.config.publishedOnLoopback,
  });
};

/** GET /v1/streams/events/stream */
export const streamEvents: EventsHandler = async (req, res, ctx) => {
  const hub = ctx.chainHub;
  if (!hub) throw new ServiceError(503, "STREAMS_UNAVAILABLE", "event streams are not available on this API process");
  const header = req.headers["last-event-id"];
  const { filters, start } = parseStreamSubscription(req.query, typeof header === "string" ? header : undefined);
  if (req.method === "HEAD") {
    // Express routes HEAD to GET handlers; a HEAD has no body, so it must not become a stream.
    res.status(200).type("text/event-stream").setHeader("Cache-Control", "no-store");
    res.end();
    return;
  }
  const resolved = await resolveStart(ctx, start);

  const writer = openEventStream(res);
  await writer.write(formatSseRetry(RECONNECT_MS));
  startEventStreamSession({ db: ctx.db, hub, logger: ctx.log, writer, filters, ...resolved });
};

interface ResolvedStart {
  start: Position;
  delivered: Position | null;
  floor: Position | null;
  initialReorg: ReorgRecordJson | null;
}

/** Turns the requested start into a read position (events/stream-session.ts "Client contract"). */
async function resolveStart(ctx: EventsContext, start: StreamStart): Promise<ResolvedStart> {
  switch (start.kind) {
    case "cursor": {
      if (!start.position) return { start: BEFORE_ALL, delivered: null, floor: null, initialReorg: null };
      const covering = compileReorgCoveringHeight(start.position.height);
      const { rows } = await ctx.db.query<ReorgRow>(covering.sql, covering.params);
      return {
        start: start.position,
        delivered: start.position,
        floor: null,
        initialReorg: rows[0] ? reorgFromRow(rows[0]) : null,
      };
    }
    case "height": {
      const position = beforeHeight(start.height);
      return { start: position, delivered: null, floor: position, initialReorg: null };
    }
    case "live": {
      const hub = ctx.chainHub;
      // The stored tip, not the hub's: the hub hears of a commit a moment after it, and a client
      // connecting meanwhile would start a block early.
      const tip = hub ? (await readTip(ctx.db)).blockHeight : null;
      if (tip === null || !hub) return { start: BEFORE_ALL, delivered: null, floor: null, initialReorg: null };
      const last = compileLastEventAtOrBelow(tip - hub.liveTailMarginBlocks);
      const { rows } = await ctx.db.query<{ block_height: number; event_index: number }>(last.sql, last.params);
      const position = rows[0]
        ? { height: Number(rows[0].block_height), index: Number(rows[0].event_index) }
        : BEFORE_ALL;
      return { start: position, delivered: null, floor: null, initialReorg: null };
    }
  }
}
