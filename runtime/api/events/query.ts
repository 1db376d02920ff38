/**
 * Query parameters of the Index and Streams event routes (SPEC.md "Index and Streams routes",
 * "SSE stream routes", "Limits", "Errors") → a typed EventsQuery. Pure: req.query in, value out,
 * a 400 ServiceError for anything not accepted. events/sql.ts compiles the result.
 *
 * - GET /v1/index/events: `limit` (default 200, 1–1000), `cursor`, `from_cursor` (alias; not
 *   both), `from_height`, `to_height`.
 * - GET /v1/streams/events: `limit` (default 100, 1–1000), `cursor`, `types`, `not_types`,
 *   `contract_id`, `sender`, `recipient`, `asset_identifier`.
 * - GET /v1/streams/events/stream: the same filters; start at `cursor`, `from_cursor` or
 *   `from_height` (at most one), or the `Last-Event-ID` header (which wins: it is how an
 *   EventSource resumes), else live.
 * `limit` is never clamped; an unknown parameter is a 400 naming the closest valid one.
 */
import { allEventTypeNames, eventTypeNamed } from "../../chain/event-type-names.js";
import { EVENT_TYPES, type EventType } from "../../chain/types.js";
import { badRequest } from "../../internal/errors.js";
import { beforeHeight, latestPosition, MAX_INT4, parseCursor, type Position } from "./cursor.js";
import {
  didYouMean,
  parseIntegerParam,
  type QueryInput,
  rejectUnknownParams,
  singleParam,
} from "../http/query-params.js";

/** Equality filters of the Streams routes; null = not filtered. */
export interface EventFilters {
  /** The event types that may match: null = every type, [] = none (e.g. `not_types` listing all). */
  types: readonly EventType[] | null;
  /** print: the printing contract; ft/nft: the asset's contract. */
  contractId: string | null;
  /** stx/ft/nft sender; stx_lock: the locked address. */
  sender: string | null;
  recipient: string | null;
  /** `<contract>::<asset>` for ft/nft, `STX` for stx events. */
  assetIdentifier: string | null;
}

export const NO_FILTERS: EventFilters = Object.freeze({
  types: null,
  contractId: null,
  sender: null,
  recipient: null,
  assetIdentifier: null,
});

/** One page request. */
export interface EventsQuery {
  /** Read strictly after this position; null = from the first event. */
  after: Position | null;
  /** The `cursor`/`from_cursor` the client sent (a real event position), if any. */
  requestCursor: Position | null;
  /** Inclusive upper height bound (`to_height`), or null. */
  toHeight: number | null;
  filters: EventFilters;
  limit: number;
}

/** Where an SSE stream starts. */
export type StreamStart =
  | { kind: "cursor"; position: Position | null; source: "cursor" | "from_cursor" | "last-event-id" }
  | { kind: "height"; height: number }
  | { kind: "live" };

export interface StreamSubscription {
  filters: EventFilters;
  start: StreamStart;
}

export const MAX_LIMIT = 1000;
export const INDEX_DEFAULT_LIMIT = 200;
export const STREAMS_DEFAULT_LIMIT = 100;

const FILTER_PARAMS = ["types", "not_types", "contract_id", "sender", "recipient", "asset_identifier"] as const;
export const INDEX_EVENTS_PARAMS = ["limit", "cursor", "from_cursor", "from_height", "to_height"] as const;
export const STREAM_EVENTS_PARAMS = ["limit", "cursor", ...FILTER_PARAMS] as const;
export const STREAM_SSE_PARAMS = ["cursor", "from_cursor", "from_height", ...FILTER_PARAMS] as const;

/** The three event routes, and which of them takes each parameter (for errors naming the right one). */
const INDEX_ROUTE = "GET /v1/index/events";
const STREAMS_ROUTE = "GET /v1/streams/events";
const SSE_ROUTE = "GET /v1/streams/events/stream";
const ROUTE_PARAMS: Readonly<Record<string, readonly string[]>> = {
  [INDEX_ROUTE]: INDEX_EVENTS_PARAMS,
  [STREAMS_ROUTE]: STREAM_EVENTS_PARAMS,
  [SSE_ROUTE]: STREAM_SSE_PARAMS,
};

