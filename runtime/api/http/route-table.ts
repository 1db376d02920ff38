/**
 * Shape of the route table (STYLE.md "Finding any route in one step") and its load-time check.
 * The table itself lives in routes.ts; this file holds the types and the pure validation.
 */
import { surfaceForPath, type Surface, SURFACE_RANK } from "./auth.js";
import type { ApiHandler } from "../types.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Request-body rules of a POST/PUT/PATCH/DELETE route (see http/content-type.ts). */
export interface BodyOptions {
  /** Accepted media types; default `["application/json"]`. JSON types are parsed, others read as text. */
  types?: readonly string[];
  /** Largest body accepted in bytes; default JSON_BODY_LIMIT_BYTES (1 MiB). */
  limitBytes?: number;
}

/** One row of the route table. */
export interface RouteEntry {
  method: HttpMethod;
  /** Express 5 path, e.g. `/v1/subgraphs/:name/:table`. */
  path: string;
  /**
   * Access rule (SPEC.md Authentication): `public` (no check), `read` (/v1 reads: token only past
   * loopback), `write` (/api management: token whenever one is set), `status` (same as write).
   */
  auth: Surface;
  handler: ApiHandler;
  body?: BodyOptions;
}

export type RouteTable = readonly RouteEntry[];

/**
 * Lists what is wrong with a table: duplicate method+path, a path not starting with "/", or an
 * access rule weaker than the one its URL prefix demands (e.g. a `/v1` route marked public).
 */
export function checkRouteTable(table: RouteTable): string[] {
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
