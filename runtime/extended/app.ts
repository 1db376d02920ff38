/**
 * The Extended view's Express app (SPEC.md "/extended reads: same as /v1"): the read access rule
 * of runtime/api/http/auth.ts under the Extended port's own publish address, wildcard CORS on
 * loopback as for /v1, the GET routes of routes.ts, 501 for node-only routes, Hiro-shaped errors.
 */
import express, { type Express, type RequestHandler } from "express";
import { createAuthMiddleware, createCors } from "../api/index.js";
import type { Db } from "../db/types.js";
import type { Logger } from "../internal/logger.js";
import type { ExtendedRoute } from "./context.js";
import { errorHandler, invalidParam, notFoundRoute } from "./errors.js";
import { EXTENDED_ROUTES } from "./routes.js";
import { NODE_ONLY_PATHS, nodeOnly } from "./unsupported.js";

export interface ExtendedAppDeps {
  db: Db;
  logger: Logger;
  /** How the Extended port is published (EXTENDED_PUBLISH_ADDR) and the instance token. */
  access: { publishedOnLoopback: boolean; instanceToken: string | null };
  routes?: readonly ExtendedRoute[];
}

export function createExtendedApp({ db, logger, access, routes = EXTENDED_ROUTES }: ExtendedAppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  app.set("trust proxy", false);
  app.set("case sensitive routing", true);
  app.set("json escape", true);
  app.use(createCors(access));
  // Every path on this port is a read: the same rule as /v1 (loopback free, token past it).
  app.use(createAuthMiddleware(access, "read"));
  // Before the routes: `/extended/v1/tx/mempool` must not be read as a transaction id.
  for (const path of NODE_ONLY_PATHS) app.all(path, nodeOnly);
  for (const route of routes) {
    const handle: RequestHandler = async (req, res) => {
      checkQuery(req.query, route.query);
      res.json(await route.handler(req, { db }));
    };
    app.get(route.path, handle);
  }
  app.use(notFoundRoute);
  app.use(errorHandler(logger));
  return app;
}

/**
 * Query parameters outside the route's list are refused (a Hiro filter sluice does not apply would
 * otherwise answer with the unfiltered list). `unanchored` is taken everywhere: sluice has only
 * anchored data, which is what either value then reads.
 */
function checkQuery(query: Record<string, unknown>, allowed: readonly string[]): void {
  for (const name of Object.keys(query)) {
    if (name === "unanchored" || allowed.includes(name)) continue;
    throw invalidParam(
      `query parameter "${name}" is not supported here${allowed.length ? ` (supported: ${allowed.join(", ")})` : ""}`,
      { parameter: name },
    );
  }
}
