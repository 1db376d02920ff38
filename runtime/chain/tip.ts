/**
 * The chain tip row (DESIGN.md §2): canonical tip, burn tip, finality boundary and counters.
 * Each block transaction locks it FOR UPDATE first, which serialises ingestion across processes.
 */
import type { Queryable } from "../db/types.js";
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
}

const SELECT_TIP = `SELECT index_block_hash, block_height, burn_block_height, finalized_height, last_block_at,
  blocks_ingested, canonical_txs, canonical_events, reorg_count FROM control.chain_tip`;

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
  };
}

export async function readTip(q: Queryable, forUpdate = false): Promise<ChainTip> {
  const { rows } = await q.query(SELECT_TIP + (forUpdate ? " FOR UPDATE" : ""));
  return toTip(rows[0]);
}

/** Locks the tip row (one block at a time, across processes) and says whether a block is stored. */
export async function lockTipAndCheckBlock(
  q: Queryable,
  indexBlockHash: string,
): Promise<{ tip: ChainTip; stored: boolean }> {
  const { rows } = await q.query(
    `${SELECT_TIP.replace(" FROM control.chain_tip", ", EXISTS (SELECT 1 FROM chain.blocks WHERE index_block_hash = $1) AS stored FROM control.chain_tip")} FOR UPDATE`,
    [indexBlockHash],
  );
  return { tip: toTip(rows[0]), stored: Boolean(rows[0].stored) };
}

export function tipRef(tip: ChainTip): TipRef | null {
  return tip.indexBlockHash === null || tip.blockHeight === null
    ? null
    : { indexBlockHash: tip.indexBlockHash, height: tip.blockHeight };
}

export interface TipChange {
  tip?: TipRef;
  burnBlockHeight?: number;
  blocksIngested?: number;
  txDelta?: number;
  eventDelta?: number;
  reorgs?: number;
}

/** A NOTIFY sent by the tip update's own statement (delivered at commit). */
export interface TipNotification {
  channel: string;
  payload: string;
}

const UPDATE_TIP = `UPDATE control.chain_tip SET
       index_block_hash = COALESCE($1, index_block_hash),
       block_height = COALESCE($2, block_height),
       burn_block_height = GREATEST(burn_block_height, $3),
       last_block_at = CASE WHEN $1::text IS NULL THEN last_block_at ELSE now() END,
       blocks_ingested = blocks_ingested + $4,
       canonical_txs = canonical_txs + $5,
       canonical_events = canonical_events + $6,
       reorg_count = reorg_count + $7,
       finalized_height = (
         SELECT b.block_height FROM chain.blocks b
          WHERE b.canonical AND b.burn_block_height <= GREATEST(chain_tip.burn_block_height, $3) - $8
          ORDER BY b.burn_block_height DESC, b.block_height DESC LIMIT 1)`;

// The same update and a pg_notify in one round trip.
const UPDATE_TIP_AND_NOTIFY = `WITH tip AS (${UPDATE_TIP} RETURNING 1) SELECT pg_notify($9, $10) FROM tip`;

/**
 * Applies a change and recomputes the finality boundary, in one statement (with `notification`,
 * the same statement also notifies). Burn heights grow with Stacks heights on the canonical chain,
 * so the newest canonical block at or below the confirmation ceiling is one backwards probe of the
 * (burn_block_height, block_height) index.
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
  ];
  if (notification === undefined) await q.query(UPDATE_TIP, params);
  else await q.query(UPDATE_TIP_AND_NOTIFY, [...params, notification.channel, notification.payload]);
}
