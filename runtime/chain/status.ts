/** Ingestion status for /status and the terminal status line (DESIGN.md §4). */
import type { Queryable } from "../db/types.js";
import { readTip } from "./tip.js";

export interface IngestStatus {
  tip: {
    block_height: number | null;
    index_block_hash: string | null;
    burn_block_height: number | null;
    finalized_height: number | null;
  };
  lag: {
    seconds_since_last_block: number | null;
    /** Burn blocks seen past the tip's own burn block: how far the Stacks chain trails the burn
     * chain as the node reported it (null before the first block). */
    burn_blocks: number | null;
    journal_backlog: number;
    last_error: string | null;
  };
  counts: {
    blocks: number;
    canonical_transactions: number;
    canonical_events: number;
    reorgs: number;
    /** Reorgs that orphaned a height once reported final (README "Finality"). */
    reorgs_below_finality: number;
    malformed_payloads: number;
    journal_pending: number;
  };
}

/** What the observer's processor reports about its queue (runtime/observer/processor.ts). */
export interface ProcessorState {
  readonly backlog: number;
  readonly lastError: string | null;
}

export async function readIngestStatus(q: Queryable, processor?: ProcessorState): Promise<IngestStatus> {
  const tip = await readTip(q);
  const { rows } = await q.query<{ malformed: string; pending: string; tip_burn: string | number | null }>(
    `SELECT (SELECT count(*) FROM control.journal WHERE state = 'malformed') AS malformed,
            (SELECT count(*) FROM control.journal WHERE state = 'pending') AS pending,
            (SELECT burn_block_height FROM chain.blocks WHERE index_block_hash = $1) AS tip_burn`,
    [tip.indexBlockHash],
  );
  const tipBurn = rows[0].tip_burn === null ? null : Number(rows[0].tip_burn);
  return {
    tip: {
      block_height: tip.blockHeight,
      index_block_hash: tip.indexBlockHash,
      burn_block_height: tip.burnBlockHeight,
      finalized_height: tip.finalizedHeight,
    },
    lag: {
      seconds_since_last_block: tip.lastBlockAt
        ? Math.max(0, Math.round((Date.now() - tip.lastBlockAt.getTime()) / 1000))
        : null,
      burn_blocks: burnLagBlocks(tip.burnBlockHeight, tipBurn),
      journal_backlog: processor?.backlog ?? 0,
      last_error: processor?.lastError ?? null,
    },
    counts: {
      blocks: tip.blocksIngested,
      canonical_transactions: tip.canonicalTxs,
      canonical_events: tip.canonicalEvents,
      reorgs: tip.reorgCount,
      reorgs_below_finality: tip.reorgsBelowFinality,
      malformed_payloads: Number(rows[0].malformed),
      journal_pending: Number(rows[0].pending),
    },
  };
}

/**
 * Burn blocks seen past the tip block's own burn block: how far the Stacks chain trails the burn
 * chain as the node reported it (null before the first block).
 */
export function burnLagBlocks(burnTip: number | null, tipBurnHeight: number | null): number | null {
  return burnTip === null || tipBurnHeight === null ? null : Math.max(0, burnTip - tipBurnHeight);
}

/** The burn height a stored block was mined in, or null for an unknown block. */
export async function readBlockBurnHeight(q: Queryable, indexBlockHash: string): Promise<number | null> {
  const { rows } = await q.query<{ burn_block_height: string | number }>(
    "SELECT burn_block_height FROM chain.blocks WHERE index_block_hash = $1",
    [indexBlockHash],
  );
  return rows.length ? Number(rows[0].burn_block_height) : null;
}
