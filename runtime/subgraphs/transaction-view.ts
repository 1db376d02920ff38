/**
 * The block hooks' view of the subgraphs' status and progress within one ingest transaction.
 *
 * Why once per transaction is enough: the ingest transaction holds the chain-tip row lock from its
 * first block to its commit, and every management operation that changes a subgraph (deploy,
 * backfill, reindex, delete) takes that lock first (control-store.ts lockTip). So inside the
 * transaction the rows change only through the hooks themselves, which keep this view current.
 * Progress (`subgraph_height`) is written once, before commit, instead of once per block (an
 * import transaction holds 16 requests: one statement instead of sixteen).
 *
 * `finalized_height` is the value at the transaction's start: never above the true one, which only
 * makes the engine journal pre-images it could have skipped (those of blocks final by the commit
 * are dropped there, the others pruned later).
 *
 * `unjournaled_height` (the undo journal's coverage, revert-coverage.ts) is raised with the same
 * statement when a block is applied without journaling; it only ever grows there, so a value read
 * here may be below the stored one (pruning raises it in the database) but never above it.
 */
import type { Queryable } from "../db/types.js";

export interface SubgraphStatusRow {
  name: string;
  kind: string;
  status: string;
  subgraph_height: number;
  unjournaled_height: number;
  module_hash: string;
  finalized_height: number | null;
}

const SELECT_STATUS = `SELECT s.name, s.kind, s.status, p.subgraph_height, p.unjournaled_height, s.module_hash,
  t.finalized_height
  FROM control.subgraphs s JOIN control.subgraph_progress p USING (name) CROSS JOIN control.chain_tip t
 ORDER BY s.name`;

const WRITE_PROGRESS = `UPDATE control.subgraph_progress p SET subgraph_height = v.height,
    unjournaled_height = GREATEST(p.unjournaled_height, v.unjournaled)
  FROM unnest($1::text[], $2::int[], $3::int[]) AS v(name, height, unjournaled) WHERE p.name = v.name`;

interface PendingProgress {
  height: number;
  /** The highest height applied without journaling in this transaction (-1: none). */
  unjournaled: number;
}

interface TransactionState {
  rows: SubgraphStatusRow[];
  /** Progress made in this transaction and not yet written, by subgraph. */
  pending: Map<string, PendingProgress>;
}

export interface TransactionView {
  /** The status rows (read on the transaction's first call). */
  rows(q: Queryable): Promise<SubgraphStatusRow[]>;
  /** `names` processed the block at `height`, with its undo entries (`journaled`) or without. */
  advanced(q: Queryable, names: readonly string[], height: number, journaled: boolean): void;
  /** `names` were marked failed in this transaction. */
  failed(q: Queryable, names: readonly string[]): void;
  /** Writes the pending progress (before commit, and before anything that reads or moves it). */
  flush(q: Queryable): Promise<void>;
  /** Flushes, then drops the view: the next call reads the rows again (after a revert moved them). */
  reload(q: Queryable): Promise<void>;
}

export function createTransactionView(): TransactionView {
  // Keyed by the transaction's Queryable: the ingestor passes the same one to every hook call.
  const states = new WeakMap<Queryable, TransactionState>();

  const rowsNamed = (q: Queryable, names: readonly string[]) =>
    (states.get(q)?.rows ?? []).filter((r) => names.includes(r.name));

  const view: TransactionView = {
    async rows(q) {
      let state = states.get(q);
      if (state === undefined) {
        const { rows } = await q.query<SubgraphStatusRow>(SELECT_STATUS);
        state = { rows, pending: new Map() };
        states.set(q, state);
      }
      return state.rows;
    },

    advanced(q, names, height, journaled) {
      const state = states.get(q);
      if (state === undefined) throw new Error("subgraph progress recorded outside a read transaction view");
      for (const row of rowsNamed(q, names)) {
        row.subgraph_height = height;
        if (!journaled) row.unjournaled_height = Math.max(row.unjournaled_height, height);
        const unjournaled = state.pending.get(row.name)?.unjournaled ?? -1;
        state.pending.set(row.name, { height, unjournaled: journaled ? unjournaled : Math.max(unjournaled, height) });
      }
    },

    failed(q, names) {
      for (const row of rowsNamed(q, names)) row.status = "failed";
    },

    async flush(q) {
      const pending = states.get(q)?.pending;
      if (pending === undefined || pending.size === 0) return;
      const names = [...pending.keys()];
      const progress = names.map((n) => pending.get(n) as PendingProgress);
      await q.query(WRITE_PROGRESS, [names, progress.map((p) => p.height), progress.map((p) => p.unjournaled)]);
      pending.clear();
    },

    async reload(q) {
      await view.flush(q);
      states.delete(q);
    },
  };
  return view;
}
