/**
 * Backfill and reindex (DESIGN.md §2): replays stored canonical blocks
 * through a subgraph's handlers in height order, a batch of blocks per transaction. Each batch
 * first locks the chain tip row, which serialises it with block ingestion (ingestion locks the
 * same row first), so the batch sees a stable canonical chain; the batch that reaches the tip
 * marks the subgraph `ready` in that same transaction, and the next ingested block is applied
 * live. Blocks at or below the finalized height are applied together without journaling (only a
 * reorg below finality can orphan them, and the progress row records that the journal does not
 * cover them: revert-coverage.ts); newer blocks one at a time with their pre-image journal, exactly
 * like live ones.
 */
import type { Db } from "../db/types.js";
import type { Logger } from "../internal/logger.js";
import type { StatementCache } from "./apply-ops.js";
import { type ActiveSubgraph, applyBlocks } from "./block-apply.js";
import { readCanonicalRange } from "./block-reader.js";
import { replaySums } from "./sum-replay.js";
import { lockTip, markFailed, readSubgraphRow } from "./control-store.js";
import type { TraitResolver } from "./trait-resolver.js";

export interface BackfillDeps {
  db: Db;
  logger: Logger;
  config: Record<string, string>;
  cache: StatementCache;
  traits: TraitResolver;
  batchBlocks: number;
  /** Whether settled blocks of a subgraph made of increments are summed in SQL (sum-replay.ts). */
  sumReplay: boolean;
  isClosing(): boolean;
  subgraph(name: string): ActiveSubgraph | undefined;
}

/** How many times more blocks a summed batch spans than a replayed one. */
const SUMMED_BATCH_FACTOR = 10;

export type BackfillOutcome = "ready" | "failed" | "stopped" | "gone";

/** Runs batches until the subgraph reaches the tip (or fails, is removed, or the engine closes). */
export async function runBackfill(deps: BackfillDeps, name: string): Promise<BackfillOutcome> {
  const log = deps.logger.child({ subgraph: name });
  for (;;) {
    if (deps.isClosing()) return "stopped";
    const outcome = await deps.db.transaction(async (q): Promise<BackfillOutcome | "continue"> => {
      if (deps.db.kind === "postgres") await q.query("SET LOCAL synchronous_commit TO off");
      const tip = await lockTip(q);
      const row = await readSubgraphRow(q, name, true);
      if (row === null) return "gone";
      if (row.status === "failed") return "failed";
      if (row.status === "ready") return "ready";
      const sub = deps.subgraph(name);
      if (sub === undefined) {
        await markFailed(q, name, "subgraph module is not loaded in this process");
        return "failed";
      }
      // Start at the next stored canonical block (a chain may start high, or have gaps).
      const next = await q.query<{ h: number | null }>(
        "SELECT min(block_height) AS h FROM chain.blocks WHERE canonical AND block_height > $1",
        [row.subgraphHeight],
      );
      const from = next.rows[0]?.h ?? row.subgraphHeight + 1;
      const finalized = tip.finalizedHeight ?? -1;
      let to = Math.min(tip.height, from + deps.batchBlocks - 1);
      let done = 0;
      let unjournaled = -1;
      let summedAll = false;
      // Settled blocks of a subgraph made of increments are summed in SQL (sum-replay.ts). A
      // summed batch costs a fraction of a replayed one per block, so it spans more blocks, all
      // settled. When the sums must not judge them, the usual batch is replayed below.
      if (deps.sumReplay && sub.module.sumReplay !== undefined && from <= finalized) {
        const summedTo = Math.min(finalized, from + deps.batchBlocks * SUMMED_BATCH_FACTOR - 1);
        const summed = await replaySums(q, sub.module, from, summedTo);
        log.debug({ msg: "subgraph blocks summed", from, to: summedTo, blocks: summed });
        if (summed !== null) {
          done = summed;
          unjournaled = summedTo;
          to = summedTo;
          summedAll = true;
        }
      }
      if (!summedAll && from <= to) {
        const blocks = await readCanonicalRange(q, from, to, sub.index.eventTypes, sub.index.txLevel);
        done += blocks.length;
        const settled = blocks.filter((b) => b.height <= finalized);
        const options = { collect: false, cache: deps.cache, traits: deps.traits, logger: log, config: deps.config };
        if (settled.length > 0) {
          const res = await applyBlocks(q, [sub], settled, { ...options, journal: null });
          if (res.failed.length > 0) return "failed";
          unjournaled = settled[settled.length - 1].height;
        }
        for (const block of blocks.filter((b) => b.height > finalized)) {
          const res = await applyBlocks(q, [sub], [block], {
            ...options,
            journal: { indexBlockHash: block.indexBlockHash, blockHeight: block.height },
          });
          if (res.failed.length > 0) return "failed";
        }
      }
      const reached = to >= tip.height;
      await q.query(
        `UPDATE control.subgraph_progress SET subgraph_height = GREATEST(subgraph_height, $2),
            unjournaled_height = GREATEST(unjournaled_height, $3) WHERE name = $1`,
        [name, Math.max(to, row.subgraphHeight), unjournaled],
      );
      await q.query(
        `UPDATE control.subgraphs SET blocks_done = blocks_done + $2,
            blocks_total = GREATEST(blocks_total, blocks_done + $2 + $3), updated_at = now(),
            status = CASE WHEN $4 THEN 'ready' ELSE status END,
            operation_finished_at = CASE WHEN $4 THEN now() ELSE operation_finished_at END
          WHERE name = $1`,
        [name, done, Math.max(0, tip.height - to), reached],
      );
      return reached ? "ready" : "continue";
    });
    if (outcome !== "continue") {
      log.info({ msg: "subgraph backfill ended", outcome });
      return outcome;
    }
  }
}
