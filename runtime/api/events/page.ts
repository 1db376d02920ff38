/**
 * One page of the Index / Streams list routes (SPEC.md "Index / Streams list response"):
 * `{ events, next_cursor, tip: { block_height, finalized_height }, reorgs }`.
 *
 * Reads:
 * 1. ONE statement (events/sql.ts compileListPage): the tip, the horizon and the page, bounded
 *    above by that tip, all from one snapshot;
 * 2. then the reorg records overlapping the page (skipped while the chain has never reorged).
 *
 * `next_cursor` (always a string):
 * - a full page (`limit` events): the cursor of its last event;
 * - a shorter page: the read has seen everything up to min(tip, to_height), so next_cursor
 *   moves to the later of its last event, the *horizon* (the last canonical event of any type
 *   at or below that height — cursors are stable under any filter) and the request's cursor.
 *   A poller with a sparse filter therefore keeps up with the tip instead of re-scanning from
 *   an old position, and an empty page never moves it backwards;
 * - `""` when nothing precedes the read at all (an empty chain): `cursor=` (empty) reads from
 *   the start, so passing it back works.
 * Keep sending the same filters (and from_height/to_height) with the new cursor.
 *
 * `reorgs` (overlap rule): every reorg whose orphaned height range intersects the page's height
 * range [low, high] — low = the start position's height (cursor, from_cursor or from_height;
 * 0 without one), high = the last event's height for a full page, else min(tip, to_height).
 * A consumer that has already read events at or above a listed `fork_point_height` (the lowest
 * orphaned height, README "Reorgs") discards what it derived from them and reads again after
 * `resume_cursor`; one reading those heights for the first time (the page already shows the
 * canonical chain) can ignore it. At most the 100 newest are listed.
 *
 * Consistency: a reorg committed after step 1 is listed if it lands before step 2, and otherwise
 * on the next page: that page starts at or below the old tip, inside the reorg's orphaned range.
 *
 * Cache: a page whose content can no longer change is immutable — a full page whose last event
 * is at or below the finalized height, or a shorter page bounded by a to_height at or below it.
 * The weak ETag is derived from what the content is a function of, never from the body (hashing
 * ~150 KB per page was a sixth of a cache-miss page's CPU): the normalized query plus
 * - for an immutable page, the count of reorgs below finality (nothing else can change it), so
 *   it keeps its ETag as long as its content;
 * - for any other page, the chain stamp of the snapshot it was read from (tip block hash, tip
 *   and finalized heights, reorg count): the same query under the same stamp reads the same
 *   events, next_cursor, finalized flags and reorgs. A new block changes the ETag.
 */
import type { Queryable } from "../../db/types.js";
import { readChainData } from "../http/chain-reads.js";
import type { SharedDeps } from "../http/context.js";
import type { ChainHub } from "./chain-hub.js";
import { type CachedPage, type EventsPageCache, type FinalityMark, pageBytes } from "./page-cache.js";
import { IMMUTABLE, SHORT_LIVED, escapeJsonHtml, weakEtag } from "../http/cache-headers.js";
import { formatCursor, latestPosition, type Position } from "./cursor.js";
import type { EventsQuery } from "./query.js";
import { type TipRow, type TipSnapshot, tipFromRow } from "./tip.js";
import { compileEventsPage, compileListPage, compileOverlappingReorgs, type PageRequest } from "./sql.js";
import { type ReorgRecordJson, type ReorgRow, reorgFromRow } from "./reorg-records.js";

/** An event as read: its position and its JSON text (built by PostgreSQL). */
export interface EventRow {
  position: Position;
  json: string;
}

export interface EventsPage {
  /** The response body (JSON text, UTF-8). */
  body: Buffer;
  etag: string;
  /** Cache-Control directives (without public/private). */
  cacheDirectives: string;
}

/** Decisions of a page that depend only on what was read. Pure. */
export interface PagePlan {
  nextCursor: string;
  /** The page's height range for the reorg overlap rule; null when there is nothing to check. */
  reorgRange: { low: number; high: number } | null;
  /** The height up to which the page's content is fixed once final: the last event of a full page,
   * the to_height of a shorter one; null when more events can still join it (a short page without
   * to_height). */
  settledHeight: number | null;
  immutable: boolean;
}

