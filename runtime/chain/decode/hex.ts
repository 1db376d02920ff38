/** Strict hex helpers shared by the observer payload decoders (DESIGN.md §2 "decode"). */

const HASH32 = /^0x[0-9a-fA-F]{64}$/;

/** True for `0x` followed by exactly 64 hex digits (block hashes, txids). */
export function isHash32(value: unknown): value is string {
  return typeof value === "string" && HASH32.test(value);
}

/**
 * Bytes of a `0x`-prefixed (or bare) even-length hex string. Throws an Error naming what was
 * wrong; unlike `@stacks/common`'s hexToBytes it rejects odd lengths and non-hex digits.
 */
export function hexToBytesStrict(hex: string): Uint8Array {
  const body = hex.startsWith("0x") || hex.startsWith("0X") ? hex.slice(2) : hex;
  if (body.length % 2 === 1) throw new Error("odd number of hex digits");
  // Buffer.from stops at the first pair that is not hex: a short result means a bad digit.
  const buf = Buffer.from(body, "hex");
  if (buf.length * 2 !== body.length) throw new Error(`non-hex character near offset ${buf.length * 2}`);
  // A plain Uint8Array view (no copy): the library code only needs Uint8Array semantics.
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** `0x` + lowercase hex of the given bytes. */
export function bytesToHex0x(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex")}`;
}
