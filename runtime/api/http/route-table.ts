/**
 * Shape of the route table (STYLE.md "Finding any route in one step") and its load-time check.
 * The table itself lives in ../routes.ts; this file holds the types and the pure validation. A
 * route's handler receives the context its surface declares (`Context`).
 */
import { surfaceForPath, type Surface, SURFACE_RANK } from "./auth.js";
import type { Request, Response } from "express";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * A route handler. Throw (or reject with) a ServiceError for a 4xx; anything else becomes a
 * logged 500 INTERNAL. The return value is ignored.
 */
export type RouteHandler<Context> = (req: Request, res: Response, ctx: Context) => unknown;

/** Request-body rules of a POST/PUT/PATCH/DELETE route (see http/content-type.ts). */
export interface BodyOptions {
  /** Accepted media types; default `["application/json"]`. JSON types are parsed, others read as text. */
  types?: readonly string[];
  /** Largest body accepted in bytes; default JSON_BODY_LIMIT_BYTES (1 MiB). */
  limitBytes?: number;
}

/** One row of the route table. */
export interface RouteEntry<Context> {
  method: HttpMethod;
  /** Express 5 path, e.g. `/v1/subgraphs/:name/:table`. */
  path: string;
  /**
   * Access rule (SPEC.md Authentication): `public` (no check), `read` (/v1 reads: token only past
   * loopback), `write` (/api management: token whenever one is set), `status` (same as write).
   */
  auth: Surface;
  handler: RouteHandler<Context>;
  body?: BodyOptions;
}

export type RouteTable<Context> = readonly RouteEntry<Context>[];

/**
 * Lists what is wrong with a table: duplicate method+path, a path not starting with "/", or an
 * access rule weaker than the one its URL prefix demands (e.g. a `/v1` route marked public).
 */
export function checkRouteTable<Context>(table: RouteTable<Context>): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const route of table) {
    const key = `${route.method} ${route.path}`;
    if (!route.path.startsWith("/")) problems.push(`${key}: path must start with "/"`);
    if (seen.has(key)) problems.push(`${key}: listed twice`);
    seen.add(key);
    const required = surfaceForPath(route.path);
    if (SURFACE_RANK[route.auth] < SURFACE_RANK[required]) {
      problems.push(`${key}: auth "${route.auth}" is weaker than "${required}" required under this prefix`);
    }
  }
  return problems;
}
