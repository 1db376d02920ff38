/** The pure money rules of archive credits: dollars ↔ cents, packs, calendar months, the refill trigger, cost lines. */
import { describe, expect, it } from "vitest";
import {
  crossesThreshold,
  estimateCost,
  formatDollars,
  monthWindow,
  parseDollars,
  parsePack,
  shortBalanceMessage,
} from "../../../runtime/archive/credits/money.js";

describe("formatDollars", () => {
  it.each([
    [0, "$0.00"],
    [5, "$0.05"],
    [2500, "$25.00"],
    [123456, "$1234.56"],
    [-150, "-$1.50"],
  ])("%i cents → %s", (cents, text) => expect(formatDollars(cents)).toBe(text));
});

describe("parseDollars", () => {
  it.each([
    ["5", 500],
    ["5.5", 550],
    ["12.34", 1234],
    ["$25", 2500],
    [" 0.01 ", 1],
    [7, 700],
    [0.1, 10],
  ])("%s → %i cents", (text, cents) => expect(parseDollars(text)).toBe(cents));
  it.each(["", "-5", "1.234", "1e3", "five", "5.", ".5", "12345678"])("refuses %j", (text) =>
    expect(parseDollars(text)).toBeNull(),
  );
});

describe("parsePack", () => {
  it("accepts exactly the four packs", () => {
    expect(["10", "25", "$50", "100.00", 25].map(parsePack)).toEqual([1000, 2500, 5000, 10000, 2500]);
    expect(["5", "20", "25.5", "1000"].map(parsePack)).toEqual([null, null, null, null]);
  });
});

describe("monthWindow", () => {
  it("is the UTC calendar month, whatever the time of day", () => {
    expect(monthWindow(new Date("2026-03-31T23:59:59.999Z"))).toEqual({
      start: new Date("2026-03-01T00:00:00Z"),
      end: new Date("2026-04-01T00:00:00Z"),
    });
    expect(monthWindow(new Date("2026-12-15T00:00:00Z")).end).toEqual(new Date("2027-01-01T00:00:00Z"));
    expect(monthWindow(new Date("2028-02-29T12:00:00Z")).end).toEqual(new Date("2028-03-01T00:00:00Z"));
  });
});

describe("crossesThreshold", () => {
  it("fires only on the charge that goes from at-or-above to below", () => {
    expect(crossesThreshold(600, 400, 500)).toBe(true);
    expect(crossesThreshold(500, 499, 500)).toBe(true);
    expect(crossesThreshold(400, 100, 500)).toBe(false);
    expect(crossesThreshold(900, 500, 500)).toBe(false);
  });
});

describe("estimateCost", () => {
  it("sums the prices against the balance", () => {
    expect(estimateCost([100, 250], "bootstrap", 300, 6)).toMatchObject({
      bundles: 2,
      freeBundles: 0,
      costCents: 350,
      affordable: false,
      line: "2 bundles, $3.50, balance $3.00",
    });
  });
  it("lets the month's free repairs cover the first repair bundles", () => {
    const e = estimateCost([100, 200, 300], "repair", 0, 2);
    expect(e).toMatchObject({ freeBundles: 2, costCents: 300, affordable: false });
    expect(e.line).toBe("3 bundles, $3.00 (2 free repairs this month), balance $0.00");
    expect(estimateCost([100], "repair", 0, 6)).toMatchObject({ costCents: 0, affordable: true });
  });
  it("names the smallest pack that covers the shortfall", () => {
    expect(shortBalanceMessage(estimateCost([3000], "backfill", 500, 0))).toContain("--pack 25");
    expect(shortBalanceMessage(estimateCost([50000], "backfill", 0, 0))).toContain("--pack 100");
  });
});