export function planPage(query: EventsQuery, tip: TipSnapshot, events: readonly Position[]): PagePlan {
  const last = events.length ? events[events.length - 1] : null;
  const full = events.length === query.limit;
  const next = full ? last : latestPosition(last, tip.horizon, query.requestCursor);
  const nextCursor = next ? formatCursor(next) : "";

  let reorgRange: PagePlan["reorgRange"] = null;
  if (tip.tipHeight !== null && tip.reorgCount > 0) {
    const low = Math.max(0, query.after?.height ?? 0);
    const scannedTo = query.toHeight === null ? tip.tipHeight : Math.min(tip.tipHeight, query.toHeight);
    const high = full && last ? last.height : scannedTo;
    if (high >= low) reorgRange = { low, high };
  }

  const settledHeight = full && last ? last.height : query.toHeight;
  const fin = tip.finalizedHeight;
  const immutable = fin !== null && settledHeight !== null && settledHeight <= fin;
  return { nextCursor, reorgRange, settledHeight, immutable };
}

/** Events after `request.after` up to `maxHeight`, in cursor order. */
export async function readEventRows(
  q: Queryable,
  request: PageRequest,
  bounds: { maxHeight: number; finalizedHeight: number | null },
): Promise<EventRow[]> {
  const compiled = compileEventsPage(request, bounds);
  if (!compiled) return [];
  const { rows } = await q.query<{ block_height: number; event_index: number; j: string }>(
    compiled.sql,
    compiled.params,
  );
  return rows.map((r) => ({ position: { height: Number(r.block_height), index: Number(r.event_index) }, json: r.j }));
}

export async function readOverlappingReorgs(q: Queryable, low: number, high: number): Promise<ReorgRecordJson[]> {
  const { sql, params } = compileOverlappingReorgs(low, high);
  const { rows } = await q.query<ReorgRow>(sql, params);
  return rows.map(reorgFromRow);
}

/** One statement: the tip, the horizon and the page's events from one snapshot. */
export async function readListPage(q: Queryable, query: EventsQuery): Promise<{ tip: TipSnapshot; rows: EventRow[] }> {
  const { sql, params } = compileListPage(query);
  const result = await q.query<TipRow & { block_height: number | null; event_index: number | null; j: string | null }>(
    sql,
    params,
  );
  const tip = tipFromRow(result.rows[0]);
  const rows: EventRow[] = [];
  for (const r of result.rows) {
    if (r.j === null || r.block_height === null || r.event_index === null) continue;
    rows.push({ position: { height: Number(r.block_height), index: Number(r.event_index) }, json: r.j });
  }
  return { tip, rows };
}

/** Where a page is read: the primary, or a read replica under its consistency rule (../http/chain-reads.ts). */
export type PageSource = Pick<SharedDeps, "db" | "reads">;

/** Reads and renders one page. */
export async function readEventsPage(source: PageSource, query: EventsQuery): Promise<EventsPage> {
  const { value } = await readChainData(source, (q) => renderEventsPage(q, query));
  return answer(value.page);
}

/** The response of a rendered page, with the given tip (default: the one it was read with). */
const answer = (page: CachedPage, tipJson = page.tipJson): EventsPage => ({
  body: pageBytes(page, tipJson),
  etag: page.etag,
  cacheDirectives: page.cacheDirectives,
});

const tipJsonOf = (tip: { tipHeight: number | null; finalizedHeight: number | null }) =>
  JSON.stringify({ block_height: tip.tipHeight, finalized_height: tip.finalizedHeight });

/** The chain stamp (events/page-cache.ts): every block and reorg changes it. Pure. */
export function chainStamp(tip: Pick<TipSnapshot, "tipHash" | "tipHeight" | "finalizedHeight" | "reorgCount">): string {
  return `${tip.tipHash}|${tip.tipHeight}|${tip.finalizedHeight}|${tip.reorgCount}`;
}

/** The ETag of a page (see the module comment): the normalized query and what its content rests on. Pure. */
export function pageEtag(query: EventsQuery, tip: TipSnapshot, immutable: boolean): string {
  const basis = immutable ? `settled|${tip.reorgsBelowFinality}` : chainStamp(tip);
  return weakEtag("events", pageKey(query), basis);
}