/** For one route: each parameter only its sibling routes take → those routes. */
function otherRoutes(route: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [other, params] of Object.entries(ROUTE_PARAMS)) {
    if (other === route) continue;
    for (const p of params) {
      if (ROUTE_PARAMS[route].includes(p)) continue;
      out[p] = [...(out[p] ?? []), other];
    }
  }
  return out;
}
const INDEX_OTHER_ROUTES = otherRoutes(INDEX_ROUTE);
const STREAMS_OTHER_ROUTES = otherRoutes(STREAMS_ROUTE);
const SSE_OTHER_ROUTES = otherRoutes(SSE_ROUTE);

/** Offset-style names answered with a pointer to keyset pagination. */
const KEYSET_ALIASES: Readonly<Record<string, string>> = Object.freeze({ offset: "cursor", _offset: "cursor" });
const REPEATABLE = ["types", "not_types"];
/** Longest filter value accepted (principals and asset identifiers are far shorter). */
const MAX_FILTER_LENGTH = 256;

/** GET /v1/index/events. */
export function parseIndexEventsQuery(query: QueryInput): EventsQuery {
  rejectUnknownParams(query, INDEX_EVENTS_PARAMS, { aliases: KEYSET_ALIASES, otherRoutes: INDEX_OTHER_ROUTES });
  const limit = parseIntegerParam("limit", query.limit, { min: 1, max: MAX_LIMIT, default: INDEX_DEFAULT_LIMIT });
  const requestCursor = parseStartCursor(query);
  const fromHeight = parseIntegerParam("from_height", query.from_height, { min: 0, max: MAX_INT4 });
  const toHeight = parseIntegerParam("to_height", query.to_height, { min: 0, max: MAX_INT4 }) ?? null;
  if (fromHeight !== undefined && toHeight !== null && fromHeight > toHeight) {
    throw badRequest("INVALID_PARAMETER", `from_height (${fromHeight}) must not be above to_height (${toHeight})`, {
      parameter: "from_height",
    });
  }
  const after = latestPosition(requestCursor?.position, fromHeight === undefined ? null : beforeHeight(fromHeight));
  return { after, requestCursor: requestCursor?.position ?? null, toHeight, filters: NO_FILTERS, limit };
}

/** GET /v1/streams/events. */
export function parseStreamEventsQuery(query: QueryInput): EventsQuery {
  rejectUnknownParams(query, STREAM_EVENTS_PARAMS, {
    aliases: KEYSET_ALIASES,
    repeatable: REPEATABLE,
    otherRoutes: STREAMS_OTHER_ROUTES,
  });
  const limit = parseIntegerParam("limit", query.limit, { min: 1, max: MAX_LIMIT, default: STREAMS_DEFAULT_LIMIT });
  const cursorText = singleParam("cursor", query.cursor);
  const position = cursorText === undefined ? null : parseCursor("cursor", cursorText);
  return { after: position, requestCursor: position, toHeight: null, filters: parseEventFilters(query), limit };
}

/** GET /v1/streams/events/stream: filters and start position (`lastEventId` = the header). */
export function parseStreamSubscription(query: QueryInput, lastEventId: string | undefined): StreamSubscription {
  rejectUnknownParams(query, STREAM_SSE_PARAMS, {
    aliases: KEYSET_ALIASES,
    repeatable: REPEATABLE,
    otherRoutes: SSE_OTHER_ROUTES,
  });
  const filters = parseEventFilters(query);
  const fromHeight = parseIntegerParam("from_height", query.from_height, { min: 0, max: MAX_INT4 });
  const cursor = parseStartCursor(query);
  if (cursor && fromHeight !== undefined) {
    throw badRequest("INVALID_PARAMETER", `give one start position: ${cursor.source} or from_height, not both`, {
      parameter: "from_height",
    });
  }
  // The header is how an EventSource reconnects (same URL + Last-Event-ID): it overrides the URL.
  if (lastEventId !== undefined) {
    return {
      filters,
      start: { kind: "cursor", position: parseCursor("Last-Event-ID", lastEventId.trim()), source: "last-event-id" },
    };
  }
  if (cursor) return { filters, start: { kind: "cursor", position: cursor.position, source: cursor.source } };
  if (fromHeight !== undefined) return { filters, start: { kind: "height", height: fromHeight } };
  return { filters, start: { kind: "live" } };
}

