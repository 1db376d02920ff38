/**
 * The API module's public entry (DESIGN.md §4): `createApiApp(deps)` builds the Express app from
 * the route table in routes.ts; `listen` binds the port first and takes the app later (start-up
 * answers 503 meanwhile), `startApiServer(app, {host, port})` does both at once; `createChainHub`
 * is the one chain listener per process that wakes the SSE streams and read caches. The access
 * rule and CORS middlewares are shared with the Extended view (runtime/extended), whose reads
 * follow /v1's rules.
 */
export { type ApiAppDeps, type ApiObserver, createApiApp, type ObservedCaches } from "./app.js";
export { type AccessConfig, createAuthMiddleware, type Surface } from "./http/auth.js";
export { createCors } from "./http/cors.js";
export type { BodyOptions, HttpMethod, RouteEntry, RouteHandler, RouteTable } from "./http/route-table.js";
export { routes } from "./routes.js";
export { type ApiServer, type ApiServerOptions, type Listener, listen, startApiServer } from "./http/server.js";
export { type ChainHub, createChainHub } from "./events/chain-hub.js";
export type {
  ApiDeps,
  ApiHandler,
  ApiRoute,
  ApiRouteTable,
  HandlerContext,
  MetricsSource,
  NodeSource,
  StatusSource,
} from "./types.js";
