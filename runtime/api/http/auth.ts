/**
 * Instance-token access control (SPEC.md "Authentication", rules 1-4): the pure decision
 * `decideAccess`, its helpers, and the Express middleware that applies it.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler } from "express";
import { unauthorized } from "../../internal/errors.js";

/**
 * Which access rule a request falls under:
 * - `public`: /health, /public/... — never checked;
 * - `read`: /v1 and /extended reads — free on loopback, token past loopback;
 * - `write`: /api management (deploy, reindex, webhooks, node) — token whenever one is set;
 * - `status`: /status — token whenever one is set.
 */
export type Surface = "public" | "read" | "write" | "status";
export type AccessDecision = "allow" | "deny";

/** Strictness order, used to check a route does not declare a weaker rule than its prefix. */
export const SURFACE_RANK: Readonly<Record<Surface, number>> = { public: 0, read: 1, write: 2, status: 2 };

export interface AccessInput {
  surface: Surface;
  /** Config.publishedOnLoopback: how the port is published (API_PUBLISH_ADDR), not who calls. */
  publishedOnLoopback: boolean;
  /** Config.instanceToken (INSTANCE_TOKEN, else the legacy SLUICE_API_KEY), or null. */
  instanceToken: string | null;
  /** The token from `Authorization: Bearer <t>`, or null when absent/malformed. */
  presentedToken: string | null;
}

/** Decides one request. Pure: no I/O, no clock. Fails closed on combinations config forbids. */
export function decideAccess(input: AccessInput): AccessDecision {
  const { surface, publishedOnLoopback } = input;
  const instanceToken = input.instanceToken || null;
  const tokenMatches =
    instanceToken !== null && input.presentedToken !== null && tokensEqual(input.presentedToken, instanceToken);
  switch (surface) {
    case "public":
      return "allow";
    case "read":
      // Rule 2: "On loopback, a token sent on a read is used if it matches and ignored if it does
      // not; presenting a key never turns a working read into a 401."
      if (publishedOnLoopback) return "allow";
      // Rule 3: "If published on any other address, every /v1 request needs the token."
      return tokenMatches ? "allow" : "deny";
    case "write":
    case "status":
      // Rule 1: "Once the instance has a token, /api/... and /status require it on every call,
      // including from the same host." Without a token only loopback is open (rule 4 keeps a
      // tokenless instance off public addresses; deny anyway if config ever let one through).
      if (instanceToken === null) return publishedOnLoopback ? "allow" : "deny";
      return tokenMatches ? "allow" : "deny";
  }
}

/**
 * Constant-time token comparison. Both sides are hashed with SHA-256 first so timingSafeEqual
 * always compares equal-length buffers and the time taken does not reveal the token's length.
 */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b);
}

/**
 * Extracts `<t>` from `Authorization: Bearer <t>` (scheme case-insensitive, surrounding blanks
 * trimmed); null for any other header. Everything after the scheme is the token, so a configured
 * token containing a space still matches.
 */
export function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer[ \t]+(.*)$/i.exec(header);
  const token = m?.[1].trim();
  return token ? token : null;
}

/**
 * The rule a URL prefix demands, also applied to requests no route matched so that an unknown
 * /v1 path past loopback answers 401 rather than revealing which routes exist.
 */
export function surfaceForPath(path: string): Surface {
  const p = path.toLowerCase().replace(/\/{2,}/g, "/");
  const under = (prefix: string) => p === prefix || p.startsWith(`${prefix}/`);
  if (under("/v1") || under("/extended")) return "read";
  if (under("/api")) return "write";
  if (under("/status")) return "status";
  return "public";
}

export interface AccessConfig {
  publishedOnLoopback: boolean;
  instanceToken: string | null;
}

/**
 * Middleware enforcing one surface (or one chosen per request). A denial goes to the error
 * middleware as 401 UNAUTHORIZED, which adds `WWW-Authenticate: Bearer`.
 */
export function createAuthMiddleware(
  access: AccessConfig,
  surface: Surface | ((req: Request) => Surface),
): RequestHandler {
  return (req, _res, next) => {
    const decision = decideAccess({
      surface: typeof surface === "function" ? surface(req) : surface,
      publishedOnLoopback: access.publishedOnLoopback,
      instanceToken: access.instanceToken,
      presentedToken: parseBearer(req.headers.authorization),
    });
    if (decision === "allow") next();
    else next(unauthorized("a valid instance token is required: send Authorization: Bearer <INSTANCE_TOKEN>"));
  };
}
