/**
 * One-dimensional PostgreSQL arrays in the binary wire format (array_recv), for bulk statements on
 * the `pg` driver: a Buffer parameter goes out in binary, so neither the driver (escaping each
 * element into an array literal) nor the server (parsing that literal back) touches the text form.
 * Pure, no I/O. A `numeric` column travels as `text` elements (cast in SQL: `$1::text[]::numeric[]`).
 *
 * Layout: ndim, has-null flag, element type oid, then per dimension (size, lower bound 1), then
 * each element as its byte length (-1: NULL) followed by its bytes.
 */

/** Element types this encoder writes, with their type oids. */
export const ELEMENT_OIDS = {
  bool: 16,
  bytea: 17,
  int8: 20,
  int4: 23,
  text: 25,
  jsonb: 3802,
} as const;

export type ElementType = keyof typeof ELEMENT_OIDS;

/** Bytes an element of a fixed-size type takes (others: computed from the value). */
const FIXED: Partial<Record<ElementType, number>> = { bool: 1, int4: 4, int8: 8 };

/**
 * The binary form of `values` as an array of `type`. Values: booleans (bool), whole numbers
 * (int4, int8), strings (text; jsonb: the JSON text), Uint8Arrays (bytea); null or undefined is NULL.
 */
export function encodeArray(type: ElementType, values: readonly unknown[]): Buffer {
  const n = values.length;
  const fixed = FIXED[type];
  let bound = 20 + 4 * n;
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      nulls++;
      continue;
    }
    if (fixed !== undefined) bound += fixed;
    else if (type === "bytea") bound += bytesOf(v).byteLength;
    else bound += 3 * stringOf(type, v).length + 1; // UTF-8 takes at most 3 bytes per UTF-16 unit
  }
  const buf = Buffer.allocUnsafe(bound);
  let pos = 0;
  buf.writeInt32BE(n === 0 ? 0 : 1, 0);
  buf.writeInt32BE(nulls > 0 ? 1 : 0, 4);
  buf.writeInt32BE(ELEMENT_OIDS[type], 8);
  pos = 12;
  if (n > 0) {
    buf.writeInt32BE(n, 12);
    buf.writeInt32BE(1, 16);
    pos = 20;
  }
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      buf.writeInt32BE(-1, pos);
      pos += 4;
      continue;
    }
    switch (type) {
      case "bool":
        buf.writeInt32BE(1, pos);
        buf[pos + 4] = v ? 1 : 0;
        pos += 5;
        break;
      case "int4":
        buf.writeInt32BE(4, pos);
        buf.writeInt32BE(wholeNumber(v, -0x80000000, 0x7fffffff), pos + 4);
        pos += 8;
        break;
      case "int8":
        buf.writeInt32BE(8, pos);
        buf.writeBigInt64BE(BigInt(wholeNumber(v, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)), pos + 4);
        pos += 12;
        break;
      case "bytea": {
        const bytes = bytesOf(v);
        buf.writeInt32BE(bytes.byteLength, pos);
        buf.set(bytes, pos + 4);
        pos += 4 + bytes.byteLength;
        break;
      }
      case "jsonb": {
        // jsonb_recv: a version byte (1), then the JSON text.
        buf[pos + 4] = 1;
        const written = buf.write(stringOf(type, v), pos + 5, "utf8");
        buf.writeInt32BE(written + 1, pos);
        pos += 5 + written;
        break;
      }
      case "text": {
        const written = buf.write(stringOf(type, v), pos + 4, "utf8");
        buf.writeInt32BE(written, pos);
        pos += 4 + written;
        break;
      }
    }
  }
  return buf.subarray(0, pos);
}

function stringOf(type: ElementType, v: unknown): string {
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  if (typeof v !== "string") throw new TypeError(`${type} array element must be a string, got ${typeof v}`);
  return v;
}

function bytesOf(v: unknown): Uint8Array {
  if (!(v instanceof Uint8Array)) throw new TypeError(`bytea array element must be bytes, got ${typeof v}`);
  return v;
}

function wholeNumber(v: unknown, min: number, max: number): number {
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw new RangeError(`array element ${String(v)} is not a whole number in [${min}, ${max}]`);
  }
  return n;
}
