/**
 * Error bodies of the Extended view (docs/extended.md "Errors"): Hiro's shape, `{ error, message? }`
 * plus extra fields of the failing lookup (e.g. `tx_id`), with sluice's stable `code` added. One
 * class thrown by handlers, one middleware rendering it; anything else is a logged 500.
 */
import type { ErrorRequestHandler, RequestHandler } from "express";
import type { Logger } from "../internal/logger.js";

/** An error the Extended view answers with: status, code, Hiro's `error` text and extra fields. */
export class ExtendedError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ExtendedError";
  }
}

export const invalidParam = (message: string, extra?: Record<string, unknown>) =>
  new ExtendedError(400, "INVALID_PARAMETER", message, extra);

export const notFoundError = (code: string, message: string, extra?: Record<string, unknown>) =>
  new ExtendedError(404, code, message, extra);

/**
 * 501 for what only a node's RPC or mempool knows (fees, mempool, `/v2/*` proxies, faucets): sluice
 * indexes blocks as the node sends them, and never answers with an invented value.
 */
export const notImplemented = (path: string) =>
  new ExtendedError(
    501,
    "NOT_SERVED",
    "sluice's Extended view does not serve this route: it needs a node's RPC or mempool, or is outside the supported set (docs/extended.md)",
    { path },
  );

/** Body of an error response. Pure. */
export function errorBody(err: ExtendedError): Record<string, unknown> {
  return { ...err.extra, error: err.message, code: err.code };
}

/** Unknown path under /extended: 404 for nothing we serve. */
export const notFoundRoute: RequestHandler = (req, _res, next) => {
  next(notFoundError("NOT_FOUND", `no route ${req.method} ${req.path}`));
};

/** Renders ExtendedError as-is, 401s from the shared auth middleware in the same shape, the rest as 500. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const e = asExtended(err);
    if (e === null) {
      logger.error({ msg: "extended view request failed", error: err });
      res.status(500).json({ error: "internal error", code: "INTERNAL" });
      return;
    }
    if (e.status === 401) res.setHeader("WWW-Authenticate", "Bearer");
    res.status(e.status).json(errorBody(e));
  };
}

function asExtended(err: unknown): ExtendedError | null {
  if (err instanceof ExtendedError) return err;
  // ServiceError from runtime/api/http/auth.ts (401) and body parsers: same status and code.
  const s = err as { status?: unknown; code?: unknown; message?: unknown } | null;
  if (s && typeof s.status === "number" && s.status >= 400 && s.status < 500 && typeof s.code === "string") {
    return new ExtendedError(s.status, s.code, String(s.message));
  }
  return null;
}
