/**
 * The store behind the read page caches (events/page-cache.ts, subgraphs/page-cache.ts): a map
 * bounded by an estimate of its bytes, least recently used out first, each value kept with the
 * stamp it was read under (the caches decide what a stamp means). Pure: no I/O.
 */
export interface Stamped<V> {
  value: V;
  stamp: string;
}

interface Entry<V> extends Stamped<V> {
  bytes: number;
}

export class StampedLru<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get size(): number {
    return this.entries.size;
  }

  get byteSize(): number {
    return this.bytes;
  }

  /** The entry for `key`, now the most recently used. */
  lookup(key: string): Stamped<V> | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** Stores `value` (about `bytes` bytes) under `stamp`; a value larger than the whole bound is not kept. */
  set(key: string, stamp: string, value: V, bytes: number): void {
    if (bytes > this.maxBytes) return;
    this.delete(key);
    this.entries.set(key, { value, stamp, bytes });
    this.bytes += bytes;
    for (const k of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(k);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
