/**
 * The API's error rendering (DESIGN.md §4 "Error body everywhere", STYLE.md "Errors"): one error
 * middleware turning anything thrown into `{ error, code, details? }`, and the JSON 404 that
 * ends the stack. `renderError` is the pure mapping; the middlewares are thin glue around it.
 */
import { STATUS_CODES } from "node:http";
import type { ErrorRequestHandler, RequestHandler } from "express";
import { notFound, ServiceError } from "../../internal/errors.js";
import type { Logger } from "../../internal/logger.js";
import { requestIdOf } from "./request-context.js";

export interface ErrorBody {
  error: string;
  code: string;
  details?: Record<string, unknown>;
}

export interface RenderedError {
  status: number;
  body: ErrorBody;
  /** True when the error is ours to fix (a 5xx): logged in full, shown to the client as generic. */
  internal: boolean;
}

/** body-parser / raw-body error types and what the client is told. */
const BODY_ERRORS: Readonly<Record<string, { status: number; code: string; message?: string }>> = {
  "entity.parse.failed": { status: 400, code: "INVALID_JSON", message: "request body is not valid JSON" },
  "entity.too.large": { status: 413, code: "PAYLOAD_TOO_LARGE" },
  "charset.unsupported": { status: 415, code: "UNSUPPORTED_MEDIA_TYPE" },
  "encoding.unsupported": { status: 415, code: "UNSUPPORTED_MEDIA_TYPE" },
  "request.aborted": { status: 400, code: "REQUEST_ABORTED", message: "request aborted while reading the body" },
  "request.size.invalid": {
    status: 400,
    code: "INVALID_REQUEST",
    message: "request body size did not match Content-Length",
  },
};

const INTERNAL: RenderedError = { status: 500, body: { error: "internal error", code: "INTERNAL" }, internal: true };

/** Maps any thrown value to a status and body. Pure. */
export function renderError(err: unknown): RenderedError {
  if (err instanceof ServiceError) {
    const body: ErrorBody = { error: err.message, code: err.code };
    if (err.details !== undefined) body.details = err.details;
    return { status: err.status, body, internal: err.status >= 500 };
  }
  const http = asHttpError(err);
  if (http && http.status >= 400 && http.status < 500) {
    const known = http.type !== undefined && Object.hasOwn(BODY_ERRORS, http.type) ? BODY_ERRORS[http.type] : undefined;
    if (known?.code === "PAYLOAD_TOO_LARGE" && typeof http.limit === "number") {
      return {
        status: 413,
        body: {
          error: `request body exceeds ${http.limit} bytes`,
          code: known.code,
          details: { limitBytes: http.limit },
        },
        internal: false,
      };
    }
    const status = known?.status ?? http.status;
    const message =
      known?.message ?? (http.expose && http.message ? http.message : (STATUS_CODES[status] ?? "bad request"));
    return { status, body: { error: message, code: known?.code ?? codeForStatus(status) }, internal: false };
  }
  return INTERNAL;
}

/** `413` → `PAYLOAD_TOO_LARGE`, from Node's status text. */
export function codeForStatus(status: number): string {
  return (STATUS_CODES[status] ?? `HTTP ${status}`).toUpperCase().replace(/[^A-Z0-9]+/g, "_");
}

interface HttpErrorLike {
  status: number;
  type?: string;
  expose?: boolean;
  message?: string;
  limit?: unknown;
}

/** Errors from Express's own packages (http-errors) carry `status`/`statusCode` and often `type`. */
function asHttpError(err: unknown): HttpErrorLike | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as Record<string, unknown>;
  const status = typeof e.status === "number" ? e.status : typeof e.statusCode === "number" ? e.statusCode : undefined;
  if (status === undefined || !Number.isInteger(status)) return undefined;
  return {
    status,
    type: typeof e.type === "string" ? e.type : undefined,
    expose: e.expose === true,
    message: typeof e.message === "string" ? e.message : undefined,
    limit: e.limit,
  };
}

/** The single error middleware. Internal errors are logged with the request id, never shown. */
export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const rendered = renderError(err);
    const requestId = requestIdOf(res);
    if (rendered.internal) {
      logger.error({ msg: "request failed", request_id: requestId, method: req.method, path: req.path, error: err });
    }
    if (res.headersSent) {
      // Mid-response (e.g. a stream): nothing sane can be appended; cut the connection so the
      // client sees a truncated response rather than a well-formed but incomplete one.
      res.destroy();
      return;
    }
    if (rendered.status === 401) res.setHeader("WWW-Authenticate", "Bearer");
    res.status(rendered.status).json(rendered.body);
  };
}

/** Last in the stack: any request no route answered. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  const path = req.path.length > 200 ? `${req.path.slice(0, 200)}…` : req.path;
  next(notFound("NOT_FOUND", `no route ${req.method} ${path}`));
};
