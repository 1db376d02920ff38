/** PostgreSQL driver via `pg` (DESIGN.md §2 "scale-out"): a pool plus one listener connection (pg-listener.ts). */
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import pg from "pg";
import { from as copyFromStream, to as copyToStream } from "pg-copy-streams";
import { SERVER_RANDOM_PAGE_COST_SQL, plannerSessionSettings, startupOptions } from "./planner-settings.js";
import { PreparedStatementPolicy } from "./prepared-statements.js";
import { createPgListener } from "./pg-listener.js";
import type { Db, Queryable, QueryResult } from "./types.js";

const typeParsers = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    // int8 (20) and numeric (1700) stay strings: amounts exceed 2^53.
    if (oid === 20 || oid === 1700) return (v: string) => v;
    return pg.types.getTypeParser(oid, format);
  },
};

export interface PostgresDbOptions {
  /** Gives up on a connection not established within this many ms (pg's default: wait forever). */
  connectTimeoutMs?: number;
}

export async function createPostgresDb(
  connectionString: string,
  poolSize = 10,
  { connectTimeoutMs }: PostgresDbOptions = {},
): Promise<Db> {
  const timeout = connectTimeoutMs === undefined ? {} : { connectionTimeoutMillis: connectTimeoutMs };
  // One short connection first: fails fast with a clear error when unreachable, and reads the
  // server's planner setting (planner-settings.ts).
  const probe = new pg.Client({ connectionString, ...timeout });
  probe.on("error", () => {});
  await probe.connect();
  let settings: Record<string, string>;
  try {
    const { rows } = await probe.query<{ cost: string }>(SERVER_RANDOM_PAGE_COST_SQL);
    settings = plannerSessionSettings(rows[0].cost);
  } finally {
    await probe.end().catch(() => {});
  }
  // Startup options of every pooled session, unless the URL sets its own.
  const options = /[?&]options=/.test(connectionString) ? undefined : startupOptions(settings);
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    ...timeout,
    types: typeParsers as pg.CustomTypesConfig,
    ...(options === undefined ? {} : { options }),
  });
  pool.on("error", () => {}); // idle-client errors surface on the next query instead

  const prepared = new PreparedStatementPolicy();
  const wrap = (client: pg.Pool | pg.PoolClient): Queryable => {
    // A transaction's statements may be issued before the previous one answered (the ingestor
    // overlaps a block's insert with its hooks): they wait their turn here, in issue order, as pg
    // would itself (it deprecates doing so). The pool hands each query its own connection.
    const inTurn = client instanceof pg.Pool ? <T>(run: () => Promise<T>) => run() : turnTaker();
    return {
      async exec(sql: string) {
        await inTurn(() => client.query(sql)); // no parameters: simple protocol, several statements allowed
      },
      async query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
        const name = prepared.nameFor(sql);
        const res = await inTurn(() =>
          name === undefined
            ? client.query(sql, params as unknown[])
            : client.query({ name, text: sql, values: params ?? [] }),
        );
        return { rows: res.rows as T[], rowCount: res.rowCount ?? res.rows.length };
      },
      copyFrom: (sql: string, data: Uint8Array) =>
        inTurn(() =>
          withClient(client, async (c) => {
            const stream = c.query(copyFromStream(sql));
            await pipeline(Readable.from([Buffer.from(data.buffer, data.byteOffset, data.byteLength)]), stream);
            return stream.rowCount ?? 0;
          }),
        ),
      copyFromStream: (sql: string, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) =>
        inTurn(() =>
          withClient(client, async (c) => {
            const stream = c.query(copyFromStream(sql));
            await pipeline(Readable.from(chunks, { objectMode: false }), stream);
            return stream.rowCount ?? 0;
          }),
        ),
      copyToStream: (sql: string, onChunk: (chunk: Buffer) => Promise<void> | void) =>
        inTurn(() =>
          withClient(client, async (c) => {
            let bytes = 0;
            for await (const chunk of c.query(copyToStream(sql))) {
              bytes += (chunk as Buffer).length;
              await onChunk(chunk as Buffer);
            }
            return bytes;
          }),
        ),
      copyTo: (sql: string) =>
        inTurn(() =>
          withClient(client, async (c) => {
            const chunks: Buffer[] = [];
            for await (const chunk of c.query(copyToStream(sql))) chunks.push(chunk as Buffer);
            return Buffer.concat(chunks);
          }),
        ),
    };
  };

  /** Runs calls one after another in the order they were made (a failed call does not stop the next). */
  function turnTaker() {
    let last: Promise<unknown> = Promise.resolve();
    return <T>(run: () => Promise<T>): Promise<T> => {
      const mine = last.then(run); // `last` never rejects
      last = mine.catch(() => {});
      return mine;
    };
  }

  /** COPY needs one connection: the transaction's own, or one borrowed from the pool. */
  async function withClient<T>(client: pg.Pool | pg.PoolClient, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    if (!(client instanceof pg.Pool)) return fn(client);
    const c = await client.connect();
    try {
      return await fn(c);
    } finally {
      c.release();
    }
  }

  const listener = createPgListener(connectionString, timeout);

  const base = wrap(pool);
  return {
    kind: "postgres",
    query: base.query,
    exec: base.exec,
    copyFrom: base.copyFrom,
    copyTo: base.copyTo,
    copyFromStream: base.copyFromStream,
    copyToStream: base.copyToStream,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn(wrap(client));
        await client.query("COMMIT");
        return result;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    listen: (channel, handler, listenOptions) => listener.listen(channel, handler, listenOptions),
    async notify(channel, payload) {
      await pool.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    async close() {
      await listener.close();
      await pool.end();
    },
  };
}
