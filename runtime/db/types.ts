/**
 * The one small storage interface (DESIGN.md §2 "Storage"): query, transaction, listen/notify.
 * Two drivers implement it: embedded PGlite and PostgreSQL via `pg`. Both return int8 and
 * NUMERIC as strings (lossless), timestamptz as Date, json/jsonb parsed.
 */
export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
  /** Runs a script of several statements (no parameters), e.g. a migration. */
  exec(sql: string): Promise<void>;
  /**
   * Bulk load: `COPY … FROM STDIN` (text format) fed with `data`; returns the rows loaded. Both
   * drivers have it (PostgreSQL through pg-copy-streams, PGlite through its /dev/blob device);
   * optional so plain wrappers in tests need not implement it.
   */
  copyFrom?(sql: string, data: Uint8Array): Promise<number>;
  /**
   * The same fed from a stream of COPY text, in chunks cut anywhere: memory stays bounded whatever
   * the size (PostgreSQL streams it; PGlite loads it in several COPYs cut at row boundaries).
   */
  copyFromStream?(sql: string, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<number>;
  /** Bulk read: `COPY (SELECT …) TO STDOUT` (text format); returns the bytes. */
  copyTo?(sql: string): Promise<Buffer>;
  /**
   * The same handed over chunk by chunk as the server sends it (PostgreSQL only: PGlite returns a
   * COPY's output whole); returns the bytes.
   */
  copyToStream?(sql: string, onChunk: (chunk: Buffer) => Promise<void> | void): Promise<number>;
}

export type NotificationHandler = (payload: string) => void;

/**
 * What a subscriber hears about the listening connection (PostgreSQL: runtime/db/pg-listener.ts;
 * the embedded database never loses it). Notifications sent between the two calls are lost: on
 * `onResume`, read what may have changed from the tables.
 */
export interface ListenOptions {
  /** The connection was lost; it is being made again. */
  onLost?: () => void;
  /** Listening again after a loss. */
  onResume?: () => void;
}

export interface Db extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** Runs fn inside BEGIN/COMMIT; rolls back and rethrows on error. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Subscribes to a NOTIFY channel; returns an unsubscribe function. */
  listen(channel: string, handler: NotificationHandler, options?: ListenOptions): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}
