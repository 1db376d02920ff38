/**
 * runtime/api/events/query.ts and events/cursor.ts: query parameters of the Index and Streams routes →
 * typed queries, and every 400 rule (SPEC.md "Index and Streams routes", "Limits", "Errors").
 */
import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../../../runtime/chain/types.js";
import { formatCursor, latestPosition, parseCursor, parseCursorText } from "../../../../runtime/api/events/cursor.js";
import {
  NO_FILTERS,
  parseEventFilters,
  parseIndexEventsQuery,
  parseStreamEventsQuery,
  parseStreamSubscription,
} from "../../../../runtime/api/events/query.js";
import { ServiceError } from "../../../../runtime/internal/errors.js";

function errorOf(fn: () => unknown): { status: number; code: string; details?: Record<string, unknown> } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ServiceError) return { status: err.status, code: err.code, details: err.details };
    throw err;
  }
  throw new Error("expected a ServiceError");
}

describe("cursors", () => {
  it.each([
    ["0:0", { height: 0, index: 0 }],
    ["12:3", { height: 12, index: 3 }],
    ["2147483647:2147483647", { height: 2147483647, index: 2147483647 }],
  ])("%s parses", (text, want) => {
    expect(parseCursorText(text)).toEqual(want);
    expect(formatCursor(want)).toBe(text);
  });

  it.each([
    "",
    "1",
    "1:",
    ":1",
    "-1:0",
    "1:-1",
    "1:2:3",
    "a:b",
    "2147483648:0",
    "0:2147483648",
    " 1:2",
    "1:2 ",
    "01:2x",
  ])("%j is not a cursor", (text) => {
    expect(parseCursorText(text)).toBeUndefined();
  });

  it("the empty cursor means from the start; anything else bad is 400 INVALID_CURSOR", () => {
    expect(parseCursor("cursor", "")).toBeNull();
    expect(errorOf(() => parseCursor("cursor", "x"))).toMatchObject({ status: 400, code: "INVALID_CURSOR" });
  });

  it("latestPosition ignores nulls", () => {
    expect(latestPosition(null, { height: 2, index: 0 }, { height: 1, index: 9 }, undefined)).toEqual({
      height: 2,
      index: 0,
    });
    expect(latestPosition(null, undefined)).toBeNull();
  });
});

describe("parseIndexEventsQuery", () => {
  it("defaults: limit 200, from the start", () => {
    expect(parseIndexEventsQuery({})).toEqual({
      after: null,
      requestCursor: null,
      toHeight: null,
      filters: NO_FILTERS,
      limit: 200,
    });
  });

  it("cursor and from_cursor are the same exclusive start", () => {
    const want = { after: { height: 5, index: 2 }, requestCursor: { height: 5, index: 2 } };
    expect(parseIndexEventsQuery({ cursor: "5:2" })).toMatchObject(want);
    expect(parseIndexEventsQuery({ from_cursor: "5:2" })).toMatchObject(want);
  });

  it("from_height starts before that height's first event; the later of it and the cursor wins", () => {
    expect(parseIndexEventsQuery({ from_height: "7" }).after).toEqual({ height: 7, index: -1 });
    expect(parseIndexEventsQuery({ from_height: "7", cursor: "9:1" }).after).toEqual({ height: 9, index: 1 });
    expect(parseIndexEventsQuery({ from_height: "7", cursor: "3:1" }).after).toEqual({ height: 7, index: -1 });
    expect(parseIndexEventsQuery({ from_height: "7", cursor: "3:1" }).requestCursor).toEqual({ height: 3, index: 1 });
  });

  it("to_height bounds the read", () => {
    expect(parseIndexEventsQuery({ to_height: "9" }).toHeight).toBe(9);
    expect(parseIndexEventsQuery({ from_height: "9", to_height: "9" }).toHeight).toBe(9);
  });

  it.each([
    [{ limit: "0" }, "INVALID_PARAMETER"],
    [{ limit: "-1" }, "INVALID_PARAMETER"],
    [{ limit: "1.5" }, "INVALID_PARAMETER"],
    [{ limit: "1001" }, "INVALID_PARAMETER"],
    [{ limit: ["1", "2"] }, "INVALID_PARAMETER"],
    [{ cursor: "1:0", from_cursor: "1:0" }, "INVALID_PARAMETER"],
    [{ cursor: "nope" }, "INVALID_CURSOR"],
    [{ from_cursor: "1:2:3" }, "INVALID_CURSOR"],
    [{ from_height: "-1" }, "INVALID_PARAMETER"],
    [{ to_height: "2147483648" }, "INVALID_PARAMETER"],
    [{ from_height: "5", to_height: "4" }, "INVALID_PARAMETER"],
    [{ types: "print" }, "UNKNOWN_PARAMETER"],
    [{ offset: "5" }, "INVALID_PARAMETER"],
    [{ limt: "5" }, "UNKNOWN_PARAMETER"],
  ])("%j → 400 %s", (query, code) => {
    expect(errorOf(() => parseIndexEventsQuery(query))).toMatchObject({ status: 400, code });
  });

  it("limit 1 and 1000 are the bounds", () => {
    expect(parseIndexEventsQuery({ limit: "1" }).limit).toBe(1);
    expect(parseIndexEventsQuery({ limit: "1000" }).limit).toBe(1000);
  });
});

