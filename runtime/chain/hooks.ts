/**
 * What the ingestor (ingest.ts) shares with the modules it drives: the hooks other modules
 * implement to work inside a block's transaction (subgraph engine, webhook outbox), the records
 * those hooks receive, the error a hook throws to have the transaction redone, and the outcome of
 * each ingested request. Types and one error class; no logic.
 */
import type { Queryable } from "../db/types.js";
import { RetryableError } from "../internal/errors.js";
import type { BlockRef } from "./fork-choice.js";
import type { DecodedBlock } from "./types.js";

/**
 * Thrown by a hook when the block transaction must be rolled back and run again (the hook does
 * something different the second time, e.g. the subgraph engine isolates each subgraph).
 */
export class RetryTransactionError extends RetryableError {
  override name = "RetryTransactionError";
}

/** Called once a block transaction committed; `q` only names that transaction (it runs no more
 * queries). */
export type AfterCommitHook = (q: Queryable) => void;

/** Work other modules do inside a block's transaction (subgraph handlers, webhook outbox). */
export interface BlockHooks {
  /** A block became canonical: derive rows from it. */
  applyBlock(q: Queryable, block: DecodedBlock): Promise<void>;
  /**
   * A transaction of many requests is about to apply `blocks` (some may turn out to be side
   * blocks): read ahead, in bulk, what applying them will read. An optimisation only: it may do
   * nothing, and it must not change what the blocks' application does.
   */
  readAhead?(q: Queryable, blocks: readonly DecodedBlock[]): Promise<void>;
  /** A canonical block was orphaned by a reorg whose fork point is `forkPointHeight` (README
   * "Reorgs"): undo what applyBlock derived (called newest first). */
  revertBlock(q: Queryable, block: BlockRef, forkPointHeight: number): Promise<void>;
  /** A reorg finished inside the transaction (after reverts and applies). */
  onReorg?(q: Queryable, reorg: ReorgRecord): Promise<void>;
  /** The transaction's blocks are all applied; it commits next (write what was deferred). */
  beforeCommit?(q: Queryable): Promise<void>;
  /** The transaction committed: start work that must see what it wrote, e.g. a background
   * rebuild. Not called for a rolled-back attempt. */
  afterCommit?: AfterCommitHook;
}

export interface ReorgRecord {
  /** The lowest height the reorg orphaned: the common ancestor's height + 1 (README "Reorgs"). */
  forkPointHeight: number;
  /** It orphaned a height that had been reported final (README "Finality"). */
  belowFinality: boolean;
  orphaned: BlockRef[];
  applied: string[];
  oldTip: { indexBlockHash: string; height: number };
  newTip: { indexBlockHash: string; height: number };
}

/** What became of one ingested request (the observer's processor and `sluice import` count these). */
export type IngestOutcome =
  | {
      kind: "block";
      result: "extended" | "side" | "duplicate" | "reorg";
      height: number;
      indexBlockHash: string;
      events: number;
    }
  | { kind: "burn_block"; burnBlockHeight: number }
  | { kind: "journaled" }
  | { kind: "malformed"; reason: string }
  | { kind: "skipped" };
