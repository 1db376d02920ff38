/**
 * Sends JSON text built outside res.json (event pages, print schemas) with its cache headers
 * (issue item 7; SPEC.md print-schema cache). Express's res.send keeps an ETag already set and
 * answers 304 itself when the request's If-None-Match matches it (weak comparison), so a cached
 * page costs no body.
 */
import type { Response } from "express";
import { cacheControl } from "./cache-headers.js";

export interface JsonTextOptions {
  etag: string;
  /** Directives without the public/private prefix, e.g. `max-age=300`. */
  cacheDirectives: string;
  publishedOnLoopback: boolean;
}

export function sendJsonText(res: Response, body: string | Buffer, options: JsonTextOptions): void {
  res.setHeader("Cache-Control", cacheControl(options.publishedOnLoopback, options.cacheDirectives));
  res.setHeader("ETag", options.etag);
  res.type("application/json").send(body);
}
