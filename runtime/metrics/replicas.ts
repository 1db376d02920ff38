/**
 * Read-replica metrics (README "Read replicas"): per replica, its lag and whether requests use it,
 * from the replica checks (runtime/scale/read-replicas.ts, no query at scrape), and what its reads
 * came to. Nothing is exported until replicas are attached (DATABASE_READ_URL set).
 */
import { Counter, Gauge, type Registry } from "prom-client";
import type { ReplicaReadResult, ReplicaStatus } from "../scale/read-replicas.js";
import { PREFIX } from "./registry.js";

export interface ReplicaMetrics {
  /** Counts one replica read (ReadReplicasOptions.onRead). */
  onRead(replica: string, result: ReplicaReadResult): void;
  attach(status: () => ReplicaStatus[]): void;
}

export function createReplicaMetrics(registry: Registry): ReplicaMetrics {
  const registers = [registry];
  let status: (() => ReplicaStatus[]) | null = null;
  const reads = new Counter({
    name: `${PREFIX}read_replica_reads_total`,
    help: "/v1 reads tried on a read replica, by result: served, not_canonical (its tip was not canonical on the primary; read again there), failed (read again on the primary)",
    labelNames: ["replica", "result"],
    registers,
  });
  const perReplica = (name: string, help: string, value: (r: ReplicaStatus) => number) =>
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      labelNames: ["replica"],
      registers,
      collect() {
        this.reset();
        for (const r of status?.() ?? []) this.set({ replica: r.replica }, value(r));
      },
    });
  perReplica(
    "read_replica_lag_seconds",
    "Upper bound of how far the replica's replay is behind the primary, seconds (NaN when unknown: unreachable, or further behind than the history kept)",
    (r) => r.lag_seconds ?? Number.NaN,
  );
  perReplica(
    "read_replica_lag_bytes",
    "WAL bytes the primary had written past the replica's replay position at the last check (NaN when unknown)",
    (r) => r.lag_bytes ?? Number.NaN,
  );
  perReplica(
    "read_replica_used",
    "1 while /v1 reads use the replica (healthy, within READ_REPLICA_MAX_LAG_MS), else 0",
    (r) => (r.used ? 1 : 0),
  );
  return {
    onRead: (replica, result) => reads.inc({ replica, result }),
    attach(source) {
      status = source;
    },
  };
}
