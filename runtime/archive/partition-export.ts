/**
 * Reads one partition's rows out of an instance's database as bundle content (publish and
 * verify), with memory bounded whatever the partition's size: each table's COPY text is spooled
 * to a scratch file as the server sends it (a section's byte count heads it in the bundle, so it
 * must be known before its bytes are written), then the bundle is streamed from the files.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Db, Queryable } from "../db/types.js";
import { BUNDLE_END, bundleHead, sectionHead } from "./bundle.js";
import { CHAIN_TABLES, type ChainTable, exportSlices, exportSql, type PartitionRange } from "./chain-tables.js";

export interface SpooledSection {
  table: ChainTable["name"];
  rows: number;
  bytes: number;
  file: string;
}

export interface ExportedPartition {
  firstHeight: number;
  lastHeight: number;
  sections: SpooledSection[];
  /** The scratch files' directory: remove it with `discard`. */
  dir: string;
}

/** Spools every section of a partition; the caller streams it (`bundleChunks`) and then discards it. */
export async function exportPartition(q: Queryable, range: PartitionRange): Promise<ExportedPartition> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "sluice-archive-export-"));
  const exported: ExportedPartition = {
    firstHeight: range.firstHeight,
    lastHeight: range.lastHeight,
    sections: [],
    dir,
  };
  try {
    for (const table of CHAIN_TABLES) exported.sections.push(await spoolSection(q, table, range, dir));
    return exported;
  } catch (err) {
    await discard(exported);
    throw err;
  }
}

export async function discard(exported: ExportedPartition): Promise<void> {
  await fs.promises.rm(exported.dir, { recursive: true, force: true });
}

async function spoolSection(
  q: Queryable,
  table: ChainTable,
  range: PartitionRange,
  dir: string,
): Promise<SpooledSection> {
  const file = path.join(dir, `${table.name}.copy`);
  const out = await fs.promises.open(file, "w");
  let rows = 0;
  let bytes = 0;
  const write = async (chunk: Buffer) => {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) rows++;
    bytes += chunk.length;
    await out.write(chunk);
  };
  try {
    if (q.copyToStream) {
      await q.copyToStream(exportSql(table, range), write);
    } else if (q.copyTo) {
      // A driver that returns a COPY's output whole (PGlite) reads the partition in height slices.
      for (const slice of await exportSlices(q, table, range)) await write(await q.copyTo(exportSql(table, slice)));
    } else {
      throw new Error("this database driver has no COPY path");
    }
  } finally {
    await out.close();
  }
  return { table: table.name, rows, bytes, file };
}

/** The uncompressed bundle, streamed from the spooled sections. */
export async function* bundleChunks(exported: ExportedPartition): AsyncGenerator<Buffer> {
  yield bundleHead(exported.firstHeight, exported.lastHeight);
  for (const s of exported.sections) {
    yield sectionHead(s.table, s.rows, s.bytes);
    for await (const chunk of fs.createReadStream(s.file, { highWaterMark: 1 << 20 })) yield chunk as Buffer;
  }
  yield BUNDLE_END;
}

/** Passes chunks through, adding each to `hash` (and counting them in `count.bytes`). */
export async function* hashing(
  chunks: AsyncIterable<Uint8Array>,
  hash: ReturnType<typeof createHash>,
  count?: { bytes: number },
): AsyncGenerator<Buffer> {
  for await (const c of chunks) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    hash.update(b);
    if (count) count.bytes += b.length;
    yield b;
  }
}

/** The content digest of an exported partition (what verify compares with the manifest). */
export async function contentSha256(exported: ExportedPartition): Promise<string> {
  const hash = createHash("sha256");
  for await (const _ of hashing(bundleChunks(exported), hash));
  return hash.digest("hex");
}

/** One consistent snapshot for a read of several statements (PostgreSQL: repeatable read). */
export async function inSnapshot<T>(db: Db, fn: (q: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (q) => {
    if (db.kind === "postgres") await q.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    return fn(q);
  });
}
