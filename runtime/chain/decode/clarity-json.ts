/** Clarity values → plain JSON and a small type signature (DESIGN.md §3, print decoding). */
import { BytesReader, type ClarityValue, ClarityType, deserializeCV } from "@stacks/transactions";
import type { ClarityJson } from "../types.js";
import { fastClarityJson, NotFast } from "./clarity-fast-json.js";
import { hexToBytesStrict } from "./hex.js";

/**
 * A Clarity value as plain JSON: tuple → object keyed by the Clarity names, int/uint → decimal
 * string, buffer → 0x-hex, none → null, some → the inner value, ok/err → {ok}/{err},
 * list → array, principal/string → string, bool → boolean.
 */
export function clarityToJson(cv: ClarityValue): ClarityJson {
  switch (cv.type) {
    case ClarityType.Int:
    case ClarityType.UInt:
      return String(cv.value);
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
    case ClarityType.OptionalNone:
      return null;
    case ClarityType.OptionalSome:
      return clarityToJson(cv.value);
    case ClarityType.ResponseOk:
      return { ok: clarityToJson(cv.value) };
    case ClarityType.ResponseErr:
      return { err: clarityToJson(cv.value) };
    case ClarityType.List: {
      const items = cv.value;
      const out: ClarityJson[] = new Array(items.length);
      for (let i = 0; i < items.length; i++) out[i] = clarityToJson(items[i]);
      return out;
    }
    case ClarityType.Tuple: {
      const out: { [key: string]: ClarityJson } = {};
      for (const key of Object.keys(cv.value)) setOwn(out, key, clarityToJson(cv.value[key]));
      return out;
    }
    default:
      throw new Error(`unknown Clarity type ${String((cv as { type: unknown }).type)}`);
  }
}

/**
 * Deserializes one consensus-serialized Clarity value (0x-hex) with `@stacks/transactions`.
 * Throws an Error saying why when the hex is bad, the value is unknown/truncated, or bytes
 * are left over after the value.
 */
export function decodeClarityValue(hex: string): ClarityValue {
  const bytes = hexToBytesStrict(hex);
  if (bytes.length === 0) throw new Error("empty Clarity value");
  const reader = new BytesReader(bytes);
  const cv = deserializeCV(reader);
  // BytesReader hands out short slices past the end instead of failing: detect it here.
  if (reader.readOffset > bytes.length) throw new Error("truncated Clarity value");
  if (reader.readOffset < bytes.length) {
    throw new Error(`${bytes.length - reader.readOffset} trailing byte(s) after the Clarity value`);
  }
  return cv;
}

/** `clarityToJson(decodeClarityValue(hex))`, straight from the bytes when clarity-fast-json.ts vouches for them. */
export function decodeClarityHex(hex: string): ClarityJson {
  const bytes = hexToBytesStrict(hex);
  try {
    return fastClarityJson(bytes);
  } catch (err) {
    if (!(err instanceof NotFast)) throw err;
  }
  return clarityToJson(decodeClarityValue(hex));
}

/**
 * The Clarity type of a value, as JSON. A part that one value cannot tell (the inner type of a
 * `none`, the other branch of a response, the element type of an empty list) is `null`.
 */
export type ClarityTypeSignature =
  | { type: "int" | "uint" | "bool" | "buffer" | "string-ascii" | "string-utf8" | "principal" }
  | { type: "optional"; inner: ClarityTypeSignature | null }
  | { type: "response"; ok: ClarityTypeSignature | null; err: ClarityTypeSignature | null }
  | { type: "list"; element: ClarityTypeSignature | null }
  | { type: "tuple"; fields: { [key: string]: ClarityTypeSignature } };

