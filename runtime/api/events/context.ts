/** What the Index and Streams handlers receive (../http/context.ts plus the events' own state). */
import type { RequestContext } from "../http/context.js";
import type { RouteHandler } from "../http/route-table.js";
import type { ChainHub } from "./chain-hub.js";
import type { EventsPageCache } from "./page-cache.js";
import type { PrintSchemaStore } from "./print-schema-store.js";

export interface EventsDeps {
  /** Fan-out of chain changes to SSE streams (chain-hub.ts); absent in shell-only tests (503). */
  chainHub?: ChainHub;
}

export interface EventsContext extends RequestContext, EventsDeps {
  /** Per-app cache of contracts' print schemas (created by createApiApp). */
  printSchemas: PrintSchemaStore;
  /** Per-app cache of rendered Index / Streams pages (created by createApiApp); null: off. */
  eventsPages: EventsPageCache | null;
}

export type EventsHandler = RouteHandler<EventsContext>;
