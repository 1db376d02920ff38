/**
 * Shared types of the API shell (DESIGN.md §4): what handlers receive and what the ingestion
 * module must provide to /health and /status. Types only; no Express glue here.
 */
import type { Request, Response } from "express";
import type { Config } from "../config/index.js";
import type { Db } from "../db/types.js";
import type { Logger } from "../internal/logger.js";
import type { WebhookService } from "../dispatcher/index.js";
import type { SigningKey } from "../internal/signing-key.js";
import type { SubgraphEngine } from "../subgraphs/index.js";
import type { ChainHub } from "./events/chain-hub.js";
import type { EventsPageCache } from "./events/page-cache.js";
import type { SubgraphPageCache } from "./subgraphs/page-cache.js";
import type { PrintSchemaStore } from "./events/print-schema-store.js";

/** Readiness and status figures, implemented by the ingestion module. */
export interface StatusSource {
  /** True once migrations ran and reads can be answered (GET /health answers 200 from then on). */
  isReady(): boolean;
  /** Body of GET /status: tip, finalized height, lag, counts, malformed-payload count. */
  getStatus(): Promise<Record<string, unknown>>;
}

/** Everything the API needs from the rest of the service; later modules add their fields here. */
export interface ApiDeps {
  config: Readonly<Config>;
  logger: Logger;
  status: StatusSource;
  db: Db;
  /** The instance's ed25519 key (GET /public/streams/signing-key); absent in shell-only tests (503). */
  signingKey?: SigningKey;
  /** Fan-out of chain changes to SSE streams (events/chain-hub.ts); absent in shell-only tests (503). */
  chainHub?: ChainHub;
  /** The subgraph engine (runtime/subgraphs): deploy, reindex, delete, progress; absent in shell-only tests (503). */
  subgraphs?: SubgraphEngine;
  /** Webhook management (runtime/dispatcher): secrets, subgraph catalog, test deliveries; absent in shell-only tests (503). */
  webhooks?: WebhookService;
}

/** What a handler receives besides req/res: the deps plus this request's id and logger. */
export interface HandlerContext extends ApiDeps {
  /** `req_…`, also sent back as the `x-request-id` response header. */
  requestId: string;
  /** The service logger bound to `request_id`. */
  log: Logger;
  /** Per-app cache of contracts' print schemas (created by createApiApp). */
  printSchemas: PrintSchemaStore;
  /** Per-app cache of rendered Index / Streams pages (created by createApiApp); null: off. */
  eventsPages: EventsPageCache | null;
  /** Per-app cache of rendered subgraph list pages (created by createApiApp); null: off. */
  subgraphPages: SubgraphPageCache | null;
}

/**
 * A route handler. Throw (or reject with) a ServiceError for a 4xx; anything else becomes a
 * logged 500 INTERNAL. The return value is ignored.
 */
export type ApiHandler = (req: Request, res: Response, ctx: HandlerContext) => unknown;
