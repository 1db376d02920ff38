import { describe, expect, it } from "vitest";
import { type CachedPage, EventsPageCache, pageBody, pageBytes } from "../../../../runtime/api/events/page-cache.js";

// An immutable page here covers heights up to 3, read when no reorg had gone below finality.
const page = (immutable: boolean, events = "[]"): CachedPage => ({
  head: `{"events":${events},"next_cursor":"","tip":`,
  tail: ',"reorgs":[]}',
  tipJson: '{"block_height":9,"finalized_height":3}',
  etag: 'W/"x"',
  cacheDirectives: immutable ? "max-age=31536000, immutable" : "max-age=2",
  settled: immutable ? { height: 3, reorgsBelowFinality: 0 } : null,
});
const fin = (finalizedHeight: number | null, reorgsBelowFinality = 0) => ({ finalizedHeight, reorgsBelowFinality });

describe("EventsPageCache", () => {
  it("keeps an immutable page whatever the stamp, even for a caller that has not read one", () => {
    const cache = new EventsPageCache();
    const p = page(true);
    cache.set("q", "s1", p);
    expect(cache.get("q", null, fin(3))).toBe(p);
    expect(cache.get("q", "s2", fin(7))).toBe(p);
  });

  it("drops an immutable page once its heights are no longer final (a competing branch is undecided)", () => {
    const cache = new EventsPageCache();
    cache.set("q", "s1", page(true));
    expect(cache.get("q", null, fin(2))).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set("q", "s1", page(true));
    expect(cache.get("q", "s1", fin(null))).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("drops an immutable page read before a reorg below finality, whatever the boundary now", () => {
    const cache = new EventsPageCache();
    cache.set("q", "s1", page(true));
    expect(cache.get("q", null, fin(9, 1))).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("serves any other page only under the stamp it was read with, and drops it on a new one", () => {
    const cache = new EventsPageCache();
    const p = page(false);
    cache.set("q", "s1", p);
    expect(cache.get("q", null, fin(3))).toBeUndefined();
    expect(cache.get("q", "s1", fin(3))).toBe(p);
    expect(cache.get("q", "s2", fin(3))).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.get("q", "s1", fin(3))).toBeUndefined();
  });

  it("stays within its byte bound, evicting the least recently used first", () => {
    const big = "x".repeat(10_000);
    // Key "a", the strings as UTF-16 (2 bytes a character), the encoded body (1 byte a character), overhead.
    const text = page(true, big).head.length + page(true).tail.length + page(true).tipJson.length;
    const one = 2 * (1 + text + 6) + text + 128;
    const cache = new EventsPageCache(one * 3);
    for (const k of ["a", "b", "c"]) cache.set(k, "s", page(true, big));
    expect(cache.get("a", "s", fin(3))).toBeDefined(); // a is now the most recent
    cache.set("d", "s", page(true, big));
    expect(cache.byteSize).toBeLessThanOrEqual(one * 3);
    expect(cache.get("b", "s", fin(3))).toBeUndefined();
    for (const k of ["a", "c", "d"]) expect(cache.get(k, "s", fin(3))).toBeDefined();
  });

  it("does not keep a page larger than the whole bound", () => {
    const cache = new EventsPageCache(1000);
    cache.set("q", "s", page(true, "y".repeat(5000)));
    expect(cache.size).toBe(0);
  });

  it("puts the tip between head and tail", () => {
    const body = pageBody(page(true, "[1]"), '{"block_height":12,"finalized_height":4}');
    expect(JSON.parse(body)).toEqual({
      events: [1],
      next_cursor: "",
      tip: { block_height: 12, finalized_height: 4 },
      reorgs: [],
    });
  });

  it("encodes the body once per tip: the same tip answers the same bytes, a new tip new ones", () => {
    const p = page(true, "[1,2]");
    const tip = '{"block_height":12,"finalized_height":4}';
    const first = pageBytes(p, tip);
    expect(first.toString("utf8")).toBe(pageBody(p, tip));
    expect(pageBytes(p, tip)).toBe(first);
    const next = '{"block_height":13,"finalized_height":4}';
    expect(pageBytes(p, next).toString("utf8")).toBe(pageBody(p, next));
    expect(pageBytes(p, next)).not.toBe(first);
  });
});
