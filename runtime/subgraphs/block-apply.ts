/**
 * The engine's per-block step, run inside a block's transaction:
 * build the block's handler contexts once, plan each subgraph's row operations, and apply them
 * with pre-image journaling. A failing subgraph (a handler throwing, or the database refusing a
 * row: NOT NULL, CHECK, a duplicate on insert) is isolated with savepoints and marked `failed`;
 * the block and the other subgraphs go on.
 *
 * `optimistic` (live ingestion) skips the savepoints, two round trips per block: the database
 * refusing a row is rare, and then the step throws RetryTransactionError, the ingestor rolls the
 * transaction back and runs it again, and the engine applies that block with savepoints. An
 * optimistic step given the transaction's rows (`memory`, transaction-rows.ts) folds upserts,
 * increments, inserts and updates there; the engine writes them before the commit. A step with savepoints writes what
 * earlier blocks left in memory first, then runs one statement per run, so a refusal is caught in
 * the subgraph's own savepoint.
 */
import { RetryTransactionError } from "../chain/hooks.js";
import type { DecodedBlock } from "../chain/types.js";
import type { Queryable } from "../db/types.js";
import type { Logger } from "../internal/logger.js";
import { applySubgraphOps, type JournalTarget, type StatementCache } from "./apply-ops.js";
import { buildHandlerContexts } from "./context.js";
import { markFailed } from "./control-store.js";
import { contractsNeedingTraits, type DispatchIndex, type PlannedOp, planOps } from "./dispatch.js";
import type { DraftChange, SeqOp } from "./op-runs.js";
import type { TraitResolver } from "./trait-resolver.js";
import type { TransactionRows } from "./transaction-rows.js";
import type { HandlerContext, RowChange, SubgraphModule } from "./types.js";

/** A subgraph taking part in a step. */
export interface ActiveSubgraph {
  module: SubgraphModule;
  index: DispatchIndex;
}

export interface StepOptions {
  journal: JournalTarget | null;
  collect: boolean;
  cache: StatementCache;
  traits: TraitResolver;
  logger: Logger;
  config: Record<string, string>;
  /** No savepoints: a refused row throws RetryTransactionError (the caller redoes the transaction). */
  optimistic?: boolean;
  /** The transaction's rows held in memory (optimistic steps fold into them). */
  memory?: TransactionRows;
  /** A block's handler contexts when already built (the read-ahead builds them); else built here. */
  contextsOf?: (block: DecodedBlock) => HandlerContext[];
  /** A one-block step's planned operations of a subgraph when already planned (the read-ahead plans them). */
  plannedOf?: (sub: ActiveSubgraph) => PlannedOp[] | undefined;
}

export interface StepResult {
  changes: RowChange[];
  /** Names of subgraphs that failed in this step (already marked failed). */
  failed: string[];
  /** Seconds each subgraph spent planning and writing its rows in this step (metrics). */
  seconds: Map<string, number>;
}

/**
 * Applies `blocks` (chain order; one block when journaling) to `subgraphs`. Contexts are numbered
 * across the blocks so changes sort in chain order.
 */
export async function applyBlocks(
  q: Queryable,
  subgraphs: readonly ActiveSubgraph[],
  blocks: readonly DecodedBlock[],
  options: StepOptions,
): Promise<StepResult> {
  const contexts: HandlerContext[] = [];
  for (const block of blocks)
    contexts.push(...(options.contextsOf?.(block) ?? buildHandlerContexts(block, options.config)));
  const failed: string[] = [];
  const seconds = new Map<string, number>();
  const took = (name: string, start: bigint) =>
    seconds.set(name, (seconds.get(name) ?? 0) + Number(process.hrtime.bigint() - start) / 1e9);
  const planned: { sub: ActiveSubgraph; ops: SeqOp[] }[] = [];

  const traitContracts = new Set<string>();
  for (const sub of subgraphs) for (const c of contractsNeedingTraits(sub.index, contexts)) traitContracts.add(c);
  await options.traits.prefetch(q, traitContracts);

  for (const sub of subgraphs) {
    const start = process.hrtime.bigint();
    try {
      // Numbered in place: the numbers depend on the plan alone, so a plan kept for reuse stays valid.
      const ops = ((blocks.length === 1 ? options.plannedOf?.(sub) : undefined) ??
        planOps(sub.module, sub.index, contexts, options.traits.check)) as SeqOp[];
      for (let seq = 0; seq < ops.length; seq++) ops[seq].seq = seq;
      planned.push({ sub, ops });
    } catch (err) {
      await fail(q, sub.module.name, err, options.logger);
      failed.push(sub.module.name);
    }
    took(sub.module.name, start);
  }
  const work = planned.filter((p) => p.ops.length > 0);
  const drafts: { order: number; draft: DraftChange }[] = [];
  const memory = options.optimistic ? options.memory : undefined;
  const run = async (p: (typeof work)[number], order: number) => {
    const start = process.hrtime.bigint();
    const changes = await applySubgraphOps(
      q,
      p.sub.module,
      p.ops,
      options.journal,
      options.collect,
      options.cache,
      memory,
    );
    for (const d of changes) drafts.push({ order, draft: d });
    took(p.sub.module.name, start);
  };
  if (work.length > 0 && !options.optimistic && options.memory !== undefined) {
    // Statements follow, which must see (and may change) the rows held in memory.
    try {
      await options.memory.flush(q);
    } catch (err) {
      throw new RetryTransactionError("rows held in memory were refused: redo the transaction block by block", {
        cause: err,
      });
    }
    options.memory.forget();
  }

  if (work.length > 0 && options.optimistic) {
    try {
      for (let i = 0; i < work.length; i++) await run(work[i], i);
    } catch (err) {
      throw new RetryTransactionError("a subgraph's rows were refused: redo the block with each subgraph isolated", {
        cause: err,
      });
    }
  } else if (work.length > 0) {
    await q.query("SAVEPOINT sluice_subgraphs");
    try {
      for (let i = 0; i < work.length; i++) await run(work[i], i);
      await q.query("RELEASE SAVEPOINT sluice_subgraphs");
    } catch {
      // Someone's rows were refused: redo one subgraph at a time to find out whose.
      await q.query("ROLLBACK TO SAVEPOINT sluice_subgraphs");
      await q.query("RELEASE SAVEPOINT sluice_subgraphs");
      drafts.length = 0;
      for (let i = 0; i < work.length; i++) {
        await q.query("SAVEPOINT sluice_subgraph");
        const kept = drafts.length;
        try {
          await run(work[i], i);
          await q.query("RELEASE SAVEPOINT sluice_subgraph");
        } catch (err) {
          await q.query("ROLLBACK TO SAVEPOINT sluice_subgraph");
          await q.query("RELEASE SAVEPOINT sluice_subgraph");
          drafts.length = kept;
          await fail(q, work[i].sub.module.name, err, options.logger);
          failed.push(work[i].sub.module.name);
        }
      }
    }
  }
  drafts.sort((a, b) => a.draft.ordinal - b.draft.ordinal || a.order - b.order || a.draft.seq - b.draft.seq);
  return { changes: drafts.map((d) => d.draft.change), failed, seconds };
}

async function fail(q: Queryable, name: string, err: unknown, logger: Logger): Promise<void> {
  const message = err instanceof Error ? err.message : String(err);
  logger.error({ msg: "subgraph failed", subgraph: name, error: message });
  await markFailed(q, name, message);
}
