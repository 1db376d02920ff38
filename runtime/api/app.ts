/**
 * Builds the Express app of the API shell (DESIGN.md §4; SPEC.md "Authentication", "Errors")
 * from the route table. Glue only: every decision lives in http/auth.ts, http/cors.ts, http/content-type.ts,
 * http/errors.ts and http/query-params.ts. Listening is http/server.ts's job.
 *
 * Stack: request id + access log → CORS (loopback reads) → each route [auth → body checks →
 * handler] → prefix-based auth for unmatched paths → JSON 404 → error middleware.
 */
import express, { type Express, type RequestHandler } from "express";
import { createAuthMiddleware, surfaceForPath } from "./http/auth.js";
import { BODY_METHODS, createBodyParsers } from "./http/content-type.js";
import { createCors } from "./http/cors.js";
import { createErrorHandler, notFoundHandler } from "./http/errors.js";
import { EventsPageCache } from "./events/page-cache.js";
import { createPrintSchemaStore } from "./events/print-schema-store.js";
import { createRequestContext, requestIdOf } from "./http/request-context.js";
import { SubgraphPageCache } from "./subgraphs/page-cache.js";
import { checkRouteTable } from "./http/route-table.js";
import { undocumentedRoutes } from "./openapi-document.js";
import { routes as defaultRoutes } from "./routes.js";
import type { ApiDeps, ApiHandler, ApiRoute, ApiRouteTable, HandlerContext } from "./types.js";

export interface ApiAppDeps extends ApiDeps {
  /** Defaults to the table in routes.ts; tests pass `[...routes, ...testRoutes]`. */
  routes?: ApiRouteTable;
  /** Sees every request and the page caches (the service's metrics, runtime/metrics/api.ts). */
  observer?: ApiObserver;
}

/** The app's page caches, as an observer sees them (hit and miss counts). */
export type ObservedCaches = Pick<HandlerContext, "eventsPages" | "subgraphPages">;

export interface ApiObserver {
  /** Runs first on every request. */
  middleware: RequestHandler;
  watchCaches(caches: ObservedCaches): void;
}

/** The configured Express app (not listening). Throws when the route table is inconsistent. */
export function createApiApp(deps: ApiAppDeps): Express {
  const { routes = defaultRoutes, observer, ...apiDeps } = deps;
  const problems = checkRouteTable(routes);
  // The served table must match its OpenAPI document (test tables add routes of their own).
  if (routes === defaultRoutes) {
    const { undocumented, unserved } = undocumentedRoutes(routes);
    problems.push(
      ...undocumented.map((r) => `${r}: not in openapi-operations.ts`),
      ...unserved.map((r) => `${r}: documented in openapi-operations.ts but not served`),
    );
  }
  if (problems.length) throw new Error(`invalid route table:\n${problems.map((p) => `  - ${p}`).join("\n")}`);

  const access = {
    publishedOnLoopback: apiDeps.config.publishedOnLoopback,
    instanceToken: apiDeps.config.instanceToken,
  };
  const app = express();
  app.disable("x-powered-by");
  // Simple parser: `a[b]=1` stays the key "a[b]", values are string | string[] (never objects).
  app.set("query parser", "simple");
  // Trust nothing: no X-Forwarded-* interpretation, exact-case paths, `<` `>` `&` escaped in JSON.
  app.set("trust proxy", false);
  app.set("case sensitive routing", true);
  app.set("json escape", true);

  if (observer) app.use(observer.middleware);
  app.use(createRequestContext(apiDeps.logger));
  app.use(createCors(access));
  const caches: AppCaches = {
    printSchemas: createPrintSchemaStore(),
    eventsPages: apiDeps.config.pageCacheBytes > 0 ? new EventsPageCache(apiDeps.config.pageCacheBytes) : null,
    subgraphPages: apiDeps.config.pageCacheBytes > 0 ? new SubgraphPageCache(apiDeps.config.pageCacheBytes) : null,
  };
  observer?.watchCaches(caches);
  for (const route of routes) {
    const stack = [
      createAuthMiddleware(access, route.auth),
      ...bodyStack(route),
      adapt(route.handler, apiDeps, caches),
    ];
    mountRoute(app, route, stack);
  }
  // Unknown paths under a protected prefix are checked too: past loopback an unknown /v1 path
  // answers 401, not 404, so the route list is not probeable without the token.
  app.use(createAuthMiddleware(access, (req) => surfaceForPath(req.path)));
  app.use(notFoundHandler);
  app.use(createErrorHandler(apiDeps.logger));
  return app;
}

function bodyStack(route: ApiRoute): RequestHandler[] {
  return BODY_METHODS.has(route.method) ? createBodyParsers(route.body) : [];
}

/** Per-app state handlers share. */
type AppCaches = Pick<HandlerContext, "printSchemas" | "eventsPages" | "subgraphPages">;

/** Turns an ApiHandler into Express middleware; Express 5 forwards its rejections to the error middleware. */
function adapt(handler: ApiHandler, deps: ApiDeps, caches: AppCaches): RequestHandler {
  return async (req, res) => {
    const requestId = requestIdOf(res);
    await handler(req, res, { ...deps, ...caches, requestId, log: deps.logger.child({ request_id: requestId }) });
  };
}

function mountRoute(app: Express, route: ApiRoute, stack: RequestHandler[]): void {
  const r = app.route(route.path);
  switch (route.method) {
    case "GET":
      r.get(...stack);
      return;
    case "POST":
      r.post(...stack);
      return;
    case "PUT":
      r.put(...stack);
      return;
    case "PATCH":
      r.patch(...stack);
      return;
    case "DELETE":
      r.delete(...stack);
      return;
  }
}
