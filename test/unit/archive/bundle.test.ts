import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  BundleFormatError,
  blockHashesOf,
  compressBundle,
  decodeBundle,
  decompressBundle,
  encodeBundle,
  sha256Hex,
} from "../../../runtime/archive/bundle.js";
import { CHAIN_TABLES } from "../../../runtime/archive/chain-tables.js";

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
    blocks.rows = 2;
    expect(blockHashesOf(c)).toEqual(["0xaa", "0xbb"]);
  });
});
