/** autocannon (HTTP load generator) typed for the read benchmarks; it has no type declarations. */
import { createRequire } from "node:module";

export interface AutocannonResult {
  latency: { p50: number; p99: number; average: number };
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
}

export type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  /** Worker threads for the load itself, so it does not share the measured process's event loop. */
  workers?: number;
  /** Per-request hooks; with workers, `setupRequest` is the path of a module exporting the function. */
  requests?: { setupRequest?: string }[];
}) => Promise<AutocannonResult>;

export const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;
