/**
 * Subgraph metrics: per-subgraph apply time and failures as the engine reports them
 * (SubgraphApplyObserver), height, status and table rows read when scraped.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Queryable } from "../db/types.js";
import type { SubgraphApplyObserver, SubgraphEngine } from "../subgraphs/index.js";
import type { SubgraphProgress } from "../subgraphs/types.js";
import { countSubgraphRows } from "../subgraphs/table-row-counts.js";
import { PREFIX } from "./registry.js";

const APPLY_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];
const STATUSES = ["ready", "backfilling", "reindexing", "failed"] as const;

/** The observer the engine is built with; its gauges are attached once the engine exists. */
export interface SubgraphMetrics extends SubgraphApplyObserver {
  attach(sources: { db: Queryable; engine: SubgraphEngine }): void;
}

export function createSubgraphMetrics(registry: Registry): SubgraphMetrics {
  const registers = [registry];
  const apply = new Histogram({
    name: `${PREFIX}subgraph_apply_seconds`,
    help: "Time one subgraph spent on one live block (handlers, planning, row writes)",
    labelNames: ["subgraph"],
    buckets: APPLY_BUCKETS,
    registers,
  });
  const failures = new Counter({
    name: `${PREFIX}subgraph_failures_total`,
    help: "Times a subgraph failed on a live block (its handler threw or the database refused its rows)",
    labelNames: ["subgraph"],
    registers,
  });
  let sources: { db: Queryable; engine: SubgraphEngine } | null = null;
  // One progress read feeds the height and status gauges of a scrape.
  let reading: Promise<SubgraphProgress[]> | null = null;
  const progress = () => {
    if (!sources) return Promise.resolve([]);
    reading ??= sources.engine.progressAll().finally(() => {
      reading = null;
    });
    return reading;
  };

  new Gauge({
    name: `${PREFIX}subgraph_height`,
    help: "Last block height the subgraph processed (-1 before the first)",
    labelNames: ["subgraph"],
    registers,
    async collect() {
      this.reset();
      for (const p of await progress()) this.set({ subgraph: p.name }, p.subgraphHeight);
    },
  });
  new Gauge({
    name: `${PREFIX}subgraph_status`,
    help: "1 for the subgraph's current status (ready, backfilling, reindexing, failed), 0 for the others",
    labelNames: ["subgraph", "status"],
    registers,
    async collect() {
      this.reset();
      for (const p of await progress()) {
        for (const status of STATUSES) this.set({ subgraph: p.name, status }, p.status === status ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: `${PREFIX}subgraph_rows`,
    help: "Rows in a subgraph table (exact below a million rows, the planner's estimate above)",
    labelNames: ["subgraph", "table"],
    registers,
    async collect() {
      this.reset();
      if (!sources) return;
      const modules = sources.engine.list().map((s) => s.module);
      for (const c of await countSubgraphRows(sources.db, modules)) {
        this.set({ subgraph: c.subgraph, table: c.table }, c.rows);
      }
    },
  });

  return {
    applied(subgraph, seconds) {
      apply.observe({ subgraph }, seconds);
    },
    failed(subgraph) {
      failures.inc({ subgraph });
    },
    attach(s) {
      sources = s;
    },
  };
}
