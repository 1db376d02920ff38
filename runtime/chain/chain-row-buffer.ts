/**
 * Chain rows of a transaction's blocks, written several blocks to a statement (block-store.ts
 * insertBlocksRows) instead of one statement per block: on a multi-block import transaction the
 * per-block round trip was the largest share of the database's time.
 *
 * The transaction's other statements go through `queryable`, which sends the waiting rows first:
 * every statement sees exactly the rows it saw when each block was inserted on its own (a reorg's
 * ancestry walk, a hook reading a deployed contract, the tip's finality query). A send is not
 * awaited: the connection runs statements in issue order, so the hooks' computing overlaps the
 * server's insert. A failed insert is the error the next statement (or `drain`) reports: the
 * statements after it failed only because the transaction was aborted.
 */
import type { Queryable, QueryResult } from "../db/types.js";
import { type BlockRows, insertBlocksRows, type ParamEncoding } from "./block-store.js";

/** Rows are sent once this many events wait (bounds a statement's size and memory). */
const SEND_EVENTS = 4_000;

export interface ChainRowBuffer {
  /** The transaction's connection, sending waiting chain rows before each statement. */
  readonly queryable: Queryable;
  /** Queues a block's chain rows (sent with later blocks', before the next statement, or at `drain`). */
  add(block: BlockRows["block"], canonical: boolean): void;
  /** Sends what waits and waits for every insert; throws the first insert's failure. */
  drain(): Promise<void>;
}

/** `encoding`: how the inserts' parameters travel (block-store.ts ParamEncoding). */
export function createChainRowBuffer(q: Queryable, encoding: ParamEncoding = "text"): ChainRowBuffer {
  let waiting: BlockRows[] = [];
  let waitingEvents = 0;
  const sent: Promise<void>[] = [];
  let failure: { error: unknown } | null = null;

  const send = () => {
    if (waiting.length === 0) return;
    const blocks = waiting;
    waiting = [];
    waitingEvents = 0;
    const insert = insertBlocksRows(q, blocks, encoding).catch((error) => {
      failure ??= { error };
    });
    sent.push(insert);
  };

  /** Runs a statement after the waiting rows; an insert's failure wins over the statement's. */
  const after = async <T>(run: () => Promise<T>): Promise<T> => {
    send();
    try {
      const result = await run();
      if (failure) throw failure.error;
      return result;
    } catch (err) {
      await Promise.all(sent);
      throw failure ? failure.error : err;
    }
  };

  const { copyFrom, copyFromStream, copyTo, copyToStream } = q;
  const queryable: Queryable = {
    query: <T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> => after(() => q.query<T>(sql, params)),
    exec: (sql: string) => after(() => q.exec(sql)),
    ...(copyFrom && { copyFrom: (sql: string, data: Uint8Array) => after(() => copyFrom.call(q, sql, data)) }),
    ...(copyFromStream && {
      copyFromStream: (sql: string, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) =>
        after(() => copyFromStream.call(q, sql, chunks)),
    }),
    ...(copyTo && { copyTo: (sql: string) => after(() => copyTo.call(q, sql)) }),
    ...(copyToStream && {
      copyToStream: (sql: string, onChunk: (chunk: Buffer) => Promise<void> | void) =>
        after(() => copyToStream.call(q, sql, onChunk)),
    }),
  };

  return {
    queryable,
    add(block, canonical) {
      waiting.push({ block, canonical });
      waitingEvents += block.events.length;
      if (waitingEvents >= SEND_EVENTS) send();
    },
    async drain() {
      send();
      await Promise.all(sent);
      sent.length = 0;
      if (failure) throw failure.error;
    },
  };
}
