/**
 * The finality decisions of one block (README "Finality", DESIGN.md §2), pure. A height is final
 * when the canonical chain has grown `FINALITY_BURN_CONFIRMATIONS` burn blocks past it *and* no
 * competing branch that is still undecided reaches down to it. The first half needs the stored
 * chain and is one index probe in the tip update (tip.ts); this module decides the second half
 * and whether a reorg broke an earlier promise.
 *
 * "Undecided" follows fork choice (fork-choice.ts): a second block at the tip's height waits
 * until a child decides, so a non-canonical branch whose newest block ties the tip may still win
 * with the next block; one below the tip has lost to a longer chain.
 */

export interface FinalityState {
  /** The lowest height of a non-canonical branch that ties the canonical tip; null when none. */
  contestedFromHeight: number | null;
  /** The highest finalized height reported since the last reorg below it (what clients were told). */
  finalizedHighWater: number | null;
}

/** What a block did to the chain, as far as finality is concerned. */
export type ChainStep =
  /** The tip moved up without orphaning anything (an extension, or a switch over a gap). */
  | { kind: "advanced" }
  /** The tip moved to another branch, orphaning the canonical blocks at or above forkPointHeight. */
  | { kind: "reorg"; forkPointHeight: number }
  /** A non-canonical block ties the tip's height; its branch competes from `branchFloor` up. */
  | { kind: "tie"; branchFloor: number }
  /** Nothing that starts or ends a contest: a non-canonical block below the tip's height (it has
   * lost to a longer chain already), or a recomputation of the boundary. */
  | { kind: "unchanged" };

export interface FinalityDecision {
  /** The new contested height: finality stays strictly below it. */
  contestedFromHeight: number | null;
  /** The reorg orphaned a height that had been reported final. */
  belowFinality: boolean;
}

export function decideFinality(state: FinalityState, step: ChainStep): FinalityDecision {
  switch (step.kind) {
    // The new tip is higher than every other stored block: no branch ties it.
    case "advanced":
      return { contestedFromHeight: null, belowFinality: false };
    case "reorg":
      return {
        contestedFromHeight: null,
        belowFinality: state.finalizedHighWater !== null && step.forkPointHeight <= state.finalizedHighWater,
      };
    case "tie":
      return {
        contestedFromHeight:
          state.contestedFromHeight === null ? step.branchFloor : Math.min(state.contestedFromHeight, step.branchFloor),
        belowFinality: false,
      };
    case "unchanged":
      return { contestedFromHeight: state.contestedFromHeight, belowFinality: false };
  }
}
