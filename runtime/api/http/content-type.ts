/**
 * Request bodies of write routes (DESIGN.md §4): a body must carry
 * an accepted Content-Type (default application/json, any charset parameter) or the request
 * gets 415; JSON is parsed with a size limit. Parse and size failures are turned into
 * INVALID_JSON / PAYLOAD_TOO_LARGE by http/errors.ts. A JSON body nested deeper than
 * MAX_JSON_DEPTH is 400 BODY_TOO_DEEP: handlers and validators walk bodies recursively, and no
 * body of this API needs more than a few levels.
 */
import express, { type Request, type RequestHandler } from "express";
import { ServiceError } from "../../internal/errors.js";
import type { BodyOptions, HttpMethod } from "./route-table.js";

/** Largest JSON body accepted by default. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;
export const DEFAULT_BODY_TYPES: readonly string[] = ["application/json"];
/** Deepest nesting of arrays and objects a JSON body may have (the top-level value is depth 1). */
export const MAX_JSON_DEPTH = 64;
/** Methods whose routes get the body stack. */
export const BODY_METHODS: ReadonlySet<HttpMethod> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const isJsonType = (type: string) => type === "application/json" || type.endsWith("+json");

/** 415 UNSUPPORTED_MEDIA_TYPE when a request has a body whose type is not in `types`. */
export function requireBodyType(types: readonly string[]): RequestHandler {
  return (req, _res, next) => {
    if (!hasBody(req)) return next();
    if (req.is([...types])) return next();
    const got = req.headers["content-type"];
    next(
      new ServiceError(
        415,
        "UNSUPPORTED_MEDIA_TYPE",
        `request body must be ${types.join(" or ")}; got ${got ? JSON.stringify(got) : "no Content-Type"}`,
        { contentType: got ?? null, accepted: [...types] },
      ),
    );
  };
}

/**
 * Whether the request carries a body. Unlike type-is, `Content-Length: 0` counts as no body, so
 * a bodiless POST (what fetch sends for `{ method: "POST" }`) needs no Content-Type.
 */
export function hasBody(req: Request): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const length = req.headers["content-length"];
  return length !== undefined && Number(length) !== 0;
}

/** The middleware chain run before a body-carrying handler: type check, then parsing. */
export function createBodyParsers(options: BodyOptions = {}): RequestHandler[] {
  const types = options.types ?? DEFAULT_BODY_TYPES;
  const limit = options.limitBytes ?? JSON_BODY_LIMIT_BYTES;
  const jsonTypes = types.filter(isJsonType);
  const textTypes = types.filter((t) => !isJsonType(t));
  const chain: RequestHandler[] = [requireBodyType(types)];
  if (jsonTypes.length) chain.push(express.json({ limit, type: jsonTypes, strict: true }), rejectDeepBody);
  if (textTypes.length) chain.push(express.text({ limit, type: textTypes }));
  return chain;
}

/** 400 BODY_TOO_DEEP when the parsed body nests deeper than MAX_JSON_DEPTH. */
const rejectDeepBody: RequestHandler = (req, _res, next) => {
  if (!nestsDeeperThan(req.body, MAX_JSON_DEPTH)) return next();
  next(
    new ServiceError(
      400,
      "BODY_TOO_DEEP",
      `request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
      {
        maxDepth: MAX_JSON_DEPTH,
      },
    ),
  );
};

/** Whether `value` nests arrays/objects deeper than `max` levels. Pure; iterative, so any depth is safe. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== "object") continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}
