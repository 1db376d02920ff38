/** Byte spans of consensus-serialized Clarity values, without decoding them (DESIGN.md §2):
 * lets the decoder keep contract-call arguments as the exact bytes the node sent. */

/** Nesting deeper than Clarity allows (its max value depth is 32) means garbage. */
const MAX_DEPTH = 64;

/**
 * Offset just past the Clarity value starting at `offset`. Throws when the bytes end early or
 * hold an unknown type id.
 */
export function clarityValueEnd(bytes: Uint8Array, offset: number, depth = 0): number {
  if (depth > MAX_DEPTH) throw new Error("Clarity value nested too deeply");
  const type = byteAt(bytes, offset);
  let pos = offset + 1;
  switch (type) {
    case 0x00: // int
    case 0x01: // uint
      pos += 16;
      break;
    case 0x02: // buffer
    case 0x0d: // string-ascii
    case 0x0e: // string-utf8
      pos += 4 + u32At(bytes, pos);
      break;
    case 0x03: // true
    case 0x04: // false
    case 0x09: // none
      break;
    case 0x05: // standard principal: version + hash160
      pos += 21;
      break;
    case 0x06: // contract principal: version + hash160 + length-prefixed name
      pos += 21;
      pos += 1 + byteAt(bytes, pos);
      break;
    case 0x07: // ok
    case 0x08: // err
    case 0x0a: // some
      pos = clarityValueEnd(bytes, pos, depth + 1);
      break;
    case 0x0b: {
      // list
      const n = u32At(bytes, pos);
      pos += 4;
      for (let i = 0; i < n; i++) pos = clarityValueEnd(bytes, pos, depth + 1);
      break;
    }
    case 0x0c: {
      // tuple: n × (length-prefixed name, value)
      const n = u32At(bytes, pos);
      pos += 4;
      for (let i = 0; i < n; i++) {
        pos += 1 + byteAt(bytes, pos);
        pos = clarityValueEnd(bytes, pos, depth + 1);
      }
      break;
    }
    default:
      throw new Error(`unknown Clarity type id ${type}`);
  }
  if (pos > bytes.length) throw new Error("truncated Clarity value");
  return pos;
}

function byteAt(bytes: Uint8Array, pos: number): number {
  if (pos >= bytes.length) throw new Error("truncated Clarity value");
  return bytes[pos];
}

function u32At(bytes: Uint8Array, pos: number): number {
  if (pos + 4 > bytes.length) throw new Error("truncated Clarity value");
  return ((bytes[pos] << 24) >>> 0) + (bytes[pos + 1] << 16) + (bytes[pos + 2] << 8) + bytes[pos + 3];
}
