/**
 * How the Index / Streams list handlers read a page: through the per-app page cache
 * (events/page-cache.ts), or straight from the database when PAGE_CACHE_MB=0; either way on a
 * read replica when one is usable (../http/chain-reads.ts).
 */
import type { EventsPage } from "./page.js";
import { readEventsPage, readEventsPageCached } from "./page.js";
import type { EventsQuery } from "./query.js";
import type { EventsContext } from "./context.js";

export function readPage(ctx: EventsContext, query: EventsQuery): Promise<EventsPage> {
  if (ctx.eventsPages === null) return readEventsPage(ctx, query);
  return readEventsPageCached(ctx, query, { pages: ctx.eventsPages, hub: ctx.chainHub });
}
