/**
 * How far back a reorg can revert each subgraph from its undo journal (README "Finality"):
 * - control.subgraph_progress.unjournaled_height: the highest height at or below which the
 *   subgraph may have applied a block whose undo entries do not exist (applied once final, so
 *   never journaled, or pruned since); -1 when none. A reorg that orphans a block the subgraph
 *   applied at or below it makes the engine rebuild the subgraph. Existing subgraphs start at the
 *   reported boundary, the most that pruning and unjournaled applies can have reached;
 * - control.subgraphs.operation_reason: why the engine started the current or last rebuild by
 *   itself (null for requested operations: deploy, reindex).
 */
export const name = "subgraph-revert-coverage";
export const sql = `
ALTER TABLE control.subgraph_progress ADD COLUMN unjournaled_height integer NOT NULL DEFAULT -1;
UPDATE control.subgraph_progress
   SET unjournaled_height = (SELECT COALESCE(GREATEST(finalized_height, finalized_high_water), -1) FROM control.chain_tip);
ALTER TABLE control.subgraphs ADD COLUMN operation_reason text;
`;
