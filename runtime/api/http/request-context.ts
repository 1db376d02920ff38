/**
 * Per-request id and access log (STYLE.md "logging": log at boundaries). Every response carries
 * `x-request-id`; the id is minted here and never taken from the client.
 */
import { randomBytes } from "node:crypto";
import type { RequestHandler, Response } from "express";
import type { Logger } from "../../internal/logger.js";

/** Random bytes drawn 4 KiB at a time: one draw per request cost more than the rest of /health. */
let pool = Buffer.alloc(0);
let offset = 0;

/** Mints `req_` + 16 hex characters (8 random bytes). */
export function newRequestId(): string {
  if (offset + 8 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  const id = pool.toString("hex", offset, offset + 8);
  offset += 8;
  return `req_${id}`;
}

/** The id assigned by createRequestContext ("" before it ran). */
export function requestIdOf(res: Response): string {
  const id = res.locals.requestId;
  return typeof id === "string" ? id : "";
}

/** Assigns the request id, sets the header, and logs one line when the response closes. */
export function createRequestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const requestId = newRequestId();
    res.locals.requestId = requestId;
    res.setHeader("x-request-id", requestId);
    const started = performance.now();
    res.once("close", () => {
      const status = res.statusCode;
      const fields = {
        msg: "request",
        request_id: requestId,
        method: req.method,
        path: req.path,
        status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        ...(res.writableFinished ? {} : { aborted: true }),
      };
      if (status >= 500) logger.warn(fields);
      else if (status >= 400) logger.info(fields);
      else logger.debug(fields);
    });
    next();
  };
}
