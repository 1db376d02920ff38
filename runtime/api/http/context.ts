/**
 * What every route handler receives besides req/res, whatever its surface: the service's shared
 * dependencies plus this request's id and logger. Each surface extends it with what its handlers
 * use (events/context.ts, subgraphs/context.ts, webhooks/context.ts); ../types.ts joins them.
 */
import type { Config } from "../../config/index.js";
import type { Db } from "../../db/types.js";
import type { Logger } from "../../internal/logger.js";
import type { SigningKey } from "../../internal/signing-key.js";
import type { ChainReads } from "../../scale/read-replicas.js";

/** Readiness and status figures, implemented by the ingestion module. */
export interface StatusSource {
  /** True once migrations ran and reads can be answered (GET /health answers 200 from then on). */
  isReady(): boolean;
  /** Body of GET /status: tip, finalized height, lag, counts, malformed-payload count. */
  getStatus(): Promise<Record<string, unknown>>;
}

/** GET /metrics: the instance's metrics in the Prometheus text format (runtime/metrics/). */
export interface MetricsSource {
  contentType: string;
  render(): Promise<string>;
}

/** GET /api/node: what the instance knows of the stacks-node feeding it (runtime/observer/node-report.ts). */
export interface NodeSource {
  report(): Promise<Record<string, unknown>>;
}

/** What the service hands every surface. */
export interface SharedDeps {
  config: Readonly<Config>;
  logger: Logger;
  status: StatusSource;
  db: Db;
  /** The instance's ed25519 key (GET /public/streams/signing-key); absent in shell-only tests (503). */
  signingKey?: SigningKey;
  /** Absent in shell-only tests (GET /metrics answers 503). */
  metrics?: MetricsSource;
  /** Absent in shell-only tests (GET /api/node answers 503). */
  node?: NodeSource;
  /**
   * Read replicas for /v1 reads of indexed chain data (runtime/scale/read-replicas.ts); absent
   * without DATABASE_READ_URL: everything is read from `db` (chain-reads.ts).
   */
  reads?: ChainReads;
}

export interface RequestContext extends SharedDeps {
  /** `req_…`, also sent back as the `x-request-id` response header. */
  requestId: string;
  /** The service logger bound to `request_id`. */
  log: Logger;
}
