/**
 * The instance's metrics registry (README "Metrics"). Each service gets its own prom-client
 * Registry, never the library's global one, so several services in one process (tests) keep their
 * figures apart. Process metrics (RSS, event-loop lag, GC) are prom-client's defaults registered
 * on this registry.
 */
import { collectDefaultMetrics, Registry } from "prom-client";

/** Every sluice metric name starts with this. */
export const PREFIX = "sluice_";

export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  return registry;
}

/** Seconds since `start` (a `process.hrtime.bigint()` reading). */
export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}
