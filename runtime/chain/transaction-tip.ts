/**
 * The tip row as one ingest transaction sees it: locked once, written once.
 *
 * An import transaction holds many requests. Locking and rewriting the tip row for each of them
 * made one row version per block inside one open transaction (a hot row: every later update walks
 * the versions the transaction cannot prune yet). Here the transaction's first block or burn block
 * locks the row and learns in the same statement which of the transaction's blocks are stored
 * already; extensions, side blocks below the tip and burn blocks then change the tip in memory,
 * and the change is written by one statement before commit (`flush`). A block that forks or ties
 * the tip writes what is pending first and reads the row again, so fork choice and finality see the
 * stored tip exactly as before. (A side block below the tip's height changes neither the tip nor
 * the contest, only the counters and the burn height; the finality boundary is recomputed by the
 * one write that follows, from the same stored chain.)
 */
import type { Queryable } from "../db/types.js";
import type { TipRef } from "./fork-choice.js";
import {
  type ChainTip,
  lockTipWithBlocks,
  raiseBurnTip,
  readTip,
  type TipChange,
  type TipNotification,
  updateTip,
} from "./tip.js";

/** What extensions and burn blocks changed, not written yet. */
interface PendingChange {
  tip: TipRef | null;
  burnBlockHeight: number | null;
  blocksIngested: number;
  txDelta: number;
  eventDelta: number;
  notification: TipNotification | null;
}

export interface TransactionTip {
  /** The tip with the pending changes applied in memory: its block and burn heights are current
   * (what fork choice reads), its counters and finality fields are as last read (see `settled`). */
  readonly tip: ChainTip;
  /** Writes what is pending and returns the tip as stored, finality included. */
  settled(): Promise<ChainTip>;
  readonly restoring: boolean;
  /** Stored before this transaction, or applied in it. */
  isStored(indexBlockHash: string): boolean;
  stored(indexBlockHash: string): void;
  /** A block that extended the tip: its change is kept in memory (finality: advanced). */
  extend(
    change: { tip: TipRef; burnBlockHeight: number; txDelta: number; eventDelta: number },
    notification: TipNotification,
  ): void;
  /** A block stored beside the canonical chain below the tip's height: counted in memory. */
  sideBlock(burnBlockHeight: number): void;
  /** A burn block raised the burn tip (kept in memory). */
  raiseBurn(burnBlockHeight: number): void;
  /** A change written at once (forks, ties): what is pending goes first, the row is read after. */
  write(change: TipChange, notification?: TipNotification): Promise<void>;
  /** Writes what is pending (before commit, and before anything reads the row). */
  flush(): Promise<void>;
}

export async function lockTransactionTip(
  q: Queryable,
  indexBlockHashes: readonly string[],
  confirmations: number,
): Promise<TransactionTip> {
  const locked = await lockTipWithBlocks(q, indexBlockHashes);
  let tip = locked.tip;
  // The stored row differs from `tip` in what the tip update computes (the finality boundary).
  let stale = false;
  let pending: PendingChange | null = null;
  const pendingChange = (): PendingChange => {
    pending ??= { tip: null, burnBlockHeight: null, blocksIngested: 0, txDelta: 0, eventDelta: 0, notification: null };
    return pending;
  };
  const raise = (burnBlockHeight: number) => {
    const p = pendingChange();
    p.burnBlockHeight = Math.max(p.burnBlockHeight ?? burnBlockHeight, burnBlockHeight);
    tip = { ...tip, burnBlockHeight: Math.max(tip.burnBlockHeight ?? burnBlockHeight, burnBlockHeight) };
  };

  async function flush(): Promise<void> {
    const p = pending;
    if (p === null) return;
    pending = null;
    if (p.tip === null && p.blocksIngested === 0) {
      if (p.burnBlockHeight !== null) await raiseBurnTip(q, p.burnBlockHeight);
      return;
    }
    if (p.tip === null) {
      // Side blocks only: the contest is as last read (nothing in memory changed it).
      await updateTip(
        q,
        {
          burnBlockHeight: p.burnBlockHeight ?? undefined,
          blocksIngested: p.blocksIngested,
          finality: { contestedFromHeight: tip.contestedFromHeight, belowFinality: false },
        },
        confirmations,
      );
      stale = true;
      return;
    }
    // Only extensions are pending: the tip moved up without orphaning anything, so nothing is
    // contested (finality.ts, "advanced").
    await updateTip(
      q,
      {
        tip: p.tip,
        burnBlockHeight: p.burnBlockHeight ?? undefined,
        blocksIngested: p.blocksIngested,
        txDelta: p.txDelta,
        eventDelta: p.eventDelta,
        finality: { contestedFromHeight: null, belowFinality: false },
      },
      confirmations,
      p.notification ?? undefined,
    );
    stale = true;
  }

  return {
    get tip() {
      return tip;
    },
    async settled() {
      await flush();
      if (stale) {
        tip = await readTip(q);
        stale = false;
      }
      return tip;
    },
    restoring: locked.restoring,
    isStored: (hash) => locked.stored.has(hash),
    stored(hash) {
      locked.stored.add(hash);
    },
    extend(change, notification) {
      const p = pendingChange();
      p.tip = change.tip;
      p.blocksIngested++;
      p.txDelta += change.txDelta;
      p.eventDelta += change.eventDelta;
      p.notification = notification;
      raise(change.burnBlockHeight);
      tip = {
        ...tip,
        indexBlockHash: change.tip.indexBlockHash,
        blockHeight: change.tip.height,
        contestedFromHeight: null,
      };
    },
    sideBlock(burnBlockHeight) {
      pendingChange().blocksIngested++;
      raise(burnBlockHeight);
    },
    raiseBurn: raise,
    async write(change, notification) {
      await flush();
      await updateTip(q, change, confirmations, notification);
      tip = await readTip(q); // the next block's fork choice starts from it
      stale = false;
    },
    flush,
  };
}
