/**
 * `fork_point_height` takes one meaning everywhere (README "Reorgs"): the lowest height a reorg
 * orphaned, i.e. the common ancestor's height + 1, so "everything at or above fork_point_height
 * is orphaned" (SPEC.md "Reorg rollback data") holds. Rows written before held the common
 * ancestor's height (for a switch over a gap in the ancestry: the lowest replaced height − 1);
 * both become the lowest replaced height. Rollback deliveries not yet delivered are converted too,
 * so no receiver is sent the old meaning; delivered and cancelled ones stay as they were sent.
 */
export const name = "reorg-fork-point";
export const sql = `
UPDATE chain.reorgs SET fork_point_height = fork_point_height + 1;
UPDATE control.webhook_outbox
   SET block_height = block_height + 1,
       data = json_build_object(
         'action', data->'action',
         'fork_point_height', (data->>'fork_point_height')::integer + 1,
         'orphaned', data->'orphaned',
         'truncated', data->'truncated')
 WHERE dedupe_kind = 'rollback' AND status IN ('pending', 'dead');
`;
