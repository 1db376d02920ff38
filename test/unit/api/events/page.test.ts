/**
 * runtime/api/events/page.ts planPage: next_cursor, the reorg overlap range and immutability of
 * a page, from what was read (given/want table).
 */
import { describe, expect, it } from "vitest";
import type { Position } from "../../../../runtime/api/events/cursor.js";
import { planPage } from "../../../../runtime/api/events/page.js";
import type { TipSnapshot } from "../../../../runtime/api/events/tip.js";
import { type EventsQuery, NO_FILTERS } from "../../../../runtime/api/events/query.js";

const q = (over: Partial<EventsQuery> = {}): EventsQuery => ({
  after: null,
  requestCursor: null,
  toHeight: null,
  filters: NO_FILTERS,
  limit: 3,
  ...over,
});
const tip = (over: Partial<TipSnapshot> = {}): TipSnapshot => ({
  tipHash: "0xaa",
  tipHeight: 100,
  finalizedHeight: 90,
  reorgCount: 1,
  reorgsBelowFinality: 0,
  horizon: { height: 100, index: 4 },
  ...over,
});
const p = (height: number, index: number): Position => ({ height, index });

describe("planPage", () => {
  it("a full page: next_cursor is its last event; the reorg range ends there", () => {
    expect(planPage(q({ after: p(10, 1), requestCursor: p(10, 1) }), tip(), [p(10, 2), p(11, 0), p(12, 5)])).toEqual({
      nextCursor: "12:5",
      reorgRange: { low: 10, high: 12 },
      settledHeight: 12,
      immutable: true,
    });
  });

  it("a full page past the finalized height is not immutable", () => {
    expect(planPage(q(), tip(), [p(89, 0), p(90, 0), p(91, 0)]).immutable).toBe(false);
  });

  it("a short page moves next_cursor to the horizon (the tip's last event)", () => {
    expect(planPage(q({ after: p(95, 0), requestCursor: p(95, 0) }), tip(), [p(99, 1)])).toEqual({
      nextCursor: "100:4",
      reorgRange: { low: 95, high: 100 },
      settledHeight: null,
      immutable: false,
    });
  });

  it("an empty page never moves next_cursor backwards", () => {
    const t = tip({ horizon: p(50, 0) });
    expect(planPage(q({ after: p(60, 2), requestCursor: p(60, 2) }), t, []).nextCursor).toBe("60:2");
  });

  it("from_height alone: the horizon, or the empty string when nothing precedes", () => {
    expect(planPage(q({ after: p(7, -1) }), tip({ horizon: p(3, 0) }), []).nextCursor).toBe("3:0");
    expect(planPage(q(), tip({ horizon: null }), []).nextCursor).toBe("");
  });

  it("to_height bounds the reorg range and makes a short page immutable when final", () => {
    const plan = planPage(q({ after: p(20, -1), toHeight: 30 }), tip(), [p(21, 0)]);
    expect(plan.reorgRange).toEqual({ low: 20, high: 30 });
    expect(plan.immutable).toBe(true);
    expect(planPage(q({ toHeight: 95 }), tip(), []).immutable).toBe(false);
  });

  it("no reorg ever, or an empty chain: nothing to look up", () => {
    expect(planPage(q(), tip({ reorgCount: 0 }), []).reorgRange).toBeNull();
    expect(
      planPage(
        q(),
        { tipHash: null, tipHeight: null, finalizedHeight: null, reorgCount: 0, reorgsBelowFinality: 0, horizon: null },
        [],
      ),
    ).toEqual({
      nextCursor: "",
      reorgRange: null,
      settledHeight: null,
      immutable: false,
    });
  });
});
