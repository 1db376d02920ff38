/**
 * Ingestion metrics: counters fed by each processed observer request (its IngestOutcome and how
 * long it took), gauges for the tip and lag read from the tip row when scraped.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { IngestOutcome } from "../chain/hooks.js";
import { burnLagBlocks, readBlockBurnHeight } from "../chain/status.js";
import { readTip } from "../chain/tip.js";
import type { Queryable } from "../db/types.js";
import { PREFIX } from "./registry.js";

export interface IngestMetrics {
  /** One processed request: its outcome and, for a block, how long its transaction took. */
  observe(outcome: IngestOutcome, seconds: number | null): void;
}

export interface IngestGaugeSources {
  db: Queryable;
  /** Requests acknowledged but not yet processed (the observer processor's queue). */
  backlog(): number;
  /** Whether this process applies blocks now (README "Running several processes"); absent: it does. */
  leader?(): boolean;
}

/** Blocks take milliseconds to seconds; the genesis block and big reorgs take longer. */
const APPLY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createIngestMetrics(registry: Registry, sources: IngestGaugeSources): IngestMetrics {
  const registers = [registry];
  const blocks = new Counter({
    name: `${PREFIX}ingest_blocks_total`,
    help: "Blocks stored by ingestion, by fork-choice result (extended, side, reorg; duplicate re-sends too)",
    labelNames: ["result"],
    registers,
  });
  const events = new Counter({
    name: `${PREFIX}ingest_events_total`,
    help: "Events of the blocks stored (duplicate re-sends not counted)",
    registers,
  });
  const apply = new Histogram({
    name: `${PREFIX}ingest_block_apply_seconds`,
    help: "Time to apply one block request: decode, fork choice, and its database transaction with the subgraphs and webhook outbox",
    buckets: APPLY_BUCKETS,
    registers,
  });
  const reorgs = new Counter({ name: `${PREFIX}ingest_reorgs_total`, help: "Reorgs followed", registers });
  const burnBlocks = new Counter({
    name: `${PREFIX}ingest_burn_blocks_total`,
    help: "Burn block notifications processed",
    registers,
  });
  const malformed = new Counter({
    name: `${PREFIX}ingest_malformed_payloads_total`,
    help: "Observer requests recorded as malformed (journaled, acknowledged, never applied)",
    registers,
  });
  for (const result of ["extended", "side", "reorg", "duplicate"]) blocks.inc({ result }, 0);

  new Gauge({
    name: `${PREFIX}ingest_journal_backlog`,
    help: "Observer requests acknowledged and not yet processed",
    registers,
    collect() {
      this.set(sources.backlog());
    },
  });
  new Gauge({
    name: `${PREFIX}ingest_leader`,
    help: "1 while this process applies blocks (ROLE=all, or the ingest leader), else 0",
    registers,
    collect() {
      this.set(sources.leader === undefined || sources.leader() ? 1 : 0);
    },
  });
  // One query feeds the tip gauges: each collect() awaits the same read.
  let reading: Promise<TipFigures> | null = null;
  const tipFigures = () => {
    reading ??= readTipFigures(sources.db).finally(() => {
      reading = null;
    });
    return reading;
  };
  // An unlabelled gauge always has a sample: `unknown` is what it shows before there is a value.
  const tipGauge = (name: string, help: string, unknown: number, pick: (t: TipFigures) => number | null) =>
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      registers,
      async collect() {
        this.set(pick(await tipFigures()) ?? unknown);
      },
    });
  tipGauge("ingest_tip_height", "Height of the canonical tip (-1 before the first block)", -1, (t) => t.tipHeight);
  tipGauge(
    "ingest_finalized_height",
    "Highest final block height (-1 while none is final)",
    -1,
    (t) => t.finalizedHeight,
  );
  tipGauge(
    "ingest_burn_lag_blocks",
    "Burn blocks seen past the canonical tip's own burn block (how far Stacks blocks trail the burn chain; NaN before the first block)",
    Number.NaN,
    (t) => burnLagBlocks(t.burnTip, t.tipBurnHeight),
  );
  tipGauge(
    "ingest_seconds_since_last_block",
    "Seconds since the last block was stored (NaN before the first block)",
    Number.NaN,
    (t) => t.secondsSinceLastBlock,
  );

  return {
    observe(outcome, seconds) {
      switch (outcome.kind) {
        case "block":
          blocks.inc({ result: outcome.result });
          if (outcome.result !== "duplicate") events.inc(outcome.events);
          if (outcome.result === "reorg") reorgs.inc();
          if (seconds !== null) apply.observe(seconds);
          return;
        case "burn_block":
          burnBlocks.inc();
          return;
        case "malformed":
          malformed.inc();
          return;
        default:
          return;
      }
    },
  };
}

interface TipFigures {
  tipHeight: number | null;
  finalizedHeight: number | null;
  burnTip: number | null;
  tipBurnHeight: number | null;
  secondsSinceLastBlock: number | null;
}

async function readTipFigures(q: Queryable): Promise<TipFigures> {
  const tip = await readTip(q);
  return {
    tipHeight: tip.blockHeight,
    finalizedHeight: tip.finalizedHeight,
    burnTip: tip.burnBlockHeight,
    tipBurnHeight: tip.indexBlockHash === null ? null : await readBlockBurnHeight(q, tip.indexBlockHash),
    secondsSinceLastBlock:
      tip.lastBlockAt === null ? null : Math.max(0, (Date.now() - tip.lastBlockAt.getTime()) / 1000),
  };
}
