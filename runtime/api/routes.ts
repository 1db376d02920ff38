/**
 * THE route table (STYLE.md "Finding any route in one step"): every method and path the API
 * serves, its access rule and its handler. Later modules add rows here by importing their
 * handlers (v1-subgraphs.ts, v1-index.ts, api-webhooks.ts, ...). Order matters where paths
 * overlap: list the literal segment (`.../count`) before the parameter (`.../:id`).
 */
import { getHealth, getStatus } from "./ops.js";
import type { RouteTable } from "./route-table.js";

export const routes: RouteTable = [
  { method: "GET", path: "/health", auth: "public", handler: getHealth },
  { method: "GET", path: "/status", auth: "status", handler: getStatus },
];
