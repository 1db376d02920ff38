/**
 * SQL of the Index and Streams event reads (SPEC.md "Index and Streams routes", DESIGN.md §2
 * cursors, §8 keyset facts). Pure: a typed query in, `{ sql, params }` out; every value is a
 * parameter. The database driver runs what this returns (events/page.ts, events/chain-hub.ts).
 *
 * A page is a row-value keyset scan `(block_height, event_index) > ($1, $2)` ordered by the same
 * pair, over `canonical AND committed` rows, bounded above by the tip height read first (so a page
 * never shows a block newer than the tip it reports). Each filter has a partial index ending in
 * (block_height, event_index) (migrations 0002, 0016), so one filter is one index range scan at any
 * depth (the indexes key on a hash of the value: chain/event-columns-sql.ts). A type *set* cannot be read in cursor order from one btree, so 2–10 types become a
 * UNION ALL of one bounded scan per type, merged by an outer ORDER BY … LIMIT: at most
 * types × limit rows are touched, however sparse the types are.
 *
 * Each event's JSON is built by PostgreSQL (events/event-json-sql.ts: compact, keys in this order),
 * so the API splices text and never parses payloads. The block hash is a scalar subquery (one
 * primary-key probe per event) rather than a join, which the planner would turn into a scan of
 * chain.blocks; the outer ORDER BY then needs no sort (the page is already in cursor order).
 *
 * The event object (one shape for both routes):
 * `{ cursor, block_height, event_index, block_hash, index_block_hash, tx_id, tx_index,
 *    event_type, contract_id, asset_identifier, sender, recipient, amount, topic, finalized,
 *    payload }` — amount is a decimal string or null, payload the decoded payload of
 * runtime/chain/decode/decode-events.ts (print values decoded as DESIGN.md §3).
 */
import { eventColumnEquals } from "../../chain/event-columns-sql.js";
import type { EventType } from "../../chain/types.js";
import { eventJsonSql } from "./event-json-sql.js";
import type { Position } from "./cursor.js";
import type { EventFilters } from "./query.js";

export interface CompiledSql {
  sql: string;
  params: unknown[];
}

/** What a page read needs besides the query: bounds taken from the tip read just before. */
export interface PageBounds {
  /** Inclusive: min(tip height, to_height). */
  maxHeight: number;
  /** For each event's `finalized` flag; null = nothing is final yet. */
  finalizedHeight: number | null;
}

export interface PageRequest {
  after: Position | null;
  filters: EventFilters;
  limit: number;
}

/** Appends parameters and hands back their `$n` placeholders. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const EVENT_COLUMNS =
  "e.index_block_hash, e.block_height, e.event_index, e.tx_id, e.tx_index, e.event_type, e.contract_id, " +
  "e.asset_identifier, e.sender, e.recipient, e.amount, e.topic, e.raw_value, e.payload";

/**
 * The tip and the *horizon*: the last canonical committed event at or below
 * min(tip, to_height) — how far a page that comes back short has looked (events/page.ts turns it
 * into next_cursor). One backwards probe of the cursor index. Columns: tip_hash, tip_height,
 * finalized_height, reorg_count, reorgs_below_finality, horizon_height, horizon_index (horizon
 * nulls when no event).
 */
export function compileTipRead(toHeight: number | null): CompiledSql {
  return {
    sql: `SELECT t.index_block_hash AS tip_hash, t.block_height AS tip_height, t.finalized_height, t.reorg_count,
       t.reorgs_below_finality, h.block_height AS horizon_height, h.event_index AS horizon_index
  FROM (SELECT * FROM control.chain_tip LIMIT 1) t
  LEFT JOIN LATERAL (
    SELECT e.block_height, e.event_index FROM chain.events e
     WHERE e.canonical AND e.committed AND e.block_height <= LEAST(t.block_height, COALESCE($1::integer, t.block_height))
     ORDER BY e.block_height DESC, e.event_index DESC LIMIT 1) h ON true`,
    params: [toHeight],
  };
}

/**
 * One page of events: columns block_height, event_index and j (the event's JSON text), in
 * cursor order, with the bounds as parameters (SSE streams take them from the chain hub). Null
 * when the filters cannot match anything (an empty type set).
 */
export function compileEventsPage(request: PageRequest, bounds: PageBounds): CompiledSql | null {
  if (matchesNothing(request)) return null;
  const p = new Params();
  const sql = pageSelect(
    request,
    p,
    () => p.add(bounds.maxHeight),
    () => `${p.add(bounds.finalizedHeight)}::integer`,
  );
  return { sql, params: p.values };
}

/**
 * A list page in ONE statement, so the tip, the horizon and the events come from one snapshot:
 * the tip row (tip_hash, tip_height, finalized_height, reorg_count, reorgs_below_finality), the horizon (horizon_height,
 * horizon_index: the last canonical committed event at or below min(tip, to_height), how far a
 * short page has looked — events/page.ts turns it into next_cursor), and the page's events
 * (block_height, event_index, j), one row per event or a single row with null event columns.
 */
