/**
 * The partition bundle (docs/archive-format.md), pure: framing of COPY-text sections, gzip, and
 * the digests. Same rows in → same bytes out (fixed section order, fixed gzip level, no
 * timestamps), so a digest names a partition's content.
 *
 *   sluice-archive-bundle/1\n
 *   @partition {"first_height":0,"last_height":9999}\n
 *   @table chain.burn_blocks rows=N bytes=B\n<B bytes of COPY text>
 *   … one @table per chain table, in CHAIN_TABLES order …
 *   @end\n
 */
import { createHash } from "node:crypto";
import { constants, gunzipSync, gzipSync } from "node:zlib";
import { CHAIN_TABLES, type ChainTable } from "./chain-tables.js";

export const BUNDLE_MAGIC = "sluice-archive-bundle/1";
/** gzip level: measured against 1 and 9 (docs/archive-format.md "Encoding"). */
export const GZIP_LEVEL = 6;

export interface BundleSection {
  table: ChainTable["name"];
  rows: number;
  /** COPY text format, one row per line. */
  data: Buffer;
}

export interface BundleContent {
  firstHeight: number;
  lastHeight: number;
  sections: BundleSection[];
}

export class BundleFormatError extends Error {}

export function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Rows in COPY text: one per line (newlines inside values are escaped as \n). */
export function countRows(copyText: Uint8Array): number {
  const buf = Buffer.isBuffer(copyText)
    ? copyText
    : Buffer.from(copyText.buffer, copyText.byteOffset, copyText.byteLength);
  let n = 0;
  // indexOf is native: a byte-by-byte loop in JavaScript took longer than the COPY itself.
  for (let at = buf.indexOf(10); at !== -1; at = buf.indexOf(10, at + 1)) n++;
  return n;
}

/** The magic line and the @partition line. */
export function bundleHead(firstHeight: number, lastHeight: number): Buffer {
  return Buffer.from(
    `${BUNDLE_MAGIC}\n@partition ${JSON.stringify({ first_height: firstHeight, last_height: lastHeight })}\n`,
  );
}

/** The line before a section's bytes. */
export function sectionHead(table: ChainTable["name"], rows: number, bytes: number): Buffer {
  return Buffer.from(`@table ${table} rows=${rows} bytes=${bytes}\n`);
}

export const BUNDLE_END = Buffer.from("@end\n");

/** A whole bundle in memory (tests and small tools; publish streams the same bytes, partition-export.ts). */
export function encodeBundle(content: BundleContent): Buffer {
  const parts: Buffer[] = [bundleHead(content.firstHeight, content.lastHeight)];
  const byName = new Map(content.sections.map((s) => [s.table, s]));
  for (const t of CHAIN_TABLES) {
    const s = byName.get(t.name);
    if (s === undefined) throw new Error(`bundle lacks ${t.name}`);
    parts.push(sectionHead(t.name, s.rows, s.data.length), s.data);
  }
  parts.push(BUNDLE_END);
  return Buffer.concat(parts);
}

/** gzip options of a bundle file, the same for the whole-buffer and the streaming compressor. */
export const GZIP_OPTIONS = { level: GZIP_LEVEL, memLevel: 8, strategy: constants.Z_DEFAULT_STRATEGY } as const;

export function compressBundle(payload: Uint8Array): Buffer {
  return gzipSync(payload, GZIP_OPTIONS);
}

export function decompressBundle(file: Uint8Array): Buffer {
  try {
    return gunzipSync(file);
  } catch (err) {
    throw new BundleFormatError(`not a gzip stream: ${(err as Error).message}`);
  }
}

/** Parses an uncompressed bundle; every section is checked against its declared size and rows. */
export function decodeBundle(payload: Buffer): BundleContent {
  let pos = 0;
  const line = (): string => {
    const end = payload.indexOf(10, pos);
    if (end < 0) throw new BundleFormatError("truncated bundle");
    const text = payload.subarray(pos, end).toString("utf8");
    pos = end + 1;
    return text;
  };
  if (line() !== BUNDLE_MAGIC) throw new BundleFormatError("not a sluice archive bundle");
  const head = line();
  if (!head.startsWith("@partition ")) throw new BundleFormatError("missing @partition line");
  const meta = JSON.parse(head.slice("@partition ".length)) as { first_height: number; last_height: number };
  const sections: BundleSection[] = [];
  for (const t of CHAIN_TABLES) {
    const m = /^@table (\S+) rows=(\d+) bytes=(\d+)$/.exec(line());
    if (!m || m[1] !== t.name) throw new BundleFormatError(`expected section ${t.name}`);
    const bytes = Number(m[3]);
    if (pos + bytes > payload.length) throw new BundleFormatError(`section ${t.name} is truncated`);
    const data = payload.subarray(pos, pos + bytes);
    pos += bytes;
    const rows = Number(m[2]);
    if (countRows(data) !== rows) throw new BundleFormatError(`section ${t.name} declares ${rows} rows`);
    sections.push({ table: t.name, rows, data });
  }
  if (line() !== "@end" || pos !== payload.length) throw new BundleFormatError("trailing data after @end");
  return { firstHeight: meta.first_height, lastHeight: meta.last_height, sections };
}

/** The index_block_hash of every row of a chain.blocks section (its first column). */
export function blockHashesOf(blocksSection: Uint8Array): string[] {
  if (blocksSection.length === 0) return [];
  return Buffer.from(blocksSection.buffer, blocksSection.byteOffset, blocksSection.byteLength)
    .toString("utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.slice(0, l.indexOf("\t")));
}