describe("parseStreamEventsQuery and filters", () => {
  it("defaults: limit 100, no filters", () => {
    expect(parseStreamEventsQuery({})).toEqual({
      after: null,
      requestCursor: null,
      toHeight: null,
      filters: NO_FILTERS,
      limit: 100,
    });
  });

  it("types keep EVENT_TYPES order without duplicates; commas and repeats combine", () => {
    expect(parseEventFilters({ types: "print,stx_transfer,print" }).types).toEqual(["stx_transfer", "print"]);
    expect(parseEventFilters({ types: ["ft_mint", "ft_burn,nft_mint"] }).types).toEqual([
      "ft_mint",
      "ft_burn",
      "nft_mint",
    ]);
  });

  it("not_types subtracts; all types allowed is no type filter; all excluded is the empty set", () => {
    expect(parseEventFilters({ not_types: "print" }).types).toEqual(EVENT_TYPES.filter((t) => t !== "print"));
    expect(parseEventFilters({ types: "ft_mint,ft_burn", not_types: "ft_burn" }).types).toEqual(["ft_mint"]);
    expect(parseEventFilters({ types: EVENT_TYPES.join(",") }).types).toBeNull();
    expect(parseEventFilters({ not_types: EVENT_TYPES.join(",") }).types).toEqual([]);
  });

  it("equality filters", () => {
    expect(
      parseEventFilters({ contract_id: "SP1.c", sender: "SPA", recipient: "SPB", asset_identifier: "SP1.c::t" }),
    ).toEqual({
      types: null,
      contractId: "SP1.c",
      sender: "SPA",
      recipient: "SPB",
      assetIdentifier: "SP1.c::t",
    });
  });

  it("an unknown type is 400 listing every valid type, with a suggestion", () => {
    const err = errorOf(() => parseEventFilters({ types: "stx_transfr" }));
    expect(err).toMatchObject({ status: 400, code: "INVALID_PARAMETER" });
    expect(err.details).toMatchObject({ parameter: "types", allowed: [...EVENT_TYPES], suggestion: "stx_transfer" });
  });

  it("a type's trigger and node names are the type", () => {
    expect(parseEventFilters({ types: "stx_transfer_event,print_event" }).types).toEqual(["stx_transfer", "print"]);
    expect(parseEventFilters({ types: "contract_event" }).types).toEqual(["print"]);
  });

  it.each([
    { types: "" },
    { types: "print," },
    { not_types: "bogus" },
    { sender: "" },
    { recipient: "a\u0001b" },
    { contract_id: "x".repeat(257) },
    { sender: ["a", "b"] },
  ])("%j → 400 INVALID_PARAMETER", (query) => {
    expect(errorOf(() => parseEventFilters(query))).toMatchObject({ status: 400, code: "INVALID_PARAMETER" });
  });

  it("the Streams list takes cursor but not from_cursor or heights", () => {
    expect(parseStreamEventsQuery({ cursor: "3:1" }).after).toEqual({ height: 3, index: 1 });
    expect(errorOf(() => parseStreamEventsQuery({ from_cursor: "3:1" })).code).toBe("UNKNOWN_PARAMETER");
    expect(errorOf(() => parseStreamEventsQuery({ from_height: "3" })).code).toBe("UNKNOWN_PARAMETER");
  });
});

describe("parseStreamSubscription", () => {
  it("no start position is live", () => {
    expect(parseStreamSubscription({}, undefined).start).toEqual({ kind: "live" });
  });

  it("cursor, from_cursor and from_height", () => {
    expect(parseStreamSubscription({ cursor: "4:0" }, undefined).start).toEqual({
      kind: "cursor",
      position: { height: 4, index: 0 },
      source: "cursor",
    });
    expect(parseStreamSubscription({ from_cursor: "4:0" }, undefined).start).toMatchObject({ source: "from_cursor" });
    expect(parseStreamSubscription({ from_height: "4" }, undefined).start).toEqual({ kind: "height", height: 4 });
  });

  it("Last-Event-ID wins over the URL", () => {
    expect(parseStreamSubscription({ from_height: "4" }, "9:9").start).toEqual({
      kind: "cursor",
      position: { height: 9, index: 9 },
      source: "last-event-id",
    });
  });

  it.each([
    [{ cursor: "1:0", from_height: "2" }, undefined, "INVALID_PARAMETER"],
    [{ cursor: "1:0", from_cursor: "1:0" }, undefined, "INVALID_PARAMETER"],
    [{}, "garbage", "INVALID_CURSOR"],
    [{ limit: "5" }, undefined, "UNKNOWN_PARAMETER"],
    [{ to_height: "5" }, undefined, "UNKNOWN_PARAMETER"],
  ])("%j with Last-Event-ID %j → 400 %s", (query, header, code) => {
    expect(errorOf(() => parseStreamSubscription(query, header))).toMatchObject({ status: 400, code });
  });
});
