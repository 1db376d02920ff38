/** Embedded PGlite driver (DESIGN.md §2): one in-process PostgreSQL in DATA_DIR, with pg_trgm. */
import { PGlite, types } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { SERVER_RANDOM_PAGE_COST_SQL, plannerSessionSettings } from "./planner-settings.js";
import { DEFAULT_PGLITE_SHARED_BUFFERS_MB, collectGarbage, needsInitdb, pgliteStartParams } from "./pglite-settings.js";
import type { Db, Queryable, QueryResult } from "./types.js";

const parsers = {
  [types.INT8]: (v: string) => v,
  [types.NUMERIC]: (v: string) => v,
};

/** Largest COPY text a stream hands to one COPY statement (copyFromStream). */
const COPY_BATCH_BYTES = 8 << 20;

/**
 * Opens (or creates) an embedded database; `dataDir` undefined means in-memory. `snapshot`, a data
 * directory PGlite dumped, is where a new database starts instead of an empty cluster (the test
 * suite starts from a migrated one: initdb takes seconds).
 */
/** `COPY … FROM STDIN` / `TO STDOUT` → the same through PGlite's blob device. */
function toBlobDevice(sql: string): string {
  const out = sql.replace(/\bFROM\s+STDIN\b/i, "FROM '/dev/blob'").replace(/\bTO\s+STDOUT\b/i, "TO '/dev/blob'");
  if (out === sql) throw new Error("COPY statement without FROM STDIN or TO STDOUT");
  return out;
}

export async function createPgliteDb(
  dataDir: string | undefined,
  snapshot?: Blob,
  { sharedBuffersMb = DEFAULT_PGLITE_SHARED_BUFFERS_MB }: { sharedBuffersMb?: number } = {},
): Promise<Db> {
  const initdb = snapshot === undefined && needsInitdb(dataDir);
  const pg = await PGlite.create({
    dataDir,
    loadDataDir: snapshot,
    extensions: { pg_trgm },
    parsers,
    startParams: pgliteStartParams(PGlite.defaultStartParams, sharedBuffersMb),
  });
  if (initdb) collectGarbage();
  const { rows } = await pg.query<{ cost: string }>(SERVER_RANDOM_PAGE_COST_SQL);
  for (const [name, value] of Object.entries(plannerSessionSettings(rows[0].cost))) {
    await pg.exec(`SET ${name} = ${value}`);
  }
  const wrap = (q: { query: PGlite["query"]; exec: PGlite["exec"] }): Queryable => ({
    async exec(sql: string) {
      await q.exec(sql);
    },
    async query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
      const res = await q.query<T>(sql, params as unknown[]);
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    // PGlite has no COPY protocol stream: STDIN/STDOUT are its /dev/blob device.
    async copyFrom(sql: string, data: Uint8Array) {
      const res = await q.query(toBlobDevice(sql), [], { blob: new Blob([data]) });
      return res.affectedRows ?? 0;
    },
    // A stream is loaded in several COPYs of whole rows, each at most COPY_BATCH_BYTES (plus one
    // row): the device takes a whole blob, and memory must not grow with the stream.
    async copyFromStream(sql: string, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) {
      const device = toBlobDevice(sql);
      let rows = 0;
      let held: Buffer[] = [];
      let heldBytes = 0;
      const flush = async (upTo: number) => {
        const all = Buffer.concat(held, heldBytes);
        const res = await q.query(device, [], { blob: new Blob([all.subarray(0, upTo)]) });
        rows += res.affectedRows ?? 0;
        const rest = all.subarray(upTo);
        held = rest.length ? [Buffer.from(rest)] : [];
        heldBytes = rest.length;
      };
      for await (const chunk of chunks) {
        held.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        heldBytes += chunk.byteLength;
        if (heldBytes >= COPY_BATCH_BYTES) {
          const all = Buffer.concat(held, heldBytes);
          held = [all];
          const cut = all.lastIndexOf(10) + 1;
          if (cut > 0) await flush(cut);
        }
      }
      if (heldBytes > 0) await flush(heldBytes);
      return rows;
    },
    async copyTo(sql: string) {
      const res = await q.query(toBlobDevice(sql));
      return res.blob ? Buffer.from(await res.blob.arrayBuffer()) : Buffer.alloc(0);
    },
  });
  const base = wrap(pg);
  return {
    kind: "pglite",
    query: base.query,
    exec: base.exec,
    copyFrom: base.copyFrom,
    copyTo: base.copyTo,
    copyFromStream: base.copyFromStream,
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    async listen(channel, handler) {
      const unsub = await pg.listen(channel, handler);
      return async () => unsub();
    },
    async notify(channel, payload) {
      await pg.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    close: () => pg.close(),
  };
}
