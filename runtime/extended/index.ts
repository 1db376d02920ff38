/** The Extended view's public entry (runtime/service.ts binds and serves it when EXTENDED_PORT is set). */
export { createExtendedApp, type ExtendedAppDeps } from "./app.js";
export { EXTENDED_ROUTES } from "./routes.js";
