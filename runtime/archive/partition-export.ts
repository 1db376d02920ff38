/** Reads one partition's rows out of an instance's database as bundle content (publish and verify). */
import type { Db, Queryable } from "../db/types.js";
import { type BundleContent, encodeBundle, sha256Hex, countRows } from "./bundle.js";
import { CHAIN_TABLES, exportSql, type PartitionRange } from "./chain-tables.js";

export interface ExportedPartition {
  content: BundleContent;
  /** The uncompressed bundle. */
  payload: Buffer;
  contentSha256: string;
}

export async function exportPartition(q: Queryable, range: PartitionRange): Promise<ExportedPartition> {
  if (!q.copyTo) throw new Error("this database driver has no COPY path");
  const sections = [];
  for (const table of CHAIN_TABLES) {
    const data = await q.copyTo(exportSql(table, range));
    sections.push({ table: table.name, rows: countRows(data), data });
  }
  const content = { firstHeight: range.firstHeight, lastHeight: range.lastHeight, sections };
  const payload = encodeBundle(content);
  return { content, payload, contentSha256: sha256Hex(payload) };
}

/** One consistent snapshot for a read of several statements (PostgreSQL: repeatable read). */
export async function inSnapshot<T>(db: Db, fn: (q: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (q) => {
    if (db.kind === "postgres") await q.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    return fn(q);
  });
}
