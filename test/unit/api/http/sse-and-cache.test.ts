/**
 * runtime/api/http/sse.ts frame formatting and runtime/api/http/cache-headers.ts (SPEC.md "SSE stream
 * routes").
 */
import { describe, expect, it } from "vitest";
import {
  cacheControl,
  escapeJsonHtml,
  ifNoneMatchMatches,
  weakEtag,
} from "../../../../runtime/api/http/cache-headers.js";
import { formatSseComment, formatSseFrame, formatSseRetry } from "../../../../runtime/api/http/sse.js";

describe("SSE frames", () => {
  it("event frame: id, data, blank line", () => {
    expect(formatSseFrame({ id: "5:1", data: '{"a":1}' })).toBe('id: 5:1\ndata: {"a":1}\n\n');
  });
  it("named frame", () => {
    expect(formatSseFrame({ id: "4:0", event: "reorg", data: "{}" })).toBe("id: 4:0\nevent: reorg\ndata: {}\n\n");
  });
  it("multi-line data becomes several data lines; id and event lose line breaks", () => {
    expect(formatSseFrame({ id: "1\n2", event: "a\rb", data: "x\ny\r\nz" })).toBe(
      "id: 12\nevent: ab\ndata: x\ndata: y\ndata: z\n\n",
    );
  });
  it("comments and retry", () => {
    expect(formatSseComment("ping")).toBe(": ping\n\n");
    expect(formatSseRetry(2000)).toBe("retry: 2000\n\n");
  });
});

describe("cache headers", () => {
  it("public on loopback, private past it", () => {
    expect(cacheControl(true, "max-age=300")).toBe("public, max-age=300");
    expect(cacheControl(false, "max-age=300")).toBe("private, max-age=300");
  });
  it("weak ETags depend on every part and its boundaries", () => {
    expect(weakEtag("a", "b")).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(weakEtag("a", "b")).toBe(weakEtag("a", "b"));
    expect(weakEtag("ab", "")).not.toBe(weakEtag("a", "b"));
  });
  it("escapes <, > and & in JSON text without changing its value", () => {
    const value = { s: "<script>&</script>" };
    const escaped = escapeJsonHtml(JSON.stringify(value));
    expect(escaped).not.toMatch(/[<>&]/);
    expect(JSON.parse(escaped)).toEqual(value);
  });
});

describe("If-None-Match (RFC 9110 §13.1.2, weak comparison)", () => {
  const etag = 'W/"abc"';
  it("matches the same opaque tag with or without W/, anywhere in a list, and *", () => {
    expect(ifNoneMatchMatches('W/"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('W/"abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchMatches('"x", W/"y" ,\tW/"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches("*", etag)).toBe(true);
  });
  it("an opaque tag may hold a comma; it is compared whole", () => {
    expect(ifNoneMatchMatches('W/"a,b"', 'W/"a,b"')).toBe(true);
    expect(ifNoneMatchMatches('W/"a,b"', 'W/"a"')).toBe(false);
  });
  it("does not match another tag, a prefix, an unquoted or malformed value, or no header", () => {
    expect(ifNoneMatchMatches('W/"abcd"', etag)).toBe(false);
    expect(ifNoneMatchMatches('W/"ab"', etag)).toBe(false);
    expect(ifNoneMatchMatches("abc", etag)).toBe(false);
    expect(ifNoneMatchMatches('W/"abc', etag)).toBe(false);
    expect(ifNoneMatchMatches("", etag)).toBe(false);
    expect(ifNoneMatchMatches(undefined, etag)).toBe(false);
  });
});
