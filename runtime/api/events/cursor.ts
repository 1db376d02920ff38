/**
 * Event cursors of the Index and Streams routes (SPEC.md "Index / Streams list response",
 * DESIGN.md §2): `<block_height>:<event_index>`, where event_index is the dense per-block
 * ordinal, so a cursor names one position in the canonical event order and stays valid under
 * any filter. Pure.
 *
 * Internally a read starts after a Position. A Position may also sit *between* events:
 * `{ height: h, index: -1 }` is "before the first event of height h" (how `from_height` starts)
 * and `BEFORE_ALL` is "before everything". Only real event positions are ever shown to clients.
 */
import { badRequest } from "../../internal/errors.js";

export interface Position {
  height: number;
  index: number;
}

/** Before every event (height 0 holds the genesis events). */
export const BEFORE_ALL: Readonly<Position> = Object.freeze({ height: -1, index: -1 });

/** Largest value of a PostgreSQL integer column: bounds every height and index we accept. */
export const MAX_INT4 = 2_147_483_647;

const CURSOR_RE = /^(\d{1,10}):(\d{1,10})$/;

/** `"12:3"` → `{height: 12, index: 3}`; undefined when not a cursor (format or range). */
export function parseCursorText(text: string): Position | undefined {
  const m = CURSOR_RE.exec(text);
  if (!m) return undefined;
  const height = Number(m[1]);
  const index = Number(m[2]);
  if (height > MAX_INT4 || index > MAX_INT4) return undefined;
  return { height, index };
}

/**
 * Parses a cursor from a request (query parameter or Last-Event-ID header). The empty string
 * means "from the start" (what `next_cursor` is when nothing precedes the read) and gives null.
 * Anything else that is not `<block_height>:<event_index>` is 400 INVALID_CURSOR.
 */
export function parseCursor(name: string, text: string): Position | null {
  if (text === "") return null;
  const position = parseCursorText(text);
  if (position) return position;
  throw badRequest(
    "INVALID_CURSOR",
    `${name} must be a cursor "<block_height>:<event_index>" as returned in next_cursor; got ${JSON.stringify(truncate(text))}`,
    { parameter: name },
  );
}

/** `{12, 3}` → `"12:3"`. Only for real event positions (index ≥ 0). */
export function formatCursor(p: Position): string {
  return `${p.height}:${p.index}`;
}

/** Negative, zero or positive as a is before, at or after b. */
export function comparePositions(a: Position, b: Position): number {
  return a.height - b.height || a.index - b.index;
}

/** The later of the given positions (nulls ignored); null when all are null. */
export function latestPosition(...positions: (Position | null | undefined)[]): Position | null {
  let best: Position | null = null;
  for (const p of positions) if (p && (!best || comparePositions(p, best) > 0)) best = p;
  return best;
}

/** The position just before the first event of `height` (a `from_height` start). */
export function beforeHeight(height: number): Position {
  return { height, index: -1 };
}

function truncate(s: string): string {
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}
