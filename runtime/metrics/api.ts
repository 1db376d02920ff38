/**
 * API metrics: requests by route pattern (the route table's Express path, never the raw URL, so
 * label values stay few) and status, their latency, open SSE streams, and page-cache lookups.
 */
import type { Request, RequestHandler } from "express";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { ApiObserver, ObservedCaches } from "../api/index.js";
import { PREFIX, secondsSince } from "./registry.js";

/** The `route` label of a request no route matched (404s, unknown paths refused by auth). */
export const UNMATCHED_ROUTE = "unmatched";

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

export function createApiMetrics(registry: Registry): ApiObserver {
  const registers = [registry];
  const requests = new Counter({
    name: `${PREFIX}api_requests_total`,
    help: "API requests answered, by method, route pattern and status code",
    labelNames: ["method", "route", "status"],
    registers,
  });
  const latency = new Histogram({
    name: `${PREFIX}api_request_seconds`,
    help: "Time to answer an API request (until the response is sent; SSE streams excluded)",
    labelNames: ["method", "route"],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const sseClients = new Gauge({
    name: `${PREFIX}api_sse_clients`,
    help: "Server-Sent Event streams open now (event streams and row streams)",
    registers,
  });
  const caches: ObservedCaches[] = [];
  new Counter({
    name: `${PREFIX}api_page_cache_lookups_total`,
    help: "Page-cache lookups by cache (events, subgraphs) and result (hit, miss)",
    labelNames: ["cache", "result"],
    registers,
    collect() {
      // The caches keep plain counts; the counter mirrors their sums when scraped.
      this.reset();
      let eventsHits = 0;
      let eventsMisses = 0;
      let subgraphHits = 0;
      let subgraphMisses = 0;
      for (const c of caches) {
        eventsHits += c.eventsPages?.hits ?? 0;
        eventsMisses += c.eventsPages?.misses ?? 0;
        subgraphHits += c.subgraphPages?.hits ?? 0;
        subgraphMisses += c.subgraphPages?.misses ?? 0;
      }
      this.inc({ cache: "events", result: "hit" }, eventsHits);
      this.inc({ cache: "events", result: "miss" }, eventsMisses);
      this.inc({ cache: "subgraphs", result: "hit" }, subgraphHits);
      this.inc({ cache: "subgraphs", result: "miss" }, subgraphMisses);
    },
  });

  const middleware: RequestHandler = (req, res, next) => {
    const start = process.hrtime.bigint();
    let stream = false;
    res.locals.eventStreamOpened = () => {
      stream = true;
      sseClients.inc();
      res.once("close", () => sseClients.dec());
    };
    res.once("close", () => {
      const route = routeOf(req);
      requests.inc({ method: req.method, route, status: String(res.statusCode) });
      if (!stream) latency.observe({ method: req.method, route }, secondsSince(start));
    });
    next();
  };

  return {
    middleware,
    watchCaches(c) {
      caches.push(c);
    },
  };
}

/** The matched route's path from the table, or UNMATCHED_ROUTE. */
function routeOf(req: Request): string {
  const path: unknown = req.route?.path;
  return typeof path === "string" ? path : UNMATCHED_ROUTE;
}
