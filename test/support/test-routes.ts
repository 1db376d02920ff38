/**
 * Test-only routes registered through createApiApp's `routes` parameter: real handlers standing
 * in for the /v1 and /api routes the service adds, so auth, CORS, bodies and errors can be
 * exercised end to end before those exist.
 */
import {
  LIST_PARAM_ALIASES,
  parseEnumParam,
  parseIntegerParam,
  rejectUnknownParams,
} from "../../runtime/api/http/query-params.js";
import type { ApiRouteTable } from "../../runtime/api/types.js";
import { routes } from "../../runtime/api/routes.js";

export const testRoutes: ApiRouteTable = [
  { method: "GET", path: "/v1/test/rows", auth: "read", handler: (_req, res) => res.json({ rows: [] }) },
  { method: "GET", path: "/extended/test/rows", auth: "read", handler: (_req, res) => res.json({ rows: [] }) },
  {
    method: "GET",
    path: "/v1/test/params",
    auth: "read",
    handler: (req, res) => {
      rejectUnknownParams(req.query, ["_limit", "_order", "cursor"], { aliases: LIST_PARAM_ALIASES });
      const limit = parseIntegerParam("_limit", req.query._limit, { min: 1, max: 1000, default: 50 });
      const order = parseEnumParam("_order", req.query._order, ["asc", "desc"], "asc");
      res.json({ limit, order });
    },
  },
  {
    method: "GET",
    path: "/v1/test/boom",
    auth: "read",
    handler: () => {
      throw new Error("connection to postgres://admin:hunter2@db failed");
    },
  },
  {
    method: "GET",
    path: "/v1/test/boom-async",
    auth: "read",
    handler: async () => {
      await Promise.resolve();
      throw new TypeError("cannot read properties of undefined");
    },
  },
  {
    method: "GET",
    path: "/v1/test/stream",
    auth: "read",
    handler: (_req, res) => {
      res.setHeader("Content-Type", "text/event-stream");
      res.setHeader("Cache-Control", "no-store");
      res.flushHeaders();
      res.write(": connected\n\n");
      const timer = setInterval(() => res.write(": ping\n\n"), 50);
      res.on("close", () => clearInterval(timer));
    },
  },
  {
    method: "POST",
    path: "/api/test/echo",
    auth: "write",
    handler: (req, res) => res.json({ received: req.body ?? null }),
  },
  { method: "DELETE", path: "/api/test/echo", auth: "write", handler: (_req, res) => res.status(204).end() },
  {
    method: "POST",
    path: "/api/test/spec",
    auth: "write",
    body: { types: ["application/json", "application/yaml"] },
    handler: (req, res) => res.json({ kind: typeof req.body, body: req.body ?? null }),
  },
];

/** The real table plus the test routes. */
export const allRoutes: ApiRouteTable = [...routes, ...testRoutes];
