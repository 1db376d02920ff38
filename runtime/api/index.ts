/**
 * The API module (DESIGN.md §4): `createApiApp(deps)` builds the Express app from the route
 * table in routes.ts, `startApiServer(app, {host, port})` listens on it.
 */
export { type ApiAppDeps, createApiApp } from "./app.js";
export type { Surface } from "./http/auth.js";
export type { BodyOptions, HttpMethod, RouteEntry, RouteTable } from "./http/route-table.js";
export { routes } from "./routes.js";
export { type ApiServer, type ApiServerOptions, startApiServer } from "./http/server.js";
export type { ApiDeps, ApiHandler, HandlerContext, StatusSource } from "./types.js";