const INT_SIG: ClarityTypeSignature = { type: "int" };
const UINT_SIG: ClarityTypeSignature = { type: "uint" };
const BOOL_SIG: ClarityTypeSignature = { type: "bool" };
const BUFFER_SIG: ClarityTypeSignature = { type: "buffer" };
const ASCII_SIG: ClarityTypeSignature = { type: "string-ascii" };
const UTF8_SIG: ClarityTypeSignature = { type: "string-utf8" };
const PRINCIPAL_SIG: ClarityTypeSignature = { type: "principal" };

/** The type signature of one Clarity value (see ClarityTypeSignature). Leaf objects are shared:
 * treat the result as read-only. */
export function clarityTypeSignature(cv: ClarityValue): ClarityTypeSignature {
  switch (cv.type) {
    case ClarityType.Int:
      return INT_SIG;
    case ClarityType.UInt:
      return UINT_SIG;
    case ClarityType.BoolTrue:
    case ClarityType.BoolFalse:
      return BOOL_SIG;
    case ClarityType.Buffer:
      return BUFFER_SIG;
    case ClarityType.StringASCII:
      return ASCII_SIG;
    case ClarityType.StringUTF8:
      return UTF8_SIG;
    case ClarityType.PrincipalStandard:
    case ClarityType.PrincipalContract:
      return PRINCIPAL_SIG;
    case ClarityType.OptionalNone:
      return { type: "optional", inner: null };
    case ClarityType.OptionalSome:
      return { type: "optional", inner: clarityTypeSignature(cv.value) };
    case ClarityType.ResponseOk:
      return { type: "response", ok: clarityTypeSignature(cv.value), err: null };
    case ClarityType.ResponseErr:
      return { type: "response", ok: null, err: clarityTypeSignature(cv.value) };
    case ClarityType.List: {
      let element: ClarityTypeSignature | null = null;
      for (const item of cv.value) element = mergeClarityTypeSignatures(element, clarityTypeSignature(item));
      return { type: "list", element };
    }
    case ClarityType.Tuple: {
      const fields: { [key: string]: ClarityTypeSignature } = {};
      for (const key of Object.keys(cv.value)) setOwn(fields, key, clarityTypeSignature(cv.value[key]));
      return { type: "tuple", fields };
    }
    default:
      throw new Error(`unknown Clarity type ${String((cv as { type: unknown }).type)}`);
  }
}

/**
 * Combines two signatures of values of the same Clarity type, filling the parts one of them
 * could not tell (`null`). Tuples merge field by field (a field missing on one side is kept).
 * When the two disagree on a concrete type, `a` wins: values of one Clarity type never
 * disagree, so callers inferring across different values must detect that themselves.
 */
export function mergeClarityTypeSignatures(
  a: ClarityTypeSignature | null,
  b: ClarityTypeSignature | null,
): ClarityTypeSignature | null {
  if (a === null) return b;
  if (b === null || a === b) return a;
  if (a.type === "optional" && b.type === "optional") {
    return { type: "optional", inner: mergeClarityTypeSignatures(a.inner, b.inner) };
  }
  if (a.type === "response" && b.type === "response") {
    return {
      type: "response",
      ok: mergeClarityTypeSignatures(a.ok, b.ok),
      err: mergeClarityTypeSignatures(a.err, b.err),
    };
  }
  if (a.type === "list" && b.type === "list") {
    return { type: "list", element: mergeClarityTypeSignatures(a.element, b.element) };
  }
  if (a.type === "tuple" && b.type === "tuple") {
    const fields: { [key: string]: ClarityTypeSignature } = {};
    for (const key of Object.keys(a.fields)) setOwn(fields, key, a.fields[key]);
    for (const key of Object.keys(b.fields)) {
      const merged = Object.hasOwn(fields, key)
        ? mergeClarityTypeSignatures(fields[key], b.fields[key])
        : b.fields[key];
      if (merged !== null) setOwn(fields, key, merged);
    }
    return { type: "tuple", fields };
  }
  return a;
}

/** Assigns an own property even for keys like `__proto__` (tuple keys come from chain data). */
function setOwn<T>(target: { [key: string]: T }, key: string, value: T): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
