/**
 * Validation of request values against column types (SPEC.md "Filter grammar": "Filters are
 * validated against the table schema"), so that no value a client sends can make PostgreSQL
 * fail a cast: a bad value is a 400 naming the column, never a 500. Pure.
 */
import type { ColumnMeta } from "../../../subgraphs/types.js";
import { sqlType } from "./sql.js";

/** Longest filter, search or cursor value accepted (characters). */
export const MAX_VALUE_LENGTH = 2048;
/** Longest decimal accepted for a NUMERIC column (digits, sign and point). */
const MAX_NUMERIC_LENGTH = 100;

const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;

export type ValueCheck = { ok: true; value: string } | { ok: false; expected: string };

/**
 * Problems common to every value: PostgreSQL text cannot hold NUL, and very long values are
 * refused rather than sent to the database. Returns a description of the problem or null.
 */
export function textProblem(value: string): string | null {
  if (value.includes("\u0000")) return "text without NUL characters";
  if (value.length > MAX_VALUE_LENGTH) return `at most ${MAX_VALUE_LENGTH} characters`;
  return null;
}

/** True for a decimal integer that fits PostgreSQL bigint. */
export function isInt8(value: string): boolean {
  if (!/^-?\d{1,19}$/.test(value)) return false;
  const n = BigInt(value);
  return n >= INT8_MIN && n <= INT8_MAX;
}

/**
 * Checks `value` for an equality or comparison against `column` and returns the text to bind
 * (cast in SQL to the column's type). Timestamps are normalised to an explicit UTC offset when
 * they carry none, so the result never depends on the session time zone.
 */
export function checkColumnValue(column: ColumnMeta, value: string): ValueCheck {
  const problem = textProblem(value);
  if (problem) return { ok: false, expected: problem };
  switch (sqlType(column)) {
    case "bigint":
      return isInt8(value) ? { ok: true, value } : { ok: false, expected: "an integer (e.g. 42)" };
    case "numeric":
      return value.length <= MAX_NUMERIC_LENGTH && /^-?\d+(\.\d+)?$/.test(value)
        ? { ok: true, value }
        : { ok: false, expected: "a decimal number (e.g. 1000 or -25)" };
    case "timestamptz": {
      const normalised = normaliseTimestamp(value);
      return normalised === null
        ? { ok: false, expected: "an ISO 8601 date-time (e.g. 2026-01-15T10:20:30Z)" }
        : { ok: true, value: normalised };
    }
    case "boolean":
      return value === "true" || value === "false" ? { ok: true, value } : { ok: false, expected: "true or false" };
    case "jsonb":
      return { ok: false, expected: "nothing: jsonb columns cannot be compared" };
    case "text":
      return { ok: true, value };
  }
}

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * `YYYY-MM-DD[THH:MM[:SS[.ffffff]][Z|±HH[:MM]]]` → `YYYY-MM-DDTHH:MM:SS.ffffff±HH:MM`, or null
 * when the text is not such a date-time or names an impossible one (month 13, 31 February, ...).
 * Without an offset the time is UTC.
 */
export function normaliseTimestamp(value: string): string | null {
  const m = TIMESTAMP.exec(value);
  if (!m) return null;
  const [, y, mo, d, h = "00", mi = "00", s = "00", frac = "", zone = "Z"] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  let offset = "+00:00";
  if (zone !== "Z" && zone !== "z") {
    const digits = zone.slice(1).replace(":", "");
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2)) : 0;
    if (oh > 15 || om > 59) return null;
    offset = `${zone[0]}${digits.slice(0, 2)}:${digits.length > 2 ? digits.slice(2) : "00"}`;
  }
  return `${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.padEnd(6, "0")}${offset}`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
