/**
 * Fork choice (DESIGN.md §2 "Fork choice and reorgs"), pure. The canonical chain is the ancestry of
 * the best tip; the best tip is the highest block, ties kept by the block seen first, so a second
 * block at a filled height waits until a child decides.
 */
export interface BlockRef {
  indexBlockHash: string;
  height: number;
  parentIndexBlockHash: string;
}

export interface TipRef {
  indexBlockHash: string;
  height: number;
}

export type ForkPlan =
  /** The block extends the canonical tip (or is the first block): it becomes the tip. */
  | { kind: "extend" }
  /** The block does not beat the tip: stored, not canonical, until a descendant decides. */
  | { kind: "side" }
  /** The block's branch beats the tip: roll back the canonical blocks at or above forkPointHeight
   * (the lowest height the switch replaces: the common ancestor's height + 1; README "Reorgs"),
   * then apply `apply` (oldest first, ending with the new block). */
  | { kind: "switch"; forkPointHeight: number; apply: string[]; gap: boolean };

export interface ForkChoiceInput {
  tip: TipRef | null;
  block: BlockRef;
  /** Stored non-canonical ancestors of the block, parent first, down to (excluding) forkBase. */
  branch: BlockRef[];
  /** The first canonical ancestor of the block, or null when the ancestry runs into an unknown block. */
  forkBase: BlockRef | null;
}

export function planForkChoice({ tip, block, branch, forkBase }: ForkChoiceInput): ForkPlan {
  if (!tip || block.parentIndexBlockHash === tip.indexBlockHash) return { kind: "extend" };
  if (block.height <= tip.height) return { kind: "side" };
  const apply = [...branch].reverse().map((b) => b.indexBlockHash);
  apply.push(block.indexBlockHash);
  return { kind: "switch", forkPointHeight: branchFloor({ block, branch, forkBase }), apply, gap: !forkBase };
}

/**
 * The lowest height a block's branch competes for: one above its canonical fork base, or — when
 * the ancestry is incomplete (blocks were never delivered) — its lowest stored block, so that
 * following the node's longer chain rolls back only what the new branch covers.
 */
export function branchFloor({ block, branch, forkBase }: Omit<ForkChoiceInput, "tip">): number {
  if (forkBase) return forkBase.height + 1;
  return branch.length ? branch[branch.length - 1].height : block.height;
}
