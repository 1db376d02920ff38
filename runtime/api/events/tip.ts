/**
 * The chain's tip as a page or a stream sees it: tip and finalized heights, reorg counters and
 * the horizon (last committed canonical event), read in one statement (sql.ts compileTipRead).
 */
import type { Queryable } from "../../db/types.js";
import type { Position } from "./cursor.js";
import { compileTipRead } from "./sql.js";

export interface TipSnapshot {
  tipHeight: number | null;
  finalizedHeight: number | null;
  reorgCount: number;
  /** Reorgs that went below finality (README "Finality"): an immutable page read before one is stale. */
  reorgsBelowFinality: number;
  /** Last canonical committed event at or below min(tip, to_height). */
  horizon: Position | null;
}

export async function readTipSnapshot(q: Queryable, toHeight: number | null): Promise<TipSnapshot> {
  const { sql, params } = compileTipRead(toHeight);
  const { rows } = await q.query<{
    tip_height: number | null;
    finalized_height: number | null;
    reorg_count: string | number;
    reorgs_below_finality: string | number;
    horizon_height: number | null;
    horizon_index: number | null;
  }>(sql, params);
  const r = rows[0];
  if (!r) return { tipHeight: null, finalizedHeight: null, reorgCount: 0, reorgsBelowFinality: 0, horizon: null };
  return {
    tipHeight: r.tip_height === null ? null : Number(r.tip_height),
    finalizedHeight: r.finalized_height === null ? null : Number(r.finalized_height),
    reorgCount: Number(r.reorg_count),
    reorgsBelowFinality: Number(r.reorgs_below_finality),
    horizon:
      r.horizon_height === null || r.horizon_index === null
        ? null
        : { height: Number(r.horizon_height), index: Number(r.horizon_index) },
  };
}
