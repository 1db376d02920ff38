/**
 * Consensus-serialized Clarity values straight to plain JSON (the shape of clarity-json.ts
 * `clarityToJson`), without building the library's value objects: print values and transaction
 * results are decoded for every block, and principals then hit the address cache.
 *
 * It accepts only what `@stacks/transactions`'s `deserializeCV` accepts and decodes to the same
 * JSON; anything unusual (bytes ending early, trailing bytes, an unknown type, a tuple key or
 * contract name the library refuses, an address version it cannot encode, sizes it rejects) makes
 * it throw `NotFast`, and the caller then takes the library path, so errors and edge cases stay
 * exactly the library's.
 */
import type { ClarityJson } from "../types.js";
import { c32Address } from "./address-cache.js";

/** This decoder does not vouch for the value: decode it with the library instead. */
export class NotFast extends Error {}

const notFast = new NotFast("left to the library decoder");
const utf8 = new TextDecoder();
/** The library's tuple-key rule (`isClarityName`). */
const CLARITY_NAME = /^[a-zA-Z]([a-zA-Z0-9]|[-_!?+<>=/*])*$|^[-+=/*]$|^[<>]=?$/;
const MAX_BUFFER = 1_048_576;
/** `String.fromCharCode.apply` (the library's ASCII decoding) fails on very long strings. */
const MAX_ASCII = 32_768;
const TWO_128 = 1n << 128n;
const NESTING = 64;

/** The JSON of one whole serialized value; throws NotFast when the library must decide. */
export function fastClarityJson(bytes: Uint8Array): ClarityJson {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = { buf, pos: 0 };
  const value = readValue(reader, 0);
  if (reader.pos !== buf.length) throw notFast;
  return value;
}

interface Reader {
  buf: Buffer;
  pos: number;
}

function take(r: Reader, n: number): number {
  const start = r.pos;
  if (n < 0 || start + n > r.buf.length) throw notFast;
  r.pos = start + n;
  return start;
}

function u32(r: Reader): number {
  return r.buf.readUInt32BE(take(r, 4));
}

function hex(r: Reader, n: number): string {
  const start = take(r, n);
  return r.buf.toString("hex", start, start + n);
}

function address(r: Reader): string {
  const version = r.buf[take(r, 1)];
  if (version >= 32) throw notFast;
  return c32Address(version, hex(r, 20));
}

function lengthPrefixedName(r: Reader): string {
  const length = r.buf[take(r, 1)];
  const start = take(r, length);
  for (let i = start; i < start + length; i++) if (r.buf[i] >= 0x80) throw notFast;
  return r.buf.toString("latin1", start, start + length);
}

function readValue(r: Reader, depth: number): ClarityJson {
  if (depth > NESTING) throw notFast;
  const type = r.buf[take(r, 1)];
  switch (type) {
    case 0x00: {
      const value = BigInt(`0x${hex(r, 16)}`);
      return String(value >= TWO_128 / 2n ? value - TWO_128 : value);
    }
    case 0x01:
      return BigInt(`0x${hex(r, 16)}`).toString();
    case 0x02: {
      const length = u32(r);
      if (length > MAX_BUFFER) throw notFast;
      return `0x${hex(r, length)}`;
    }
    case 0x03:
      return true;
    case 0x04:
      return false;
    case 0x05:
      return address(r);
    case 0x06: {
      const principal = address(r);
      const name = lengthPrefixedName(r);
      if (name.length >= 128) throw notFast;
      return `${principal}.${name}`;
    }
    case 0x07:
      return { ok: readValue(r, depth + 1) };
    case 0x08:
      return { err: readValue(r, depth + 1) };
    case 0x09:
      return null;
    case 0x0a:
      return readValue(r, depth + 1);
    case 0x0b: {
      const length = u32(r);
      if (length > r.buf.length - r.pos) throw notFast; // every element takes at least one byte
      const items: ClarityJson[] = new Array(length);
      for (let i = 0; i < length; i++) items[i] = readValue(r, depth + 1);
      return items;
    }
    case 0x0c: {
      const length = u32(r);
      if (length > r.buf.length - r.pos) throw notFast;
      const out: { [key: string]: ClarityJson } = {};
      for (let i = 0; i < length; i++) {
        const key = lengthPrefixedName(r);
        if (key.length >= 128 || !CLARITY_NAME.test(key)) throw notFast;
        out[key] = readValue(r, depth + 1);
      }
      return out;
    }
    case 0x0d: {
      const length = u32(r);
      if (length > MAX_ASCII) throw notFast;
      const start = take(r, length);
      return r.buf.toString("latin1", start, start + length);
    }
    case 0x0e: {
      const length = u32(r);
      const start = take(r, length);
      return utf8.decode(r.buf.subarray(start, start + length));
    }
    default:
      throw notFast;
  }
}
