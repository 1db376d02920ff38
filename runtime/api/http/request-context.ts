/**
 * Per-request id and access log (STYLE.md "logging": log at boundaries). Every response carries
 * `x-request-id`; the id is minted here and never taken from the client.
 */
import { randomBytes } from "node:crypto";
import type { RequestHandler, Response } from "express";
import type { Logger } from "../../internal/logger.js";

/** Mints `req_` + 16 hex characters. */
export function newRequestId(): string {
  return `req_${randomBytes(8).toString("hex")}`;
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
