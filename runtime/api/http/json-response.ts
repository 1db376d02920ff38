/**
 * Sends answers that carry an ETag (event pages, print schemas, proofs, subgraph list pages, the
 * signing key) with their cache headers (SPEC.md print-schema cache), and answers a matching
 * If-None-Match with 304 here, whatever the request's Cache-Control says: Express's own check
 * (`req.fresh`) gives up on `Cache-Control: no-cache`, which `fetch()` adds to every conditional
 * request, and a revalidation must still get its 304 from the origin (RFC 9110 §13.2.1).
 */
import type { Request, Response } from "express";
import { cacheControl, ifNoneMatchMatches } from "./cache-headers.js";

export interface JsonTextOptions {
  etag: string;
  /** Directives without the public/private prefix, e.g. `max-age=300`. */
  cacheDirectives: string;
  publishedOnLoopback: boolean;
}

/** JSON text built outside res.json, with `Cache-Control` and `ETag`. */
export function sendJsonText(req: Request, res: Response, body: string | Buffer, options: JsonTextOptions): void {
  sendWithEtag(req, res, body, {
    contentType: "application/json",
    etag: options.etag,
    cacheControl: cacheControl(options.publishedOnLoopback, options.cacheDirectives),
  });
}

export interface EtagAnswer {
  contentType: string;
  etag: string;
  /** The full Cache-Control value; omitted → none is sent. */
  cacheControl?: string;
}

/**
 * Sends `body` with its ETag, or a bodiless 304 when the request's If-None-Match matches it. The
 * 304 keeps ETag and Cache-Control, as RFC 9110 §15.4.5 asks of a 304 ("the server generating a
 * 304 response MUST generate ... Cache-Control ... ETag ... that would have been sent in a 200").
 */
export function sendWithEtag(req: Request, res: Response, body: string | Buffer, answer: EtagAnswer): void {
  if (answer.cacheControl !== undefined) res.setHeader("Cache-Control", answer.cacheControl);
  res.setHeader("ETag", answer.etag);
  if (ifNoneMatchMatches(req.headers["if-none-match"], answer.etag)) {
    res.status(304).end();
    return;
  }
  // Straight to node's response: the validators are decided above, so Express's send path (its
  // own freshness check, ETag generation, string re-encoding) would only repeat work.
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  res.statusCode = 200;
  res.setHeader("Content-Type", contentTypeWithCharset(answer.contentType));
  res.setHeader("Content-Length", bytes.length);
  if (req.method === "HEAD") res.end();
  else res.end(bytes);
}

/** `text/…` and JSON bodies are UTF-8 here; say so as Express's res.type() would. */
const contentTypeWithCharset = (type: string): string => (type.includes("charset=") ? type : `${type}; charset=utf-8`);
