/**
 * Wildcard CORS on loopback reads (SPEC.md "Authentication" rule 5: "Reads on loopback answer
 * with wildcard CORS"). Past loopback, or outside /v1 and /extended, no CORS headers are sent,
 * so browsers cannot call the management routes cross-origin.
 */
import type { RequestHandler } from "express";
import { surfaceForPath } from "./auth.js";

export const CORS_ALLOWED_HEADERS = "Authorization, Content-Type, Last-Event-ID";
export const CORS_ALLOWED_METHODS = "GET, HEAD, OPTIONS";
const PREFLIGHT_MAX_AGE_SECONDS = "600";

/** Adds the CORS headers on loopback reads and answers their OPTIONS preflight with 204. */
export function createCors(access: { publishedOnLoopback: boolean }): RequestHandler {
  return (req, res, next) => {
    if (!access.publishedOnLoopback || surfaceForPath(req.path) !== "read") return next();
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Access-Control-Expose-Headers", "x-request-id");
    if (req.method !== "OPTIONS") return next();
    res.setHeader("Access-Control-Allow-Methods", CORS_ALLOWED_METHODS);
    res.setHeader("Access-Control-Allow-Headers", CORS_ALLOWED_HEADERS);
    res.setHeader("Access-Control-Max-Age", PREFLIGHT_MAX_AGE_SECONDS);
    // Browsers gate public-origin pages calling 127.0.0.1 behind this extra preflight answer
    // (Private Network Access); loopback reads are meant to be open, so grant it.
    if (req.headers["access-control-request-private-network"] === "true") {
      res.setHeader("Access-Control-Allow-Private-Network", "true");
    }
    res.status(204).end();
  };
}
