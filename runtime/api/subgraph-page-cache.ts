/**
 * In-process cache of rendered subgraph list pages (issue "Subgraph read API" benchmark: a list
 * page costs a query whose rows PostgreSQL reads, sends and we parse and serialise one by one).
 *
 * An entry is the whole answer (rows, next_cursor and tip) and is valid while the subgraph stamp
 * it was read under is current. The stamp (subgraph-catalog.ts readSubgraphStamp) is the chain
 * tip (block hash, height, reorg count: every block changes it in the transaction that writes the
 * subgraph's rows) and the subgraph's own row (schema hash, updated_at: every backfill or reindex
 * step, failure, migration and redeploy changes it; subgraph_height). A reader compares it with
 * one single-row read, so a cached page is never older than the database. A read stores its result
 * under the stamp read *before* it, so a block committed during the read leaves the entry stale at
 * once. Bounded by `maxBytes` (least recently used out first). Pure: no I/O.
 */

export interface CachedListPage {
  /** The JSON answer, UTF-8. */
  body: Buffer;
  etag: string;
}

interface Entry {
  page: CachedListPage;
  stamp: string;
  bytes: number;
}

export class SubgraphPageCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The page stored under `key` if it was read under `stamp`. */
  get(key: string, stamp: string): CachedListPage | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.stamp !== stamp) {
      this.remove(key, entry);
      return undefined;
    }
    this.entries.delete(key); // most recently used last
    this.entries.set(key, entry);
    return entry.page;
  }

  /** Stores a page read under `stamp` (the stamp read before the page). */
  set(key: string, stamp: string, page: CachedListPage): void {
    const bytes = page.body.length + 2 * (key.length + stamp.length + page.etag.length) + 128;
    if (bytes > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old !== undefined) this.remove(key, old);
    this.entries.set(key, { page, stamp, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(k, e);
    }
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
