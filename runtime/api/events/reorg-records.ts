/**
 * Reorg records as the Index and Streams routes show them (SPEC.md "Index / Streams list
 * response" `reorgs`, DESIGN.md §2 "Fork choice and reorgs"): a row of chain.reorgs as read by
 * the SQL in events/sql.ts → the JSON object clients receive, in list pages and as SSE `reorg`
 * frames. Pure.
 *
 * `fork_point_height` is the lowest height the reorg orphaned (the common ancestor's height + 1;
 * README "Reorgs"). `resume_cursor` is the cursor of the last canonical event below it ("" when
 * there is none): a consumer that already read events at or above `fork_point_height` discards
 * what it derived from them and reads again after `resume_cursor`. `below_finality` says the reorg
 * orphaned a height that had been reported final (README "Finality").
 */
export interface ReorgRecordJson {
  id: number;
  detected_at: string;
  fork_point_height: number;
  orphaned_from_height: number;
  orphaned_to_height: number;
  orphaned_blocks: { index_block_hash: string; block_height: number }[];
  old_tip: { index_block_hash: string; block_height: number };
  new_tip: { index_block_hash: string; block_height: number };
  resume_cursor: string;
  below_finality: boolean;
}

export interface ReorgRow {
  id: string | number;
  detected_at: Date | string;
  fork_point_height: number;
  orphaned_from_height: number;
  orphaned_to_height: number;
  orphaned_blocks: unknown;
  old_tip_hash: string;
  old_tip_height: number;
  new_tip_hash: string;
  new_tip_height: number;
  resume_cursor: string | null;
  below_finality: boolean;
}

export function reorgFromRow(row: ReorgRow): ReorgRecordJson {
  const blocks = Array.isArray(row.orphaned_blocks) ? row.orphaned_blocks : [];
  return {
    id: Number(row.id),
    detected_at:
      row.detected_at instanceof Date ? row.detected_at.toISOString() : new Date(row.detected_at).toISOString(),
    fork_point_height: Number(row.fork_point_height),
    orphaned_from_height: Number(row.orphaned_from_height),
    orphaned_to_height: Number(row.orphaned_to_height),
    orphaned_blocks: blocks.map((b: { index_block_hash: string; block_height: number }) => ({
      index_block_hash: b.index_block_hash,
      block_height: Number(b.block_height),
    })),
    old_tip: { index_block_hash: row.old_tip_hash, block_height: Number(row.old_tip_height) },
    new_tip: { index_block_hash: row.new_tip_hash, block_height: Number(row.new_tip_height) },
    resume_cursor: row.resume_cursor ?? "",
    below_finality: Boolean(row.below_finality),
  };
}
