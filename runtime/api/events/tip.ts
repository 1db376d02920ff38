/**
 * The chain's tip as a page or a stream sees it: tip and finalized heights, reorg counters and
 * the horizon (last committed canonical event), read in one statement (sql.ts compileTipRead).
 */
import type { Queryable } from "../../db/types.js";
import type { Position } from "./cursor.js";
import { compileTipRead } from "./sql.js";

export interface TipSnapshot {
  /** The tip's index_block_hash (part of the chain stamp, events/page.ts chainStamp). */
  tipHash: string | null;
  tipHeight: number | null;
  finalizedHeight: number | null;
  reorgCount: number;
  /** Reorgs that went below finality (README "Finality"): an immutable page read before one is stale. */
  reorgsBelowFinality: number;
  /** Last canonical committed event at or below min(tip, to_height). */
  horizon: Position | null;
}

/** The tip columns of the tip read and of the list-page statement (sql.ts). */
export interface TipRow {
  tip_hash: string | null;
  tip_height: number | null;
  finalized_height: number | null;
  reorg_count: string | number;
  reorgs_below_finality: string | number;
  horizon_height: number | null;
  horizon_index: number | null;
}

/** A snapshot from the tip columns; no row (nothing stored yet) is an empty chain. Pure. */
export function tipFromRow(r: TipRow | undefined): TipSnapshot {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const horizonHeight = num(r?.horizon_height);
  const horizonIndex = num(r?.horizon_index);
  return {
    tipHash: r?.tip_hash ?? null,
    tipHeight: num(r?.tip_height),
    finalizedHeight: num(r?.finalized_height),
    reorgCount: Number(r?.reorg_count ?? 0),
    reorgsBelowFinality: Number(r?.reorgs_below_finality ?? 0),
    horizon: horizonHeight === null || horizonIndex === null ? null : { height: horizonHeight, index: horizonIndex },
  };
}

export async function readTipSnapshot(q: Queryable, toHeight: number | null): Promise<TipSnapshot> {
  const { sql, params } = compileTipRead(toHeight);
  const { rows } = await q.query<TipRow>(sql, params);
  return tipFromRow(rows[0]);
}
