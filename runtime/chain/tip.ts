/**
 * The chain tip row (DESIGN.md §2): canonical tip, burn tip, finality boundary and counters.
 * Each block transaction locks it FOR UPDATE first, which serialises ingestion across processes.
 */
import type { Queryable } from "../db/types.js";
import type { FinalityDecision } from "./finality.js";
import type { TipRef } from "./fork-choice.js";

export interface ChainTip {
  indexBlockHash: string | null;
  blockHeight: number | null;
  burnBlockHeight: number | null;
  finalizedHeight: number | null;
  lastBlockAt: Date | null;
  blocksIngested: number;
  canonicalTxs: number;
  canonicalEvents: number;
  reorgCount: number;
  /** Reorgs that orphaned a height once reported final (README "Finality"). */
  reorgsBelowFinality: number;
  /** The lowest height of a non-canonical branch tying the tip (finality.ts); null when none. */
  contestedFromHeight: number | null;
  /** The highest finalized height reported since the last reorg below it. */
  finalizedHighWater: number | null;
}

const SELECT_TIP = `SELECT index_block_hash, block_height, burn_block_height, finalized_height, last_block_at,
  blocks_ingested, canonical_txs, canonical_events, reorg_count, reorgs_below_finality, contested_from_height,
  finalized_high_water FROM control.chain_tip`;

function toTip(r: Record<string, unknown>): ChainTip {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    indexBlockHash: (r.index_block_hash as string | null) ?? null,
    blockHeight: num(r.block_height),
    burnBlockHeight: num(r.burn_block_height),
    finalizedHeight: num(r.finalized_height),
    lastBlockAt: (r.last_block_at as Date | null) ?? null,
    blocksIngested: Number(r.blocks_ingested),
    canonicalTxs: Number(r.canonical_txs),
    canonicalEvents: Number(r.canonical_events),
    reorgCount: Number(r.reorg_count),
    reorgsBelowFinality: Number(r.reorgs_below_finality),
    contestedFromHeight: num(r.contested_from_height),
    finalizedHighWater: num(r.finalized_high_water),
  };
}

export async function readTip(q: Queryable, forUpdate = false): Promise<ChainTip> {
  const { rows } = await q.query(SELECT_TIP + (forUpdate ? " FOR UPDATE" : ""));
  return toTip(rows[0]);
}

/**
 * Locks the tip row (one ingest transaction at a time, across processes) and says which of
 * `indexBlockHashes` are stored and whether an archive restore is in progress (runtime/archive,
 * control.archive_restore): the restore takes the same lock before it starts, so a block sees it
 * or precedes it.
 */
export async function lockTipWithBlocks(
  q: Queryable,
  indexBlockHashes: readonly string[],
): Promise<{ tip: ChainTip; stored: Set<string>; restoring: boolean }> {
  const { rows } = await q.query(
    `${SELECT_TIP.replace(
      " FROM control.chain_tip",
      `, ARRAY(SELECT index_block_hash FROM chain.blocks WHERE index_block_hash = ANY($1::text[])) AS stored,
         EXISTS (SELECT 1 FROM control.archive_restore) AS restoring FROM control.chain_tip`,
    )} FOR UPDATE`,
    [indexBlockHashes],
  );
  const row = rows[0] as Record<string, unknown>;
  return {
    tip: toTip(row),
    stored: new Set((row.stored as string[] | null) ?? []),
    restoring: Boolean(row.restoring),
  };
}

export function tipRef(tip: ChainTip): TipRef | null {
  return tip.indexBlockHash === null || tip.blockHeight === null
    ? null
    : { indexBlockHash: tip.indexBlockHash, height: tip.blockHeight };
}

/** A block's change to the tip row, with its finality decision (finality.ts). */
export interface TipChange {
  tip?: TipRef;
  burnBlockHeight?: number;
  blocksIngested?: number;
  txDelta?: number;
  eventDelta?: number;
  reorgs?: number;
  finality: FinalityDecision;
}

/** A NOTIFY sent by the tip update's own statement (delivered at commit). */
export interface TipNotification {
  channel: string;
  payload: string;
}

/**
 * The finality boundary (README "Finality"): the highest canonical block whose burn block is at
 * least $8 burn blocks below the canonical tip's own burn block, and below the contested height
 * ($9). Counting from the tip's burn block, not the burn tip: while a node catches up the burn
 * chain runs far ahead of the Stacks blocks it delivers, and a block would count as deep the
 * moment it arrives, before any block builds on it. Burn heights grow with Stacks heights on the
 * canonical chain, so this is one backwards probe of the (burn_block_height, block_height) index.
 */
const FINALIZED_HEIGHT = `SELECT b.block_height FROM chain.blocks b
          WHERE b.canonical
            AND b.burn_block_height <= (SELECT t.burn_block_height FROM chain.blocks t
                                         WHERE t.index_block_hash = COALESCE($1, chain_tip.index_block_hash)) - $8
            AND b.block_height < COALESCE($9::integer, 2147483647)
          ORDER BY b.burn_block_height DESC, b.block_height DESC LIMIT 1`;

