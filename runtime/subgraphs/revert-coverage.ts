/**
 * Whether a reorg can be undone from the undo journal (README "Finality"), pure. A reorg orphans
 * every canonical block from its fork point up; the engine reverts a subgraph's rows block by block
 * from the pre-images it journaled. Blocks applied once final were never journaled (live, or by a
 * backfill or reindex), and journal entries at or below the finalized height are pruned, so a
 * reorg below finality may orphan rows nothing can restore. Each subgraph's progress row records
 * how far that can reach (`unjournaled_height`); a subgraph whose orphaned rows may lie there is
 * rebuilt from the stored canonical blocks instead.
 */

/** What the decision needs to know about one subgraph. */
export interface JournalCoverage {
  name: string;
  status: string;
  /** The last block height it applied. */
  subgraphHeight: number;
  /** The highest height at or below which it may have applied a block without undo entries (-1: none). */
  unjournaledHeight: number;
  /** Its first block: it wrote no rows below it. */
  startBlock: number;
}

/**
 * Names of the subgraphs that a reorg orphaning every block from `forkPointHeight` up leaves with
 * rows the journal cannot revert: they applied an orphaned block from their start block up that
 * may have no undo entries. A failed subgraph is left alone (it applies nothing until an operator
 * reindexes or redeploys it, which rebuilds it anyway).
 */
export function subgraphsToRebuild(subgraphs: readonly JournalCoverage[], forkPointHeight: number): string[] {
  return subgraphs
    .filter((s) => {
      if (s.status === "failed") return false;
      const lowestWritten = Math.max(forkPointHeight, s.startBlock);
      return lowestWritten <= Math.min(s.subgraphHeight, s.unjournaledHeight);
    })
    .map((s) => s.name);
}

/** The reason a rebuild started by the engine shows in the subgraph's progress. */
export function rebuildReason(forkPointHeight: number): string {
  return `a reorg at height ${forkPointHeight} orphaned blocks whose row changes were no longer journaled: rebuilding from the canonical chain`;
}
