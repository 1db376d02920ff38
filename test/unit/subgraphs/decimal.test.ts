/** Exact decimal text arithmetic (lossless NUMERIC strings). */
import { describe, expect, it } from "vitest";
import { addDecimals, canonicalDecimal } from "../../../runtime/subgraphs/decimal.js";

describe("decimal", () => {
  it.each([
    ["1", "2", "3"],
    ["340282366920938463463374607431768211455", "1", "340282366920938463463374607431768211456"],
    ["-5", "3", "-2"],
    ["5", "-5", "0"],
    ["1.5", "2", "3.5"],
    ["0.25", "-0.75", "-0.50"],
  ])("%s + %s = %s", (a, b, want) => {
    expect(addDecimals(a, b)).toBe(want);
  });
  it("canonicalizes like PostgreSQL NUMERIC output", () => {
    expect(canonicalDecimal("007")).toBe("7");
    expect(canonicalDecimal("-0")).toBe("0");
    expect(canonicalDecimal("1.50")).toBe("1.50");
  });
  it("refuses non-decimals", () => {
    expect(() => addDecimals("1e3", "1")).toThrow(/not a decimal/);
  });
});
