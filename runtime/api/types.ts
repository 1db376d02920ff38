/**
 * The API's whole context (DESIGN.md §4): what the service provides (`ApiDeps`) and what a handler
 * of any surface may receive (`HandlerContext`), joined from the surfaces' own contexts. Types only.
 */
import type { EventsContext, EventsDeps } from "./events/context.js";
import type { SharedDeps } from "./http/context.js";
import type { RouteEntry, RouteHandler, RouteTable } from "./http/route-table.js";
import type { SubgraphsContext, SubgraphsDeps } from "./subgraphs/context.js";
import type { WebhooksContext, WebhooksDeps } from "./webhooks/context.js";

export type { MetricsSource, NodeSource, StatusSource } from "./http/context.js";

/** Everything the API needs from the rest of the service. */
export interface ApiDeps extends SharedDeps, EventsDeps, SubgraphsDeps, WebhooksDeps {}

/** What the app hands every handler: the deps, the per-app caches, this request's id and logger. */
export interface HandlerContext extends EventsContext, SubgraphsContext, WebhooksContext {}

/**
 * A route handler. Throw (or reject with) a ServiceError for a 4xx; anything else becomes a
 * logged 500 INTERNAL. The return value is ignored.
 */
export type ApiHandler = RouteHandler<HandlerContext>;

/** A row of the route table, and the table (routes.ts). */
export type ApiRoute = RouteEntry<HandlerContext>;
export type ApiRouteTable = RouteTable<HandlerContext>;
