/**
 * In-process cache of rendered subgraph list pages (a list
 * page costs a query whose rows PostgreSQL reads, sends and we parse and serialise one by one).
 *
 * An entry is the whole answer (rows, next_cursor and tip) and is valid while the subgraph stamp
 * it was read under is current. The stamp (subgraphs/catalog.ts readSubgraphStamp) is the chain
 * tip (block hash, height, reorg count: every block changes it in the transaction that writes the
 * subgraph's rows) and the subgraph's own row (schema hash, updated_at: every backfill or reindex
 * step, failure, migration and redeploy changes it; subgraph_height). A reader compares it with
 * one single-row read, so a cached page is never older than the database. A read stores its result
 * under the stamp read *before* it, so a block committed during the read leaves the entry stale at
 * once. Bounded by `maxBytes` (least recently used out first). Pure: no I/O.
 */
import { StampedLru } from "../http/stamped-lru.js";

export interface CachedListPage {
  /** The JSON answer, UTF-8. */
  body: Buffer;
  etag: string;
}

export class SubgraphPageCache {
  private readonly store: StampedLru<CachedListPage>;
  /** Lookups answered from the cache and not (metrics). */
  hits = 0;
  misses = 0;

  constructor(maxBytes: number) {
    this.store = new StampedLru(maxBytes);
  }

  get size(): number {
    return this.store.size;
  }

  /** The page stored under `key` if it was read under `stamp`. */
  get(key: string, stamp: string): CachedListPage | undefined {
    const entry = this.store.lookup(key);
    if (entry !== undefined && entry.stamp !== stamp) this.store.delete(key);
    const page = entry !== undefined && entry.stamp === stamp ? entry.value : undefined;
    if (page !== undefined) this.hits++;
    else this.misses++;
    return page;
  }

  /** Stores a page read under `stamp` (the stamp read before the page). */
  set(key: string, stamp: string, page: CachedListPage): void {
    this.store.set(key, stamp, page, page.body.length + 2 * (key.length + stamp.length + page.etag.length) + 128);
  }
}