export function compileListPage(request: PageRequest & { toHeight: number | null }): CompiledSql {
  const p = new Params();
  const toHeight = p.add(request.toHeight);
  const page = matchesNothing(request)
    ? "SELECT NULL::integer AS block_height, NULL::integer AS event_index, NULL::text AS j WHERE false"
    : pageSelect(
        request,
        p,
        () => "tip.max_height",
        () => "tip.finalized_height",
      );
  return {
    // The tip is a derived table with LIMIT 1 (not a CTE): control.chain_tip is never analyzed,
    // and an estimate of hundreds of tip rows would multiply every cost below past the JIT
    // threshold (a 100–400 ms compile per page, measured on PostgreSQL 15).
    sql: `SELECT tip.tip_hash, tip.tip_height, tip.finalized_height, tip.reorg_count, tip.reorgs_below_finality,
       h.horizon_height, h.horizon_index, p.block_height, p.event_index, p.j
  FROM (
    SELECT t.index_block_hash AS tip_hash, t.block_height AS tip_height, t.finalized_height, t.reorg_count, t.reorgs_below_finality,
           LEAST(t.block_height, COALESCE(${toHeight}::integer, t.block_height)) AS max_height
      FROM control.chain_tip t LIMIT 1) tip
  LEFT JOIN LATERAL (
    SELECT e.block_height AS horizon_height, e.event_index AS horizon_index FROM chain.events e
     WHERE e.canonical AND e.committed AND e.block_height <= tip.max_height
     ORDER BY e.block_height DESC, e.event_index DESC LIMIT 1) h ON true
  LEFT JOIN LATERAL (${page}) p ON true
 ORDER BY p.block_height, p.event_index`,
    params: p.values,
  };
}

function matchesNothing(request: PageRequest): boolean {
  return request.filters.types !== null && request.filters.types.length === 0;
}

/** The page SELECT; the bounds are SQL (a parameter or a column of the `tip` CTE). */
function pageSelect(request: PageRequest, p: Params, maxHeight: () => string, finalizedHeight: () => string): string {
  const { filters } = request;
  const where = ["e.canonical AND e.committed"];
  if (request.after) {
    where.push(`(e.block_height, e.event_index) > (${p.add(request.after.height)}, ${p.add(request.after.index)})`);
  }
  where.push(`e.block_height <= ${maxHeight()}`);
  if (filters.contractId !== null) where.push(eventColumnEquals("e", "contract_id", p.add(filters.contractId)));
  if (filters.sender !== null) where.push(eventColumnEquals("e", "sender", p.add(filters.sender)));
  if (filters.recipient !== null) where.push(eventColumnEquals("e", "recipient", p.add(filters.recipient)));
  if (filters.assetIdentifier !== null)
    where.push(eventColumnEquals("e", "asset_identifier", p.add(filters.assetIdentifier)));
  const limit = p.add(request.limit);

  const scan = (typeParam: string | null) =>
    `SELECT ${EVENT_COLUMNS} FROM chain.events e
     WHERE ${[...where, ...(typeParam ? [eventColumnEquals("e", "event_type", typeParam)] : [])].join(" AND ")}
     ORDER BY e.block_height, e.event_index LIMIT ${limit}`;

  let page: string;
  const types: readonly EventType[] | null = filters.types;
  if (types === null) page = scan(null);
  else if (types.length === 1) page = scan(p.add(types[0]));
  else {
    const branches = types.map((t) => `(${scan(p.add(t))})`);
    page = `SELECT * FROM (${branches.join("\n    UNION ALL ")}) u ORDER BY block_height, event_index LIMIT ${limit}`;
  }
  return `SELECT p.block_height, p.event_index, ${eventJsonSql("p", finalizedHeight())} AS j
  FROM (${page}) p
 ORDER BY p.block_height, p.event_index`;
}

const REORG_COLUMNS = `r.id, r.detected_at, r.fork_point_height, r.orphaned_from_height, r.orphaned_to_height,
       r.orphaned_blocks, r.old_tip_hash, r.old_tip_height, r.new_tip_hash, r.new_tip_height, r.below_finality,
       (SELECT e.block_height || ':' || e.event_index FROM chain.events e
         WHERE e.canonical AND e.committed AND e.block_height < r.fork_point_height
         ORDER BY e.block_height DESC, e.event_index DESC LIMIT 1) AS resume_cursor`;

/** Most reorg records listed on one page (the newest are kept). */
export const MAX_PAGE_REORGS = 100;

/**
 * Reorg records whose orphaned height range intersects [lowHeight, highHeight] (the page's
 * range; see events/page.ts), newest MAX_PAGE_REORGS, returned oldest first.
 */
export function compileOverlappingReorgs(lowHeight: number, highHeight: number): CompiledSql {
  return {
    sql: `SELECT * FROM (
  SELECT ${REORG_COLUMNS}
    FROM chain.reorgs r
   WHERE r.orphaned_from_height <= $1 AND r.orphaned_to_height >= $2
   ORDER BY r.id DESC LIMIT $3) x
 ORDER BY id`,
    params: [highHeight, lowHeight, MAX_PAGE_REORGS],
  };
}

/** Reorg records newer than `afterId`, oldest first (the chain hub's feed). */
export function compileReorgsSince(afterId: number): CompiledSql {
  return {
    sql: `SELECT ${REORG_COLUMNS} FROM chain.reorgs r WHERE r.id > $1 ORDER BY r.id LIMIT 1000`,
    params: [afterId],
  };
}

/**
 * The deepest reorg that orphaned the height a resuming reader stands on (orphaned range
 * contains it): such a reader may hold orphaned events. Used when an SSE stream resumes.
 */
export function compileReorgCoveringHeight(height: number): CompiledSql {
  return {
    sql: `SELECT ${REORG_COLUMNS}
  FROM chain.reorgs r
 WHERE r.orphaned_from_height <= $1 AND r.orphaned_to_height >= $1
 ORDER BY r.fork_point_height, r.id DESC LIMIT 1`,
    params: [height],
  };
}

/** The last canonical committed event at or below a height (a live tail's start). */
export function compileLastEventAtOrBelow(height: number): CompiledSql {
  return {
    sql: `SELECT e.block_height, e.event_index FROM chain.events e
 WHERE e.canonical AND e.committed AND e.block_height <= $1
 ORDER BY e.block_height DESC, e.event_index DESC LIMIT 1`,
    params: [height],
  };
}
