/**
 * THE route table (STYLE.md "Finding any route in one step"): every method and path the API
 * serves, its access rule and its handler. Later modules add rows here by importing their
 * handlers (subgraphs/read-routes.ts, events/index-routes.ts, webhooks/routes.ts, ...). Order matters where paths
 * overlap: list the literal segment (`.../count`) before the parameter (`.../:id`).
 */
import { deleteSubgraph, deploySubgraph, reindexSubgraph, SPEC_BODY } from "./subgraphs/management-routes.js";
import { webhookRoutes } from "./webhooks/routes.js";
import { getHealth, getMetrics, getNode, getStatus } from "./ops.js";
import { getSigningKey } from "./public.js";
import { getConsoleAsset, getConsolePage } from "./console.js";
import { getDocsAsset, getDocsPage, getOpenApi } from "./docs.js";
import type { ApiRouteTable } from "./types.js";
import { getPrintSchema, getTransactionProof, listIndexEvents } from "./events/index-routes.js";
import { listStreamEvents, streamEvents } from "./events/streams-routes.js";
import {
  aggregateTableRows,
  countTableRows,
  getSubgraph,
  getSubgraphDescriptor,
  getSubgraphOpenApi,
  getTableRow,
  listSubgraphs,
  listTableRows,
  streamTableRows,
} from "./subgraphs/read-routes.js";

export const routes: ApiRouteTable = [
  { method: "GET", path: "/health", auth: "public", handler: getHealth },
  { method: "GET", path: "/status", auth: "status", handler: getStatus },
  // Operator surfaces (DESIGN.md §6): Prometheus metrics, the stacks-node feeding the instance
  { method: "GET", path: "/metrics", auth: "status", handler: getMetrics },
  { method: "GET", path: "/api/node", auth: "write", handler: getNode },
  // Index and Streams (SPEC.md "Index and Streams routes", "SSE stream routes")
  { method: "GET", path: "/v1/index/events", auth: "read", handler: listIndexEvents },
  { method: "GET", path: "/v1/index/contracts/:contract_id/print-schema", auth: "read", handler: getPrintSchema },
  { method: "GET", path: "/v1/index/transactions/:tx_id/proof", auth: "read", handler: getTransactionProof },
  { method: "GET", path: "/v1/streams/events", auth: "read", handler: listStreamEvents },
  { method: "GET", path: "/v1/streams/events/stream", auth: "read", handler: streamEvents },
  { method: "GET", path: "/public/streams/signing-key", auth: "public", handler: getSigningKey },
  // The operators' web console (console.ts): page and bundle are public, the data it shows is not
  { method: "GET", path: "/console", auth: "public", handler: getConsolePage },
  { method: "GET", path: "/console/:asset", auth: "public", handler: getConsoleAsset },
  // The service's OpenAPI document and its reference page (docs.ts; every row here is documented
  // in openapi-operations.ts, or the service does not start)
  { method: "GET", path: "/openapi.json", auth: "public", handler: getOpenApi },
  { method: "GET", path: "/docs", auth: "public", handler: getDocsPage },
  { method: "GET", path: "/docs/:asset", auth: "public", handler: getDocsAsset },
  // Subgraph tables (SPEC.md "Subgraph routes"): literal segments before `:table` / `:id`
  { method: "GET", path: "/v1/subgraphs", auth: "read", handler: listSubgraphs },
  { method: "GET", path: "/v1/subgraphs/:name", auth: "read", handler: getSubgraph },
  { method: "GET", path: "/v1/subgraphs/:name/openapi.json", auth: "read", handler: getSubgraphOpenApi },
  { method: "GET", path: "/v1/subgraphs/:name/descriptor.json", auth: "read", handler: getSubgraphDescriptor },
  { method: "GET", path: "/v1/subgraphs/:name/:table", auth: "read", handler: listTableRows },
  { method: "GET", path: "/v1/subgraphs/:name/:table/count", auth: "read", handler: countTableRows },
  { method: "GET", path: "/v1/subgraphs/:name/:table/aggregate", auth: "read", handler: aggregateTableRows },
  { method: "GET", path: "/v1/subgraphs/:name/:table/stream", auth: "read", handler: streamTableRows },
  { method: "GET", path: "/v1/subgraphs/:name/:table/:id", auth: "read", handler: getTableRow },
  // Subgraph management (SPEC.md "Write and management routes"; subgraphs/management-routes.ts): deploy, reindex, delete
  { method: "POST", path: "/api/subgraphs", auth: "write", handler: deploySubgraph, body: SPEC_BODY },
  { method: "POST", path: "/api/subgraphs/:name/reindex", auth: "write", handler: reindexSubgraph },
  { method: "DELETE", path: "/api/subgraphs/:name", auth: "write", handler: deleteSubgraph },
  // Webhooks (SPEC.md "Write and management routes"; webhooks/routes.ts lists each path and handler):
  // create/list, get/update/delete, pause, resume, rotate-secret, test, deliveries, dead-letters
  // (+ requeue), replay — and the same under the deprecated alias (SPEC.md Versioning 4).
  ...webhookRoutes("/api/webhooks"),
  ...webhookRoutes("/api/subscriptions", { deprecatedFor: "/api/webhooks" }),
];
