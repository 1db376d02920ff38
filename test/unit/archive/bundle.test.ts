import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  BundleFormatError,
  GZIP_OPTIONS,
  blockHashesOf,
  compressBundle,
  decodeBundle,
  decompressBundle,
  encodeBundle,
  sha256Hex,
} from "../../../runtime/archive/bundle.js";
import { readBundle } from "../../../runtime/archive/bundle-reader.js";
import { CHAIN_TABLES } from "../../../runtime/archive/chain-tables.js";
import { bundleChunks } from "../../../runtime/archive/partition-export.js";

/** `data` cut into pieces of `size` bytes (1 cuts inside every line and header). */
function* pieces(data: Buffer, size: number): Generator<Buffer> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

/** What readBundle hands on, section by section, collected whole. */
async function readAll(source: Iterable<Buffer> | AsyncIterable<Buffer>) {
  const sections: { table: string; rows: number; data: Buffer }[] = [];
  const read = await readBundle(source, {
    async section(table, rows, data) {
      const chunks: Buffer[] = [];
      for await (const c of data) chunks.push(c);
      sections.push({ table: table.name, rows, data: Buffer.concat(chunks) });
    },
  });
  return { read, sections };
}

const content = () => ({
  firstHeight: 10,
  lastHeight: 19,
  sections: CHAIN_TABLES.map((t, i) => ({
    table: t.name,
    rows: i,
    data: Buffer.from(Array.from({ length: i }, (_, r) => `0x${t.name.length}${r}\tvalue\\twith tab\n`).join("")),
  })),
});

describe("partition bundle", () => {
  it("round-trips and is deterministic", () => {
    const payload = encodeBundle(content());
    expect(decodeBundle(payload)).toEqual(content());
    const file = compressBundle(payload);
    expect(compressBundle(encodeBundle(content())).equals(file)).toBe(true);
    expect(decompressBundle(file).equals(payload)).toBe(true);
    expect(gunzipSync(file).equals(payload)).toBe(true); // plain gzip: any tool reads it
    expect(sha256Hex(file)).toBe(createHash("sha256").update(file).digest("hex"));
  });

  it("starts with the magic line and lists sections in table order", () => {
    const text = encodeBundle(content()).toString("utf8");
    expect(text.split("\n").slice(0, 3)).toEqual([
      "sluice-archive-bundle/1",
      '@partition {"first_height":10,"last_height":19}',
      "@table chain.burn_blocks rows=0 bytes=0",
    ]);
    expect(text.endsWith("@end\n")).toBe(true);
  });

  it("refuses truncated, padded, miscounted and foreign input", () => {
    const payload = encodeBundle(content());
    expect(() => decodeBundle(payload.subarray(0, payload.length - 10))).toThrow(BundleFormatError);
    expect(() => decodeBundle(Buffer.concat([payload, Buffer.from("x")]))).toThrow(/trailing/);
    expect(() => decodeBundle(Buffer.from(payload.toString().replace("rows=2", "rows=3")))).toThrow(/declares 3 rows/);
    expect(() => decodeBundle(Buffer.from("hello\n"))).toThrow(/not a sluice archive bundle/);
    expect(() => decompressBundle(Buffer.from("not gzip"))).toThrow(BundleFormatError);
  });

  it("reads the block hashes from the blocks section", () => {
    const c = content();
    const blocks = c.sections.find((s) => s.table === "chain.blocks");
    if (!blocks) throw new Error("no blocks section");
    blocks.data = Buffer.from("0xaa\t1\tx\n0xbb\t2\ty\n");
    expect(blockHashesOf(blocks.data)).toEqual(["0xaa", "0xbb"]);
  });
});

describe("partition bundle, streamed", () => {
  it("reads back every section and the content digest, however the bytes are cut", async () => {
    const payload = encodeBundle(content());
    for (const size of [1, 7, 64, payload.length]) {
      const { read, sections } = await readAll(pieces(payload, size));
      expect(sections).toEqual(content().sections);
      expect(read.contentSha256).toBe(createHash("sha256").update(payload).digest("hex"));
      expect([read.firstHeight, read.lastHeight]).toEqual([10, 19]);
      expect(read.rows).toEqual(Object.fromEntries(CHAIN_TABLES.map((t, i) => [t.name, i])));
    }
  });

  it("refuses truncated, padded, miscounted, cut-row and foreign input", async () => {
    const payload = encodeBundle(content());
    const text = payload.toString();
    await expect(readAll([payload.subarray(0, payload.length - 10)])).rejects.toThrow(BundleFormatError);
    await expect(readAll([payload, Buffer.from("x")])).rejects.toThrow(/trailing/);
    await expect(readAll([Buffer.from(text.replace("rows=2", "rows=3"))])).rejects.toThrow(/declares 3 rows/);
    // The same bytes, the last row's newline moved before the section's end: a row cut in two.
    const cut = text.replace(/with tab\n@table chain\.events/, "with ta\nb@table chain.events");
    await expect(readAll([Buffer.from(cut)])).rejects.toThrow(/ends inside a row|expected section/);
    await expect(readAll([Buffer.from("hello\n")])).rejects.toThrow(/not a sluice archive bundle/);
    await expect(readAll([Buffer.alloc(5000, 65)])).rejects.toThrow(/not a sluice archive bundle/);
  });

  it("streams from spooled sections the bytes of the whole-buffer encoding, gzip included", async () => {
    const c = content();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bundle-test-"));
    try {
      const sections = c.sections.map((s) => {
        const file = path.join(dir, s.table);
        fs.writeFileSync(file, s.data);
        return { table: s.table, rows: s.rows, bytes: s.data.length, file };
      });
      const exported = { firstHeight: c.firstHeight, lastHeight: c.lastHeight, sections, dir };
      const streamed: Buffer[] = [];
      for await (const chunk of bundleChunks(exported)) streamed.push(chunk);
      expect(Buffer.concat(streamed).equals(encodeBundle(c))).toBe(true);
      // The streaming compressor, fed in odd pieces, writes the bytes gzipSync does (digests stay stable).
      const gz: Buffer[] = [];
      await pipeline(Readable.from(pieces(Buffer.concat(streamed), 13)), createGzip(GZIP_OPTIONS), async (s) => {
        for await (const chunk of s) gz.push(chunk as Buffer);
      });
      expect(Buffer.concat(gz).equals(compressBundle(encodeBundle(c)))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
