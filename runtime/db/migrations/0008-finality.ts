/**
 * Finality that holds (README "Finality"):
 * - chain.reorgs.below_finality: the reorg orphaned a height that had been reported final
 *   (unknown for reorgs recorded before: false);
 * - control.chain_tip.reorgs_below_finality: how many (GET /status);
 * - control.chain_tip.contested_from_height: the lowest height of a non-canonical branch whose
 *   newest block ties the canonical tip — undecided, so finality stays below it. Computed here
 *   from the stored blocks: each tying block's non-canonical ancestry, down to its fork;
 * - control.chain_tip.finalized_high_water: the highest boundary reported, starting from the
 *   current one (the service recomputes the boundary itself at start, with its configuration).
 */
export const name = "finality";
export const sql = `
ALTER TABLE chain.reorgs ADD COLUMN below_finality boolean NOT NULL DEFAULT false;
ALTER TABLE control.chain_tip
  ADD COLUMN reorgs_below_finality bigint NOT NULL DEFAULT 0,
  ADD COLUMN contested_from_height integer,
  ADD COLUMN finalized_high_water integer;
WITH RECURSIVE contender AS (
  SELECT b.index_block_hash, b.parent_index_block_hash, b.block_height
    FROM chain.blocks b JOIN control.chain_tip t ON b.block_height = t.block_height
   WHERE NOT b.canonical
  UNION
  SELECT p.index_block_hash, p.parent_index_block_hash, p.block_height
    FROM chain.blocks p JOIN contender c ON p.index_block_hash = c.parent_index_block_hash
   WHERE NOT p.canonical
)
UPDATE control.chain_tip
   SET contested_from_height = (SELECT min(block_height) FROM contender),
       finalized_high_water = finalized_height;
`;
