/**
 * The service's metrics (README "Metrics"; DESIGN.md §6 operator surfaces): one registry per
 * service instance and one module per area, each fed where its work happens (ingest.ts,
 * subgraphs.ts, api.ts, dispatcher.ts, replicas.ts) or read when scraped. `runtime/service.ts` wires them in.
 */
import type { Registry } from "prom-client";
import type { ApiObserver, MetricsSource } from "../api/index.js";
import type { Queryable } from "../db/types.js";
import { createApiMetrics } from "./api.js";
import { createDispatcherMetrics, type DispatcherMetrics } from "./dispatcher.js";
import { createIngestMetrics, type IngestGaugeSources, type IngestMetrics } from "./ingest.js";
import { registerNodeMetrics } from "./node.js";
import { createReplicaMetrics, type ReplicaMetrics } from "./replicas.js";
import { createRegistry } from "./registry.js";
import { createSubgraphMetrics, type SubgraphMetrics } from "./subgraphs.js";

export { PREFIX } from "./registry.js";
export { UNMATCHED_ROUTE } from "./api.js";

export interface ServiceMetrics extends MetricsSource {
  registry: Registry;
  ingest: IngestMetrics;
  subgraphs: SubgraphMetrics;
  api: ApiObserver;
  dispatcher: DispatcherMetrics;
  replicas: ReplicaMetrics;
}

export function createServiceMetrics(
  sources: IngestGaugeSources & { db: Queryable; stacksNodeRpcUrl: string | null },
): ServiceMetrics {
  const registry = createRegistry();
  registerNodeMetrics(registry, { db: sources.db, rpcUrl: sources.stacksNodeRpcUrl });
  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    ingest: createIngestMetrics(registry, sources),
    subgraphs: createSubgraphMetrics(registry),
    api: createApiMetrics(registry),
    dispatcher: createDispatcherMetrics(registry, { db: sources.db }),
    replicas: createReplicaMetrics(registry),
  };
}
