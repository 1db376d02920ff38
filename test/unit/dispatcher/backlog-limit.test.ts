/**
 * The WEBHOOK_MAX_PENDING decisions (runtime/dispatcher/backlog-limit.ts): a new share takes the
 * room left and nothing while older shares are held; held shares go out oldest first, whole while
 * they fit, then the first rows of the next. Checked against a row-at-a-time model of a queue (one
 * row at a time into the outbox while it is below the limit), and over random runs of shares
 * arriving and deliveries finishing: the outbox never exceeds the limit and gets every row once,
 * in arrival order.
 */
import { describe, expect, it } from "vitest";
import { admittedRows, releasePlan } from "../../../runtime/dispatcher/backlog-limit.js";

/** Row-at-a-time model: how many rows of the queued shares fit while the outbox is below `limit`. */
function rowsThatFit(pending: number, sizes: readonly number[], limit: number): number {
  let moved = 0;
  const total = sizes.reduce((a, b) => a + b, 0);
  while (moved < total && pending + moved < limit) moved++;
  return moved;
}

function seeded(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

describe("admittedRows", () => {
  it("takes what fits under the limit, nothing at or above it, nothing while older shares are held", () => {
    expect(admittedRows({ pending: 0, held: false }, 3, 5)).toBe(3);
    expect(admittedRows({ pending: 3, held: false }, 3, 5)).toBe(2);
    expect(admittedRows({ pending: 5, held: false }, 1, 5)).toBe(0);
    expect(admittedRows({ pending: 9, held: false }, 1, 5)).toBe(0); // replays may go past it
    expect(admittedRows({ pending: 0, held: true }, 3, 5)).toBe(0);
    expect(admittedRows({ pending: 10 ** 9, held: false }, 7, Number.POSITIVE_INFINITY)).toBe(7);
  });
});

describe("releasePlan", () => {
  it("agrees with a row-at-a-time queue on every small case", () => {
    const random = seeded(7);
    for (let n = 0; n < 2000; n++) {
      const limit = 1 + Math.floor(random() * 8);
      const pending = Math.floor(random() * (limit + 3));
      const sizes = Array.from({ length: Math.floor(random() * 5) }, () => 1 + Math.floor(random() * 6));
      const plan = releasePlan(pending, sizes, limit);
      const released = sizes.slice(0, plan.whole).reduce((a, b) => a + b, 0) + plan.partial;
      expect(released, JSON.stringify({ limit, pending, sizes })).toBe(rowsThatFit(pending, sizes, limit));
      // A partial share is a strict prefix of the next share, never a whole one.
      if (plan.partial) expect(plan.partial).toBeLessThan(sizes[plan.whole]);
    }
  });

  it("releases nothing at the limit and everything without one", () => {
    expect(releasePlan(5, [1, 2], 5)).toEqual({ whole: 0, partial: 0 });
    expect(releasePlan(2, [1, 2, 4], 5)).toEqual({ whole: 2, partial: 0 });
    expect(releasePlan(2, [1, 4], 5)).toEqual({ whole: 1, partial: 2 });
    expect(releasePlan(10 ** 6, [3, 4], Number.POSITIVE_INFINITY)).toEqual({ whole: 2, partial: 0 });
  });
});

describe("a webhook under the limit over time", () => {
  it("never holds more than the limit in the outbox and delivers every row once, in arrival order", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const random = seeded(seed);
      const limit = 1 + Math.floor(random() * 6);
      const outbox: number[] = []; // row numbers, in outbox (id) order
      const delivered: number[] = [];
      let held: number[][] = [];
      let next = 0;
      for (let step = 0; step < 200; step++) {
        // Release first (as each expansion transaction does), then maybe a new share, then maybe deliveries.
        const plan = releasePlan(
          outbox.length,
          held.map((s) => s.length),
          limit,
        );
        for (const s of held.slice(0, plan.whole)) outbox.push(...s);
        if (plan.partial) {
          outbox.push(...held[plan.whole].slice(0, plan.partial));
          held[plan.whole] = held[plan.whole].slice(plan.partial);
        }
        held = held.slice(plan.whole);
        if (random() < 0.6) {
          const share = Array.from({ length: 1 + Math.floor(random() * 4) }, () => next++);
          const take = admittedRows({ pending: outbox.length, held: held.length > 0 }, share.length, limit);
          outbox.push(...share.slice(0, take));
          if (take < share.length) held.push(share.slice(take));
        }
        expect(outbox.length).toBeLessThanOrEqual(limit);
        const done = Math.floor(random() * 3);
        delivered.push(...outbox.splice(0, done));
      }
      // Drain.
      while (outbox.length || held.length) {
        delivered.push(...outbox.splice(0));
        const plan = releasePlan(
          0,
          held.map((s) => s.length),
          limit,
        );
        for (const s of held.slice(0, plan.whole)) outbox.push(...s);
        if (plan.partial) {
          outbox.push(...held[plan.whole].slice(0, plan.partial));
          held[plan.whole] = held[plan.whole].slice(plan.partial);
        }
        held = held.slice(plan.whole);
      }
      expect(delivered).toEqual(Array.from({ length: next }, (_, i) => i));
    }
  });
});
