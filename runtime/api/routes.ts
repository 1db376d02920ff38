/**
 * THE route table (STYLE.md "Finding any route in one step"): every method and path the API
 * serves, its access rule and its handler. Later modules add rows here by importing their
 * handlers (v1-subgraphs.ts, v1-index.ts, api-webhooks.ts, ...). Order matters where paths
 * overlap: list the literal segment (`.../count`) before the parameter (`.../:id`).
 */
import { getHealth, getStatus } from "./ops.js";
import { getSigningKey } from "./public.js";
import type { RouteTable } from "./route-table.js";
import { getPrintSchema, getTransactionProof, listIndexEvents } from "./v1-index.js";
import { listStreamEvents, streamEvents } from "./v1-streams.js";

export const routes: RouteTable = [
  { method: "GET", path: "/health", auth: "public", handler: getHealth },
  { method: "GET", path: "/status", auth: "status", handler: getStatus },
  // Index and Streams (SPEC.md "Index and Streams routes", "SSE stream routes")
  { method: "GET", path: "/v1/index/events", auth: "read", handler: listIndexEvents },
  { method: "GET", path: "/v1/index/contracts/:contract_id/print-schema", auth: "read", handler: getPrintSchema },
  { method: "GET", path: "/v1/index/transactions/:tx_id/proof", auth: "read", handler: getTransactionProof },
  { method: "GET", path: "/v1/streams/events", auth: "read", handler: listStreamEvents },
  { method: "GET", path: "/v1/streams/events/stream", auth: "read", handler: streamEvents },
  { method: "GET", path: "/public/streams/signing-key", auth: "public", handler: getSigningKey },
];