/** `cursor` or its alias `from_cursor` (400 when both are given). Empty value = from the start. */
function parseStartCursor(
  query: QueryInput,
): { position: Position | null; source: "cursor" | "from_cursor" } | undefined {
  const cursor = singleParam("cursor", query.cursor);
  const fromCursor = singleParam("from_cursor", query.from_cursor);
  if (cursor !== undefined && fromCursor !== undefined) {
    throw badRequest("INVALID_PARAMETER", "cursor and from_cursor are the same start position: give one of them", {
      parameter: "from_cursor",
    });
  }
  if (cursor !== undefined) return { position: parseCursor("cursor", cursor), source: "cursor" };
  if (fromCursor !== undefined) return { position: parseCursor("from_cursor", fromCursor), source: "from_cursor" };
  return undefined;
}

/** The Streams filters. `types` and `not_types` combine into one effective set. */
export function parseEventFilters(query: QueryInput): EventFilters {
  const types = parseTypeList("types", query.types);
  const notTypes = parseTypeList("not_types", query.not_types);
  let effective: readonly EventType[] | null = null;
  if (types || notTypes) {
    const excluded = new Set(notTypes ?? []);
    effective = (types ?? EVENT_TYPES).filter((t) => !excluded.has(t));
    // Every type allowed is the same as no type filter (and keeps the plain cursor index).
    if (effective.length === EVENT_TYPES.length) effective = null;
  }
  return {
    types: effective,
    contractId: parseFilterValue("contract_id", query.contract_id),
    sender: parseFilterValue("sender", query.sender),
    recipient: parseFilterValue("recipient", query.recipient),
    assetIdentifier: parseFilterValue("asset_identifier", query.asset_identifier),
  };
}

/**
 * A comma-separated (and/or repeated) list of event types, in EVENT_TYPES order without
 * duplicates; undefined when absent. Each entry may be any name of its type (`print`,
 * `print_event`, `contract_event`: chain/event-type-names.ts). An unknown or empty entry is 400 INVALID_PARAMETER listing
 * the valid types.
 */
export function parseTypeList(name: string, raw: unknown): EventType[] | undefined {
  if (raw === undefined) return undefined;
  const values = Array.isArray(raw) ? raw : [raw];
  const wanted = new Set<string>();
  for (const value of values) {
    if (typeof value !== "string") {
      throw badRequest("INVALID_PARAMETER", `query parameter ${JSON.stringify(name)} must be a list of event types`, {
        parameter: name,
      });
    }
    for (const part of value.split(",")) {
      const type = part.trim();
      const eventType = eventTypeNamed(type);
      if (eventType === undefined) throw unknownType(name, type);
      wanted.add(eventType);
    }
  }
  return EVENT_TYPES.filter((t) => wanted.has(t));
}

function unknownType(name: string, type: string) {
  const shown = type.length > 60 ? `${type.slice(0, 60)}…` : type;
  const suggestion = type === "" ? undefined : didYouMean(type, allEventTypeNames());
  const what = type === "" ? "an empty entry" : `unknown event type ${JSON.stringify(shown)}`;
  return badRequest(
    "INVALID_PARAMETER",
    `${name} has ${what}${suggestion ? ` (did you mean ${JSON.stringify(suggestion)}?)` : ""}; valid types: ${EVENT_TYPES.join(", ")} (or their trigger or node names, e.g. print_event, contract_event)`,
    { parameter: name, value: shown, allowed: [...EVENT_TYPES], suggestion: suggestion ?? null },
  );
}

/** One equality-filter value: non-empty, at most 256 characters, no control characters. */
export function parseFilterValue(name: string, raw: unknown): string | null {
  const value = singleParam(name, raw);
  if (value === undefined) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (value === "" || value.length > MAX_FILTER_LENGTH || /[\u0000-\u001f\u007f]/.test(value)) {
    throw badRequest(
      "INVALID_PARAMETER",
      `query parameter ${JSON.stringify(name)} must be a non-empty value of at most ${MAX_FILTER_LENGTH} printable characters`,
      { parameter: name },
    );
  }
  return value;
}
