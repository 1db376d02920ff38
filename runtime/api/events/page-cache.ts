/**
 * In-process cache of rendered Index / Streams pages (a 200-event page is ~100 KB of JSON that PostgreSQL builds row by row).
 *
 * Apart from `tip`, a page depends only on its query and the chain, so an entry is the rendered
 * page minus its tip (filled in on every answer). Two kinds of entry:
 * - immutable pages (everything at or below the finalized height, events/page.ts): valid whatever
 *   happens at the tip, as long as the page's heights stay final — the boundary can move down
 *   while a competing branch is undecided (README "Finality"), and then the page is read again and
 *   answered as short-lived — and no reorg has gone below finality since it was read;
 * - other pages: valid while the chain stamp they were read under is current. The stamp is the
 *   tip row (tip block hash, height, finalized height, reorg count), which every block and
 *   reorg changes in the same transaction as the events; a reader compares it with one
 *   single-row read, so a cached page is never older than the database.
 * A read stores its result under the stamp read *before* it, so a block committed during the
 * read leaves the entry stale at once. Bounded by `maxBytes` (least recently used out first).
 * Pure: no I/O.
 */
import { StampedLru } from "../http/stamped-lru.js";

/** What an immutable page relies on: its heights up to `height` final, and no reorg below
 * finality since it was read (`reorgsBelowFinality`, the count in the tip row, unchanged). */
export interface Settled {
  height: number;
  reorgsBelowFinality: number;
}

/** The finality boundary now, from the tip row (a read, or the chain hub's last one). */
export interface FinalityMark {
  finalizedHeight: number | null;
  reorgsBelowFinality: number;
}

/** A rendered page without its tip: body = head + tipJson + tail. */
export interface CachedPage {
  head: string;
  tail: string;
  /** The tip the page was read with, as JSON. */
  tipJson: string;
  etag: string;
  cacheDirectives: string;
  /** Set on an immutable page. */
  settled: Settled | null;
  /** The body last answered, encoded (a hit with the same tip sends it as is). Set by pageBytes. */
  encoded?: { tipJson: string; body: Buffer };
}

export const DEFAULT_PAGE_CACHE_BYTES = 64 * 1024 * 1024;

export class EventsPageCache {
  private readonly store: StampedLru<CachedPage>;
  /** Lookups answered from the cache, and stamped lookups that were not (metrics). */
  hits = 0;
  misses = 0;

  constructor(maxBytes = DEFAULT_PAGE_CACHE_BYTES) {
    this.store = new StampedLru(maxBytes);
  }

  get size(): number {
    return this.store.size;
  }

  get byteSize(): number {
    return this.store.byteSize;
  }

  /**
   * The page for `key` if still valid under chain `stamp` and the current `finality`. With
   * `stamp` null only an immutable page is returned (a caller that has not read the stamp yet).
   */
  get(key: string, stamp: string | null, finality: FinalityMark): CachedPage | undefined {
    const page = this.find(key, stamp, finality);
    // A miss of the unstamped probe is followed by a stamped lookup: only that one counts.
    if (page !== undefined) this.hits++;
    else if (stamp !== null) this.misses++;
    return page;
  }

  private find(key: string, stamp: string | null, finality: FinalityMark): CachedPage | undefined {
    const entry = this.store.lookup(key);
    if (entry === undefined) return undefined;
    const { settled } = entry.value;
    if (settled !== null) {
      if (stillSettled(settled, finality)) return entry.value;
      this.store.delete(key);
      return undefined;
    }
    if (entry.stamp !== stamp) {
      if (stamp !== null) this.store.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores a page read under chain `stamp` (the stamp read before the page). */
  set(key: string, stamp: string, page: CachedPage): void {
    // UTF-16 strings: two bytes a character, the encoded body (JSON text is mostly ASCII: a byte
    // a character), plus the entry's own overhead.
    const text = page.head.length + page.tail.length + page.tipJson.length;
    this.store.set(key, stamp, page, 2 * (key.length + text + page.etag.length) + text + 128);
  }
}

function stillSettled(settled: Settled, finality: FinalityMark): boolean {
  return (
    settled.reorgsBelowFinality === finality.reorgsBelowFinality &&
    finality.finalizedHeight !== null &&
    settled.height <= finality.finalizedHeight
  );
}

/** The body of a cached page with the given tip. */
export function pageBody(page: CachedPage, tipJson: string): string {
  return page.head + tipJson + page.tail;
}

/**
 * The body as UTF-8 bytes, kept on the page for the next answer with the same tip: encoding a
 * 100 KB page on every hit was most of a hit's cost.
 */
export function pageBytes(page: CachedPage, tipJson: string): Buffer {
  if (page.encoded?.tipJson === tipJson) return page.encoded.body;
  const body = Buffer.from(pageBody(page, tipJson));
  page.encoded = { tipJson, body };
  return body;
}