/** A query in normal form: the page cache's key and the ETag's basis. */
export const pageKey = (query: EventsQuery): string => JSON.stringify(query);

/** The chain stamp (events/page-cache.ts), the tip it reports and the finality boundary, from the single tip row. */
export async function readChainStamp(
  q: Queryable,
): Promise<{ stamp: string; tipJson: string; finality: FinalityMark; tipHash: string | null }> {
  const { rows } = await q.query<{
    index_block_hash: string | null;
    block_height: number | null;
    finalized_height: number | null;
    reorg_count: string | number;
    reorgs_below_finality: string | number;
  }>(
    "SELECT index_block_hash, block_height, finalized_height, reorg_count, reorgs_below_finality FROM control.chain_tip",
  );
  const r = rows[0];
  const tip = { tipHeight: r?.block_height ?? null, finalizedHeight: r?.finalized_height ?? null };
  return {
    stamp: chainStamp({ ...tip, tipHash: r?.index_block_hash ?? null, reorgCount: Number(r?.reorg_count ?? 0) }),
    tipJson: tipJsonOf(tip),
    finality: { finalizedHeight: tip.finalizedHeight, reorgsBelowFinality: Number(r?.reorgs_below_finality ?? 0) },
    tipHash: r?.index_block_hash ?? null,
  };
}

/**
 * One page through the page cache (events/page-cache.ts). An immutable page answers from memory
 * with the hub's tip (the tip only reports the time of the read) while the hub's finality still
 * covers it and the hub is live (events/chain-hub.ts: notifications flowing); any other hit costs
 * the one single-row stamp read, and a miss that plus the page read.
 */
export async function readEventsPageCached(
  source: PageSource,
  query: EventsQuery,
  cache: { pages: EventsPageCache; hub: ChainHub | undefined },
): Promise<EventsPage> {
  const key = pageKey(query);
  // Only a hub that follows the notifications knows of a reorg below finality without a query.
  if (cache.hub?.live) {
    const settled = cache.pages.get(key, null, cache.hub.state);
    if (settled !== undefined) return answer(settled, tipJsonOf(cache.hub.state));
  }
  // The stamp always comes from the primary: a cached page is never older than the primary.
  const { stamp, tipJson, finality, tipHash } = await readChainStamp(source.db);
  const hit = cache.pages.get(key, stamp, finality);
  if (hit !== undefined) return answer(hit, tipJson);
  const { value, replica } = await readChainData(source, (q) => renderEventsPage(q, query), { primaryTip: tipHash });
  // A primary read is stored under the stamp read before it (page-cache.ts). A replica's snapshot
  // may be older than that stamp: its page is stored only when it was read at exactly that stamp.
  if (replica === null || value.stamp === stamp) cache.pages.set(key, stamp, value.page);
  return answer(value.page);
}

/** Reads and renders one page; `stamp` is the chain stamp of the snapshot it was read from. */
async function renderEventsPage(q: Queryable, query: EventsQuery): Promise<{ page: CachedPage; stamp: string }> {
  const { tip, rows } = await readListPage(q, query);
  const plan = planPage(
    query,
    tip,
    rows.map((r) => r.position),
  );
  const reorgs = plan.reorgRange ? await readOverlappingReorgs(q, plan.reorgRange.low, plan.reorgRange.high) : [];

  const eventsJson = `[${rows.map((r) => r.json).join(",")}]`;
  const reorgsJson = JSON.stringify(reorgs);
  const tipJson = tipJsonOf(tip);
  const nextJson = JSON.stringify(plan.nextCursor);
  // escapeJsonHtml works character by character, so escaping the parts escapes the whole body.
  const page: CachedPage = {
    head: escapeJsonHtml(`{"events":${eventsJson},"next_cursor":${nextJson},"tip":`),
    tail: escapeJsonHtml(`,"reorgs":${reorgsJson}}`),
    tipJson,
    etag: pageEtag(query, tip, plan.immutable),
    cacheDirectives: plan.immutable ? IMMUTABLE : SHORT_LIVED,
    settled:
      plan.immutable && plan.settledHeight !== null
        ? { height: plan.settledHeight, reorgsBelowFinality: tip.reorgsBelowFinality }
        : null,
  };
  return { page, stamp: chainStamp(tip) };
}
