/** PostgreSQL binary arrays (runtime/db/binary-array.ts): bytes written out by hand from array_recv's layout. */
import { describe, expect, it } from "vitest";
import { encodeArray } from "../../../runtime/db/binary-array.js";

const hex = (b: Buffer) => b.toString("hex");
/** Big-endian int32s as hex. */
const i32 = (...ns: number[]) => ns.map((n) => (n >>> 0).toString(16).padStart(8, "0")).join("");

describe("encodeArray", () => {
  it("writes int4 elements with a NULL and sets the has-null flag", () => {
    expect(hex(encodeArray("int4", [1, null, -2]))).toBe(i32(1, 1, 23, 3, 1, 4, 1, -1, 4, -2));
  });

  it("writes an empty array with no dimensions", () => {
    expect(hex(encodeArray("text", []))).toBe(i32(0, 0, 25));
  });

  it("writes text as UTF-8 bytes, numbers as their decimal text", () => {
    expect(hex(encodeArray("text", ["é", "", "𝔘", 42]))).toBe(
      i32(1, 0, 25, 4, 1) + i32(2) + "c3a9" + i32(0) + i32(4) + "f09d9498" + i32(2) + "3432",
    );
  });

  it("writes jsonb with its version byte, bytea as raw bytes, bool as one byte", () => {
    expect(hex(encodeArray("jsonb", ['{"a":1}']))).toBe(
      i32(1, 0, 3802, 1, 1, 8) + "01" + Buffer.from('{"a":1}').toString("hex"),
    );
    expect(hex(encodeArray("bytea", [Buffer.from([0, 255]), null]))).toBe(i32(1, 1, 17, 2, 1, 2) + "00ff" + i32(-1));
    expect(hex(encodeArray("bool", [true, false]))).toBe(i32(1, 0, 16, 2, 1, 1) + "01" + i32(1) + "00");
  });

  it("writes int8 beyond 32 bits", () => {
    expect(hex(encodeArray("int8", [2 ** 40 + 1]))).toBe(i32(1, 0, 20, 1, 1, 8) + "0000010000000001");
  });

  it("refuses values of the wrong kind", () => {
    expect(() => encodeArray("int4", [1.5])).toThrow(RangeError);
    expect(() => encodeArray("int4", [2 ** 31])).toThrow(RangeError);
    expect(() => encodeArray("bytea", ["00"])).toThrow(TypeError);
    expect(() => encodeArray("text", [{}])).toThrow(TypeError);
  });
});
