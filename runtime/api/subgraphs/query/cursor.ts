/**
 * Opaque keyset cursors of the subgraph list route (SPEC.md "List and count query parameters":
 * `cursor` is "the previous next_cursor; opaque, do not construct"; "a cursor issued under one
 * `_sort`/`_order` gives 400 under another"). Pure.
 *
 * Format: `<base64url(JSON)>.<mac>` where JSON is
 * `{"v":1,"t":"<subgraph>/<table>","s":"<sort column>","o":"asc|desc","k":<sort value text|null>,"i":"<_id>"}`
 * (`k` absent when the sort column is `_id`) and `mac` is the first 12 bytes of
 * HMAC-SHA256(CURSOR_MAC_KEY, JSON), base64url. The MAC is an integrity check (an edited,
 * truncated or hand-made cursor is a 400 INVALID_CURSOR), not a secret: the values inside are
 * validated against the column type again before they reach SQL, as parameters.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { badRequest, type ServiceError } from "../../../internal/errors.js";
import type { ColumnMeta } from "../../../subgraphs/types.js";
import type { KeysetPosition, SortOrder } from "./types.js";
import { checkColumnValue, isInt8 } from "./values.js";

export const CURSOR_VERSION = 1;
const CURSOR_MAC_KEY = "sluice/subgraph-cursor/v1";
const MAC_BYTES = 12;
/** Longest cursor accepted (a sort value is at most a btree entry, ~2.7 kB). */
export const MAX_CURSOR_LENGTH = 8192;

/** What a cursor is bound to: it is only valid for the same table, sort column and order. */
export interface CursorBinding {
  /** `<subgraph>/<table>`. */
  table: string;
  sort: string;
  order: SortOrder;
}

interface CursorJson {
  v: number;
  t: string;
  s: string;
  o: SortOrder;
  k?: string | null;
  i: string;
}

function mac(json: string): string {
  return createHmac("sha256", CURSOR_MAC_KEY).update(json).digest().subarray(0, MAC_BYTES).toString("base64url");
}

/** The cursor of a page ending at `position`. */
export function encodeCursor(binding: CursorBinding, position: KeysetPosition): string {
  const body: CursorJson = { v: CURSOR_VERSION, t: binding.table, s: binding.sort, o: binding.order, i: position.id };
  if (binding.sort !== "_id") body.k = position.sortValue ?? null;
  const json = JSON.stringify(body);
  return `${Buffer.from(json, "utf8").toString("base64url")}.${mac(json)}`;
}

const invalid = (reason: string, details: Record<string, unknown> = {}): ServiceError =>
  badRequest(
    "INVALID_CURSOR",
    `invalid cursor: ${reason}; pass back next_cursor unchanged, with the same _sort and _order`,
    {
      parameter: "cursor",
      ...details,
    },
  );

/**
 * Decodes `text` and checks it belongs to `expected` (table, sort, order); `sortColumn` is the
 * sort column's metadata, used to re-validate the sort value. Throws 400 INVALID_CURSOR.
 */
export function decodeCursor(text: string, expected: CursorBinding, sortColumn: ColumnMeta): KeysetPosition {
  if (text.length > MAX_CURSOR_LENGTH) throw invalid("too long");
  const dot = text.indexOf(".");
  if (dot <= 0 || !/^[A-Za-z0-9_-]+$/.test(text.slice(0, dot))) throw invalid("malformed");
  const json = Buffer.from(text.slice(0, dot), "base64url").toString("utf8");
  const given = Buffer.from(text.slice(dot + 1), "utf8");
  const want = Buffer.from(mac(json), "utf8");
  if (given.length !== want.length || !timingSafeEqual(given, want))
    throw invalid("checksum mismatch (edited or truncated)");
  let body: CursorJson;
  try {
    body = JSON.parse(json) as CursorJson;
  } catch {
    throw invalid("malformed");
  }
  if (typeof body !== "object" || body === null || body.v !== CURSOR_VERSION) throw invalid("unknown version");
  if (typeof body.t !== "string" || typeof body.s !== "string" || (body.o !== "asc" && body.o !== "desc")) {
    throw invalid("malformed");
  }
  if (body.t !== expected.table) throw invalid(`it belongs to table ${JSON.stringify(body.t)}`, { table: body.t });
  if (body.s !== expected.sort || body.o !== expected.order) {
    throw invalid(
      `it was issued for _sort=${body.s}&_order=${body.o}, not _sort=${expected.sort}&_order=${expected.order}`,
      {
        cursorSort: body.s,
        cursorOrder: body.o,
        sort: expected.sort,
        order: expected.order,
      },
    );
  }
  if (typeof body.i !== "string" || !isInt8(body.i)) throw invalid("malformed");
  if (expected.sort === "_id") return { id: body.i };
  if (body.k === null) {
    if (!sortColumn.nullable) throw invalid("malformed");
    return { id: body.i, sortValue: null };
  }
  if (typeof body.k !== "string") throw invalid("malformed");
  const check = checkColumnValue(sortColumn, body.k);
  if (!check.ok) throw invalid("malformed");
  return { id: body.i, sortValue: check.value };
}
