/** Field checks for observer payloads: each failure is a MalformedPayloadError naming the field
 * path and what was wrong (DESIGN.md §2 "decode"; the journal keeps the raw body). */
import { MalformedPayloadError } from "../../internal/errors.js";
import { isHash32 } from "./hex.js";

export type JsonObject = Record<string, unknown>;

export function isRecord(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A non-negative safe integer (heights, indexes, times). */
export function isIndex(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/** `<path>: <what>, got <short rendering of the value>`. */
export function malformed(path: string, what: string, ...value: [unknown?]): MalformedPayloadError {
  const got = value.length > 0 ? `, got ${render(value[0])}` : "";
  return new MalformedPayloadError(`${path}: ${what}${got}`);
}

export function render(value: unknown): string {
  if (value === undefined) return "nothing (field missing)";
  if (typeof value === "string") return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (value === null || typeof value === "number" || typeof value === "boolean") return String(value);
  return Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

export function requireRecord(obj: JsonObject, key: string, path: string): JsonObject {
  const v = obj[key];
  if (!isRecord(v)) throw malformed(`${path}${key}`, "must be an object", v);
  return v;
}

export function requireArray(obj: JsonObject, key: string, path: string): unknown[] {
  const v = obj[key];
  if (!Array.isArray(v)) throw malformed(`${path}${key}`, "must be an array", v);
  return v;
}

export function requireString(obj: JsonObject, key: string, path: string): string {
  const v = obj[key];
  if (typeof v !== "string") throw malformed(`${path}${key}`, "must be a string", v);
  return v;
}

export function requireIndex(obj: JsonObject, key: string, path: string): number {
  const v = obj[key];
  if (!isIndex(v)) throw malformed(`${path}${key}`, "must be a non-negative integer", v);
  return v;
}

/** A 32-byte hash as `0x` + 64 hex digits, returned lowercase. */
export function requireHash(obj: JsonObject, key: string, path: string): string {
  const v = obj[key];
  if (!isHash32(v)) throw malformed(`${path}${key}`, "must be 0x followed by 64 hex digits", v);
  return v.toLowerCase();
}

const DECIMAL = /^\d+$/;

/** A non-negative integer as a decimal string; the node sends strings (amounts) or numbers. */
export function requireDecimal(obj: JsonObject, key: string, path: string): string {
  const v = obj[key];
  if (typeof v === "string" && DECIMAL.test(v)) return v;
  if (isIndex(v)) return String(v);
  throw malformed(`${path}${key}`, "must be a non-negative integer (decimal string)", v);
}