// $10: the block's reorg orphaned a height reported final: count it, and restart the high-water
// mark from the new boundary (the new branch's blocks were never reported final).
const UPDATE_TIP = `UPDATE control.chain_tip SET
       index_block_hash = COALESCE($1, index_block_hash),
       block_height = COALESCE($2, block_height),
       burn_block_height = GREATEST(burn_block_height, $3),
       last_block_at = CASE WHEN $1::text IS NULL THEN last_block_at ELSE now() END,
       blocks_ingested = blocks_ingested + $4,
       canonical_txs = canonical_txs + $5,
       canonical_events = canonical_events + $6,
       reorg_count = reorg_count + $7,
       contested_from_height = $9::integer,
       reorgs_below_finality = reorgs_below_finality + CASE WHEN $10::boolean THEN 1 ELSE 0 END,
       (finalized_height, finalized_high_water) = (
         SELECT f.height, CASE WHEN $10::boolean THEN f.height ELSE GREATEST(chain_tip.finalized_high_water, f.height) END
           FROM (SELECT (${FINALIZED_HEIGHT}) AS height) f)`;

// The same update and a pg_notify in one round trip.
const UPDATE_TIP_AND_NOTIFY = `WITH tip AS (${UPDATE_TIP} RETURNING 1) SELECT pg_notify($11, $12) FROM tip`;

/**
 * Applies a block's change and recomputes the finality boundary, in one statement (with
 * `notification`, the same statement also notifies).
 */
export async function updateTip(
  q: Queryable,
  change: TipChange,
  confirmations: number,
  notification?: TipNotification,
): Promise<void> {
  const params: unknown[] = [
    change.tip?.indexBlockHash ?? null,
    change.tip?.height ?? null,
    change.burnBlockHeight ?? null,
    change.blocksIngested ?? 0,
    change.txDelta ?? 0,
    change.eventDelta ?? 0,
    change.reorgs ?? 0,
    confirmations,
    change.finality.contestedFromHeight,
    change.finality.belowFinality,
  ];
  if (notification === undefined) await q.query(UPDATE_TIP, params);
  else await q.query(UPDATE_TIP_AND_NOTIFY, [...params, notification.channel, notification.payload]);
}

/**
 * A burn block raises the burn tip. Finality is counted from the canonical tip's burn block, so a
 * burn block alone changes nothing else.
 */
export async function raiseBurnTip(q: Queryable, burnBlockHeight: number): Promise<void> {
  await q.query("UPDATE control.chain_tip SET burn_block_height = GREATEST(burn_block_height, $1)", [burnBlockHeight]);
}

/**
 * After rows were bulk-loaded under the chain (an archive restore): the tip follows the highest
 * stored canonical block when that is higher than the current tip, the counters are recounted
 * from the tables, and the finality boundary is recomputed as for any block.
 */
export async function retipFromStoredChain(q: Queryable, confirmations: number): Promise<ChainTip> {
  await q.query(
    `UPDATE control.chain_tip SET
       index_block_hash = CASE WHEN t.block_height > COALESCE(chain_tip.block_height, -1) THEN t.index_block_hash ELSE chain_tip.index_block_hash END,
       block_height = GREATEST(COALESCE(chain_tip.block_height, -1), t.block_height),
       burn_block_height = GREATEST(COALESCE(chain_tip.burn_block_height, -1), t.burn_block_height,
         COALESCE((SELECT max(burn_block_height) FROM chain.burn_blocks), -1)),
       last_block_at = COALESCE(chain_tip.last_block_at, now()),
       blocks_ingested = (SELECT count(*) FROM chain.blocks),
       canonical_txs = (SELECT count(*) FROM chain.transactions WHERE canonical),
       canonical_events = (SELECT count(*) FROM chain.events WHERE canonical AND committed)
     FROM (SELECT index_block_hash, block_height, burn_block_height FROM chain.blocks
            WHERE canonical ORDER BY block_height DESC LIMIT 1) t`,
  );
  const tip = await readTip(q, true);
  await updateTip(
    q,
    { finality: { contestedFromHeight: tip.contestedFromHeight, belowFinality: false } },
    confirmations,
  );
  return readTip(q);
}

/**
 * The tip's block hash under a share lock: bulk loads that may run side by side take it, which
 * still keeps every block transaction (FOR UPDATE) out until they commit.
 */
export async function lockTipShared(q: Queryable, exclusive = false): Promise<string | null> {
  const { rows } = await q.query<{ index_block_hash: string | null }>(
    `SELECT index_block_hash FROM control.chain_tip FOR ${exclusive ? "UPDATE" : "SHARE"}`,
  );
  return rows[0]?.index_block_hash ?? null;
}
