/** Column-type validation of request values (runtime/api/subgraphs/query/values.ts). */
import { describe, expect, it } from "vitest";
import { checkColumnValue, isInt8, normaliseTimestamp } from "../../../../../runtime/api/subgraphs/query/values.js";
import { holdings, odd } from "../../../../support/subgraph-tables.js";

const c = holdings.meta.columns;

describe("checkColumnValue", () => {
  const cases: [string, keyof typeof c | "flag" | "meta", string, string | null][] = [
    ["numeric integer", "amount", "-123", "-123"],
    ["numeric decimal", "amount", "1.50", "1.50"],
    ["numeric huge", "amount", "1".repeat(60), "1".repeat(60)],
    ["numeric exponent", "amount", "1e5", null],
    ["numeric plus sign", "amount", "+5", null],
    ["numeric too long", "amount", "1".repeat(101), null],
    ["bigint _id", "_id", "9223372036854775807", "9223372036854775807"],
    ["bigint overflow", "_id", "9223372036854775808", null],
    ["bigint decimal", "_block_height", "1.0", null],
    ["text anything", "holder", "any 'thing' \"here\"", "any 'thing' \"here\""],
    ["text with NUL", "holder", "a\u0000", null],
    ["timestamp", "_created_at", "2026-01-15T10:20:30Z", "2026-01-15T10:20:30.000000+00:00"],
    ["boolean", "flag", "false", "false"],
    ["boolean word", "flag", "no", null],
    ["jsonb", "meta", "{}", null],
  ];
  for (const [name, column, value, want] of cases) {
    it(name, () => {
      const meta = column === "flag" || column === "meta" ? odd.meta.columns[column] : c[column];
      const r = checkColumnValue(meta, value);
      expect(r.ok ? r.value : null).toBe(want);
    });
  }
});

describe("normaliseTimestamp", () => {
  const cases: [string, string | null][] = [
    ["2026-01-15", "2026-01-15T00:00:00.000000+00:00"],
    ["2026-01-15T10:20", "2026-01-15T10:20:00.000000+00:00"],
    ["2026-01-15 10:20:30.123456Z", "2026-01-15T10:20:30.123456+00:00"],
    ["2026-01-15T10:20:30.1-05:30", "2026-01-15T10:20:30.100000-05:30"],
    ["2026-01-15T10:20:30+0200", "2026-01-15T10:20:30.000000+02:00"],
    ["2026-01-15T10:20:30+02", "2026-01-15T10:20:30.000000+02:00"],
    ["2024-02-29", "2024-02-29T00:00:00.000000+00:00"],
    ["2023-02-29", null],
    ["2026-04-31", null],
    ["2026-13-01", null],
    ["0000-01-01", null],
    ["2026-01-15T24:00:00Z", null],
    ["2026-01-15T10:60:00Z", null],
    ["2026-01-15T10:20:30.1234567Z", null],
    ["2026-01-15T10:20:30+16:00", null],
    ["2026-01-15Z", null],
    ["now", null],
    ["", null],
  ];
  for (const [given, want] of cases) {
    it(JSON.stringify(given), () => {
      expect(normaliseTimestamp(given)).toBe(want);
    });
  }
  it("isInt8", () => {
    expect(isInt8("-9223372036854775808")).toBe(true);
    expect(isInt8("-9223372036854775809")).toBe(false);
    expect(isInt8("")).toBe(false);
  });
});
