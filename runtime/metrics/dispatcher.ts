/**
 * Webhook delivery metrics: attempts by outcome and their latency as the dispatcher finishes
 * them; outbox depth, dead letters and circuit states read when scraped.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Queryable } from "../db/types.js";
import type { CircuitState } from "../dispatcher/circuit.js";
import { type AttemptResult, outboxDepths } from "../dispatcher/outbox-store.js";
import { listWebhooks } from "../dispatcher/webhook-store.js";
import { PREFIX } from "./registry.js";

const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const CIRCUIT_STATES: readonly CircuitState[] = ["closed", "open", "half_open"];

export interface DispatcherMetrics {
  /** DispatcherOptions.onAttempt */
  onAttempt(result: AttemptResult): void;
}

export function createDispatcherMetrics(registry: Registry, sources: { db: Queryable }): DispatcherMetrics {
  const registers = [registry];
  const attempts = new Counter({
    name: `${PREFIX}webhook_attempts_total`,
    help: "Delivery attempts by outcome: delivered (2xx), retry (failed, tried again later), dead (failed, out of attempts)",
    labelNames: ["outcome"],
    registers,
  });
  for (const outcome of ["delivered", "retry", "dead"]) attempts.inc({ outcome }, 0);
  const latency = new Histogram({
    name: `${PREFIX}webhook_attempt_seconds`,
    help: "Duration of one delivery attempt (the POST until its answer, an error or the timeout)",
    buckets: ATTEMPT_BUCKETS,
    registers,
  });

  // One read of the outbox feeds both depth gauges.
  let reading: Promise<{ pending: number; dead: number }> | null = null;
  const depths = () => {
    reading ??= outboxDepths(sources.db)
      .then((rows) => ({
        pending: rows.reduce((n, r) => n + r.pending, 0),
        dead: rows.reduce((n, r) => n + r.dead, 0),
      }))
      .finally(() => {
        reading = null;
      });
    return reading;
  };
  new Gauge({
    name: `${PREFIX}webhook_outbox_pending`,
    help: "Deliveries waiting to be sent (due now or after a retry backoff)",
    registers,
    async collect() {
      this.set((await depths()).pending);
    },
  });
  new Gauge({
    name: `${PREFIX}webhook_dead_letters`,
    help: "Deliveries that ran out of attempts and wait in the dead letters (until requeued or replayed)",
    registers,
    async collect() {
      this.set((await depths()).dead);
    },
  });
  new Gauge({
    name: `${PREFIX}webhook_circuit_state`,
    help: "1 for each webhook's current circuit-breaker state (closed, open, half_open), 0 for the others",
    labelNames: ["webhook", "state"],
    registers,
    async collect() {
      this.reset();
      for (const w of await listWebhooks(sources.db)) {
        for (const state of CIRCUIT_STATES) this.set({ webhook: w.id, state }, w.circuit.state === state ? 1 : 0);
      }
    },
  });

  return {
    onAttempt(result) {
      const outcome = result.success ? "delivered" : result.next.status === "dead" ? "dead" : "retry";
      attempts.inc({ outcome });
      latency.observe(result.durationMs / 1000);
    },
  };
}
