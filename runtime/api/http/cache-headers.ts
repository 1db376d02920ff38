/**
 * Cache headers of the read routes (SPEC.md
 * "print-schema cache"): immutable pages, short-lived pages, weak ETags. Pure.
 *
 * `public` lets shared caches keep a response. That is right on loopback, where reads need no
 * token; when the API is published past loopback every read needs the instance token, and a
 * shared cache must not hand a token-protected response to someone without it, so the same
 * directives are sent with `private` instead.
 */
import { createHash } from "node:crypto";

/** A page that can never change (everything in it is at or below the finalized height). */
export const IMMUTABLE = "max-age=31536000, immutable";
/** A page near the tip: new blocks or a reorg may change it. */
export const SHORT_LIVED = "max-age=2";
/** SPEC.md: print-schema `Cache-Control: public, max-age=300`. */
export const PRINT_SCHEMA_MAX_AGE = "max-age=300";

/** `public, <directives>` on loopback, `private, <directives>` when reads need the token. */
export function cacheControl(publishedOnLoopback: boolean, directives: string): string {
  return `${publishedOnLoopback ? "public" : "private"}, ${directives}`;
}

/** A weak ETag over the given parts: `W/"<base64url sha1>"`. */
export function weakEtag(...parts: string[]): string {
  const h = createHash("sha1");
  for (const part of parts) h.update(part).update("\u0000");
  return `W/"${h.digest("base64url")}"`;
}

/**
 * RFC 9110 §13.1.2 If-None-Match, evaluated by the origin server: true when the header is `*` or
 * lists an entity tag equal to `etag` under weak comparison (a `W/` prefix on either side is
 * ignored; the opaque quoted strings must be identical). A request's own Cache-Control does not
 * enter into it: `fetch()` adds `no-cache` to every conditional request, and "no-cache" asks
 * caches to revalidate with the origin, which is exactly this check. A malformed list matches
 * only as far as it could be read.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const wanted = opaqueTag(etag);
  let i = 0;
  while (i < header.length) {
    const c = header[i];
    if (c === " " || c === "\t" || c === ",") {
      i++;
      continue;
    }
    if (c === "*") return true;
    if (header.startsWith("W/", i)) i += 2;
    if (header[i] !== '"') return false;
    const end = header.indexOf('"', i + 1);
    if (end < 0) return false;
    if (header.slice(i, end + 1) === wanted) return true;
    i = end + 1;
  }
  return false;
}

/** The quoted opaque-tag of an entity tag, without any `W/` prefix. */
const opaqueTag = (etag: string): string => (etag.startsWith("W/") ? etag.slice(2) : etag);

/**
 * Escapes `<`, `>` and `&` as \u003c, \u003e, \u0026 in JSON text built outside res.json (the
 * app's "json escape" setting does the same for res.json). Outside strings JSON never holds
 * these characters, so the result is the same JSON value.
 */
export function escapeJsonHtml(json: string): string {
  // Most pages hold none of the three: three indexOf scans (vectorised in V8) are far cheaper
  // than the replace pass over ~150 KB.
  if (json.indexOf("<") < 0 && json.indexOf(">") < 0 && json.indexOf("&") < 0) return json;
  return json.replace(/[<>&]/g, (c) => (c === "<" ? "\\u003c" : c === ">" ? "\\u003e" : "\\u0026"));
}
