/**
 * Fast consensus serialization of @stacks/transactions Clarity values to hex (byte-identical to
 * `serializeCV`, which tests check), plus the plain-JSON view of DESIGN.md §3 for ground truth.
 * `serializeCV` re-decodes c32 addresses on every call; here principals are encoded once and cached.
 */
import { type BufferCV, type ClarityValue, ClarityType, type PrincipalCV, serializeCV } from "@stacks/transactions";
import type { ClarityJson } from "../chain/types.js";

const principalHexCache = new Map<string, string>();

/** Consensus bytes of `cv` as lowercase hex without 0x. */
export function cvHex(cv: ClarityValue): string {
  switch (cv.type) {
    case ClarityType.UInt:
      return `01${uint128Hex(BigInt(cv.value))}`;
    case ClarityType.Int:
      return `00${uint128Hex(BigInt.asUintN(128, BigInt(cv.value)))}`;
    case ClarityType.Buffer:
      return `02${u32Hex(cv.value.length / 2)}${cv.value}`;
    case ClarityType.BoolTrue:
      return "03";
    case ClarityType.BoolFalse:
      return "04";
    case ClarityType.PrincipalStandard:
    case ClarityType.PrincipalContract:
      return principalHex(cv.value);
    case ClarityType.ResponseOk:
      return `07${cvHex(cv.value)}`;
    case ClarityType.ResponseErr:
      return `08${cvHex(cv.value)}`;
    case ClarityType.OptionalNone:
      return "09";
    case ClarityType.OptionalSome:
      return `0a${cvHex(cv.value)}`;
    case ClarityType.List: {
      let out = `0b${u32Hex(cv.value.length)}`;
      for (const item of cv.value) out += cvHex(item);
      return out;
    }
    case ClarityType.Tuple: {
      const names = Object.keys(cv.value).sort(compareBytes);
      let out = `0c${u32Hex(names.length)}`;
      for (const name of names) out += `${u8Hex(name.length)}${asciiHex(name)}${cvHex(cv.value[name])}`;
      return out;
    }
    case ClarityType.StringASCII:
      return `0d${u32Hex(cv.value.length)}${asciiHex(cv.value)}`;
    case ClarityType.StringUTF8: {
      const bytes = Buffer.from(cv.value, "utf8");
      return `0e${u32Hex(bytes.length)}${bytes.toString("hex")}`;
    }
  }
}

/** `cvHex` with the 0x prefix, as the node writes `raw_value` / `raw_result`. */
export function cvRaw(cv: ClarityValue): string {
  return `0x${cvHex(cv)}`;
}

/** A principal (`ST…` or `ST….name`) as a Clarity value's hex; the library encodes it once. */
export function principalHex(principal: string): string {
  let hex = principalHexCache.get(principal);
  if (hex === undefined) {
    const [address, name] = principal.split(".");
    const cv: ClarityValue = name
      ? { type: ClarityType.PrincipalContract, value: `${address}.${name}` }
      : { type: ClarityType.PrincipalStandard, value: address };
    hex = serializeCV(cv);
    principalHexCache.set(principal, hex);
  }
  return hex;
}

/** A buffer value straight from hex, skipping the bytes round trip of `Cl.bufferFromHex`. */
export function bufferFromHex(hex: string): BufferCV {
  return { type: ClarityType.Buffer, value: hex.toLowerCase() };
}

/** A principal value for an address the library already produced (skips `Cl.principal`'s c32 re-check). */
export function principalCv(principal: string): PrincipalCV {
  return principal.includes(".")
    ? { type: ClarityType.PrincipalContract, value: principal as `${string}.${string}` }
    : { type: ClarityType.PrincipalStandard, value: principal };
}

/** DESIGN.md §3 plain JSON: tuple → object, u/int → decimal string, buffer → 0x-hex, optional → value|null. */
export function cvToPlainJson(cv: ClarityValue): ClarityJson {
  switch (cv.type) {
    case ClarityType.UInt:
    case ClarityType.Int:
      return BigInt(cv.value).toString();
    case ClarityType.Buffer:
      return `0x${cv.value}`;
    case ClarityType.BoolTrue:
      return true;
    case ClarityType.BoolFalse:
      return false;
    case ClarityType.PrincipalStandard:
    case ClarityType.PrincipalContract:
    case ClarityType.StringASCII:
    case ClarityType.StringUTF8:
      return cv.value;
    case ClarityType.ResponseOk:
      return { ok: cvToPlainJson(cv.value) };
    case ClarityType.ResponseErr:
      return { err: cvToPlainJson(cv.value) };
    case ClarityType.OptionalNone:
      return null;
    case ClarityType.OptionalSome:
      return cvToPlainJson(cv.value);
    case ClarityType.List:
      return cv.value.map(cvToPlainJson);
    case ClarityType.Tuple: {
      const out: { [key: string]: ClarityJson } = {};
      for (const name of Object.keys(cv.value).sort(compareBytes)) out[name] = cvToPlainJson(cv.value[name]);
      return out;
    }
  }
}

const HEX_BYTE: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function u8Hex(n: number): string {
  return HEX_BYTE[n & 0xff];
}

export function u32Hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}

/** Unsigned 64-bit big-endian hex (nonce, fee, amounts in payloads). */
export function u64Hex(n: number | bigint): string {
  return BigInt(n).toString(16).padStart(16, "0");
}

function uint128Hex(n: bigint): string {
  return n.toString(16).padStart(32, "0");
}

/** Hex of an ASCII string's bytes. */
export function asciiHex(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) out += HEX_BYTE[text.charCodeAt(i) & 0xff];
  return out;
}

/** Clarity orders tuple keys by their bytes (names are ASCII). */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
