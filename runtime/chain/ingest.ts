/**
 * Ingestion (DESIGN.md §2): one observer request → journal → decode → fork choice → ONE database
 * transaction per block holding its chain rows, the hooks' rows (subgraphs, outbox) and the tip.
 * The observer (runtime/observer) and `sluice import` both use one ingestor, assembled by
 * runtime/ingest-wiring.ts. What hooks implement and receive is in hooks.ts.
 */
import type { Db, Queryable } from "../db/types.js";
import { RetryableError } from "../internal/errors.js";
import type { Logger } from "../internal/logger.js";
import { insertBurnBlocks, loadBlock, readBranch, readCanonicalFrom, setCanonical } from "./block-store.js";
import { type ChainRowBuffer, createChainRowBuffer } from "./chain-row-buffer.js";
import { type Decoded, type DecodeResult, tryDecode } from "./decode-request.js";
import { type ChainStep, decideFinality } from "./finality.js";
import { type BlockRef, branchFloor, planForkChoice } from "./fork-choice.js";
import {
  type JournalEntry,
  insertImportedJournal,
  insertJournal,
  markJournalDone,
  markJournalMalformed,
  readPendingJournal,
} from "./journal-store.js";
import { type BlockHooks, type IngestOutcome, type ReorgRecord, RetryTransactionError } from "./hooks.js";
import { malformedReason } from "./malformed.js";
import { readTip, type TipNotification, tipRef, updateTip } from "./tip.js";
import { lockTransactionTip, type TransactionTip } from "./transaction-tip.js";
import type { DecodedBlock, DecodedBurnBlock } from "./types.js";

/**
 * An archive restore is in progress (sluice archive bootstrap/backfill/repair): the request stays
 * journaled and is applied once the restore is over. Retryable, so the observer's processor keeps
 * trying it with its backoff.
 */
export class RestoreInProgressError extends RetryableError {
  constructor() {
    super("an archive restore is in progress; journaled requests are applied once it is over");
    this.name = "RestoreInProgressError";
  }
}

/** A transaction is run at most this many times when hooks ask for a retry. */
const TRANSACTION_ATTEMPTS = 3;

/** Channel notified (inside the block transaction, so delivered at commit) for every tip change. */
export const CHAIN_CHANNEL = "sluice_chain";

export interface IngestorDeps {
  db: Db;
  logger: Logger;
  finalityBurnConfirmations: number;
  hooks?: BlockHooks[];
}

export interface Ingestor {
  /** Observer step 1: durably journal a request; returns its id once committed. */
  journal(path: string, body: string): Promise<string>;
  /** Observer step 2: process a journaled request in its own transaction(s). */
  processJournalEntry(entry: JournalEntry): Promise<IngestOutcome>;
  /** Import: journal (deduplicated by sourceKey) and process in one transaction. `decoded` may be
   * computed ahead (the import decodes the next request while this one's transaction runs). */
  importRequest(path: string, body: string, sourceKey: string, decoded?: DecodeResult): Promise<IngestOutcome>;
  /** Import several consecutive requests in one transaction (each block still wholly inside it). */
  importBatch(items: ImportItem[]): Promise<IngestOutcome[]>;
  /** Pure decoding step of a request, never throws. */
  decode(path: string, body: string): DecodeResult;
  /** Processes every pending journal row in id order (start-up recovery). */
  drainPending(onOutcome?: (o: IngestOutcome) => void): Promise<number>;
  /** Recomputes the finality boundary from the stored chain (at start: after an upgrade, or when
   * FINALITY_BURN_CONFIRMATIONS changed). */
  refreshFinality(): Promise<void>;
}

export interface ImportItem {
  path: string;
  body: string;
  sourceKey: string;
  decoded: DecodeResult;
}

export function createIngestor({ db, logger, finalityBurnConfirmations, hooks = [] }: IngestorDeps): Ingestor {
  const confirmations = finalityBurnConfirmations;

  /**
   * db.transaction, run again at once when a hook asks for it (RetryTransactionError); hooks hear
   * of the commit. Any other failure goes to the caller, which asks `isRetryable` (via
   * malformedReason) whether the request is tried again later. `fn` gets the transaction's
   * connection through its chain row buffer (chain-row-buffer.ts), drained before the commit.
   */
  async function blockTransaction<T>(fn: (q: Queryable, rows: ChainRowBuffer) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let committed: { q: Queryable; result: T };
      try {
        committed = await db.transaction(async (tx) => {
          // The pg driver sends Buffer parameters as they are: the chain rows go as binary arrays.
          const rows = createChainRowBuffer(tx, db.kind === "postgres" ? "binary" : "text");
          const result = await fn(rows.queryable, rows);
          await rows.drain();
          return { q: rows.queryable, result };
        });
      } catch (err) {
        if (!(err instanceof RetryTransactionError) || attempt >= TRANSACTION_ATTEMPTS) throw err;
        logger.info({ msg: "block transaction rolled back; running it again", reason: err.message, attempt });
        continue;
      }
      for (const h of hooks) h.afterCommit?.(committed.q);
      return committed.result;
    }
  }

  async function beforeCommit(q: Queryable): Promise<void> {
    for (const h of hooks) await h.beforeCommit?.(q);
  }

  /**
   * The transaction's tip, locked by its first block or burn block (transaction-tip.ts), which
   * also learns which of `blockHashes` (the transaction's blocks) are stored already. Burn block
   * rows wait here too and go in one statement at `flush`: nothing in the transaction reads them,
   * and one insert per burn block was a round trip each.
   */
  function transactionTip(q: Queryable, blockHashes: readonly string[]) {
    let locked: Promise<TransactionTip> | null = null;
    const burnRows: DecodedBurnBlock[] = [];
    return {
      get: () => {
        locked ??= lockTransactionTip(q, blockHashes, confirmations);
        return locked;
      },
      burnBlock: (row: DecodedBurnBlock) => {
        burnRows.push(row);
      },
      flush: async () => {
        if (burnRows.length > 0) await insertBurnBlocks(q, burnRows.splice(0));
        if (locked !== null) await (await locked).flush();
      },
    };
  }
  type TipHolder = ReturnType<typeof transactionTip>;

  async function applyDecoded(
    q: Queryable,
    rows: ChainRowBuffer,
    decoded: Decoded,
    tips: TipHolder,
  ): Promise<IngestOutcome> {
    if (decoded.kind === "other") return { kind: "journaled" };
    if (decoded.kind === "burn_block") {
      const tt = await tips.get();
      if (tt.restoring) throw new RestoreInProgressError();
      const b = decoded.burn;
      tips.burnBlock(b);
      tt.raiseBurn(b.burnBlockHeight);
      return { kind: "burn_block", burnBlockHeight: b.burnBlockHeight };
    }
    return applyBlock(q, rows, decoded.block, await tips.get());
  }

  async function applyBlock(
    q: Queryable,
    rows: ChainRowBuffer,
    block: DecodedBlock,
    tt: TransactionTip,
  ): Promise<IngestOutcome> {
    if (tt.restoring) throw new RestoreInProgressError();
    const base = {
      kind: "block" as const,
      height: block.height,
      indexBlockHash: block.indexBlockHash,
      events: block.events.length,
    };
    if (tt.isStored(block.indexBlockHash)) return { ...base, result: "duplicate" };
    tt.stored(block.indexBlockHash);

    const current = tipRef(tt.tip);
    const ref: BlockRef = {
      indexBlockHash: block.indexBlockHash,
      height: block.height,
      parentIndexBlockHash: block.parentIndexBlockHash,
    };
    const quick = planForkChoice({ tip: current, block: ref, branch: [], forkBase: null });
    if (quick.kind === "extend") {
      rows.add(block, true);
      for (const h of hooks) await h.applyBlock(q, block);
      tt.extend(
        {
          tip: { indexBlockHash: block.indexBlockHash, height: block.height },
          burnBlockHeight: block.burnBlockHeight,
          txDelta: block.txs.length,
          eventDelta: committedCount(block),
        },
        chainNotification({ type: "block", height: block.height, index_block_hash: block.indexBlockHash }),
      );
      return { ...base, result: "extended" };
    }

    if (quick.kind === "side" && block.height !== current?.height) {
      // Below the tip: it has lost to a longer chain already, and changes only the counters.
      rows.add(block, false);
      tt.sideBlock(block.burnBlockHeight);
      return { ...base, result: "side" };
    }
    // Fork choice and finality from here on read the tip as stored.
    const tip = await tt.settled();
    const finality = (step: ChainStep) => decideFinality(tip, step);
    rows.add(block, false);
    if (quick.kind === "side") {
      // A tie with the tip: the next block decides, so nothing from this branch's floor up is final
      // meanwhile. The notification lets readers see the boundary move down.
      const tie = await readBranch(q, block.parentIndexBlockHash);
      await tt.write(
        {
          burnBlockHeight: block.burnBlockHeight,
          blocksIngested: 1,
          finality: finality({ kind: "tie", branchFloor: branchFloor({ block: ref, ...tie }) }),
        },
        chainNotification({ type: "tie", height: block.height, index_block_hash: block.indexBlockHash }),
      );
      return { ...base, result: "side" };
    }

    // The new block may beat the tip: walk its stored ancestry to find the fork point.
    const { branch, forkBase } = await readBranch(q, block.parentIndexBlockHash);
    const plan = planForkChoice({ tip: current, block: ref, branch, forkBase });
    if (plan.kind !== "switch") throw new Error(`unexpected fork plan ${plan.kind}`);
    if (plan.gap) {
      logger.warn({
        msg: "block ancestry incomplete; following the longer chain",
        block_height: block.height,
        index_block_hash: block.indexBlockHash,
      });
    }
    const orphaned = await readCanonicalFrom(q, plan.forkPointHeight);
    let txDelta = 0;
    let eventDelta = 0;
    for (const old of orphaned) {
      for (const h of hooks) await h.revertBlock(q, old, plan.forkPointHeight);
      const counts = await blockCounts(q, old.indexBlockHash);
      txDelta -= counts.txs;
      eventDelta -= counts.events;
      await setCanonical(q, old.indexBlockHash, false);
    }
    for (const hash of plan.apply) {
      await setCanonical(q, hash, true);
      const applied = hash === block.indexBlockHash ? block : await loadBlock(q, hash);
      txDelta += applied.txs.length;
      eventDelta += committedCount(applied);
      for (const h of hooks) await h.applyBlock(q, applied);
    }
    const newTip = { indexBlockHash: block.indexBlockHash, height: block.height };
    const reorged = orphaned.length > 0 && current !== null;
    const decision = finality(
      reorged ? { kind: "reorg", forkPointHeight: plan.forkPointHeight } : { kind: "advanced" },
    );
    if (reorged) {
      const record: ReorgRecord = {
        forkPointHeight: plan.forkPointHeight,
        belowFinality: decision.belowFinality,
        orphaned,
        applied: plan.apply,
        oldTip: current,
        newTip,
      };
      await insertReorg(q, record);
      for (const h of hooks) await h.onReorg?.(q, record);
      if (decision.belowFinality) {
        // Followed anyway (the node's chain is the chain); subgraphs whose undo journal no longer
        // covers the orphaned blocks are rebuilt by the subgraph engine (revert-coverage.ts).
        logger.error({
          msg: "reorg below the finality boundary",
          fork_point_height: plan.forkPointHeight,
          finalized_height: tip.finalizedHeight,
          finalized_high_water: tip.finalizedHighWater,
          reorgs_below_finality: tip.reorgsBelowFinality + 1,
          block_height: block.height,
          index_block_hash: block.indexBlockHash,
        });
      }
      logger.info({
        msg: "reorg",
        fork_point_height: plan.forkPointHeight,
        orphaned: orphaned.length,
        applied: plan.apply.length,
        block_height: block.height,
      });
    }
    await tt.write(
      {
        tip: newTip,
        burnBlockHeight: block.burnBlockHeight,
        blocksIngested: 1,
        txDelta,
        eventDelta,
        reorgs: reorged ? 1 : 0,
        finality: decision,
      },
      chainNotification({
        type: reorged ? "reorg" : "block",
        height: block.height,
        index_block_hash: block.indexBlockHash,
        fork_point_height: plan.forkPointHeight,
      }),
    );
    return { ...base, result: reorged ? "reorg" : "extended" };
  }

  async function processDecoded(entryId: string, decoded: Decoded): Promise<IngestOutcome> {
    return blockTransaction(async (q, rows) => {
      await relaxCommit(q, db.kind);
      const tips = transactionTip(q, decoded.kind === "block" ? [decoded.block.indexBlockHash] : []);
      const outcome = await applyDecoded(q, rows, decoded, tips);
      await markJournalDone(q, entryId);
      await tips.flush(); // before the hooks' last writes, which may read the finality boundary
      await beforeCommit(q);
      return outcome;
    });
  }

  async function recordMalformed(id: string, path: string, reason: string, body?: string): Promise<IngestOutcome> {
    logger.warn({ msg: "malformed observer payload", path, journal_id: id, error: reason });
    await markJournalMalformed(db, id, reason, body);
    return { kind: "malformed", reason };
  }

  const ingestor: Ingestor = {
    async journal(path, body) {
      const id = await insertJournal(db, { path, body, bodyBytes: Buffer.byteLength(body) });
      if (id === null) throw new Error("journal insert returned no id");
      return id;
    },

    async processJournalEntry(entry) {
      const decoded = tryDecode(entry.path, entry.body);
      if (decoded.kind === "malformed") return recordMalformed(entry.id, entry.path, decoded.reason);
      try {
        return await processDecoded(entry.id, decoded);
      } catch (err) {
        // Refused on every run: record and move on. Anything else stays pending, to be retried.
        const reason = malformedReason("apply", err);
        if (reason !== null) return recordMalformed(entry.id, entry.path, reason);
        throw err;
      }
    },

    async importRequest(path, body, sourceKey, predecoded) {
      const [outcome] = await ingestor.importBatch([
        { path, body, sourceKey, decoded: predecoded ?? tryDecode(path, body) },
      ]);
      return outcome;
    },

    async importBatch(items) {
      const outcomes: IngestOutcome[] = new Array(items.length);
      const usable: number[] = [];
      for (let i = 0; i < items.length; i++) {
        const { path, body, sourceKey, decoded } = items[i];
        if (decoded.kind !== "malformed") {
          usable.push(i);
          continue;
        }
        logger.warn({ msg: "malformed payload in import", path, source_key: sourceKey, error: decoded.reason });
        const id = await insertJournal(db, { path, body, bodyBytes: Buffer.byteLength(body), sourceKey });
        if (id !== null) await markJournalMalformed(db, id, decoded.reason);
        outcomes[i] = id === null ? { kind: "skipped" } : { kind: "malformed", reason: decoded.reason };
      }
      const apply = (indexes: number[]) =>
        blockTransaction(async (q, rows) => {
          await relaxCommit(q, db.kind);
          // One journal statement for the batch; a request already imported (its key journaled
          // before, or earlier in this batch) is skipped.
          const fresh = await insertImportedJournal(
            q,
            indexes.map((i) => ({
              path: items[i].path,
              bodyBytes: Buffer.byteLength(items[i].body),
              sourceKey: items[i].sourceKey,
            })),
          );
          const blockHashes: string[] = [];
          for (const i of indexes) {
            const decoded = items[i].decoded;
            if (decoded.kind === "block") blockHashes.push(decoded.block.indexBlockHash);
          }
          const tips = transactionTip(q, blockHashes);
          const blocks = indexes.map((i) => items[i].decoded).filter((d) => d?.kind === "block");
          if (blocks.length > 1)
            for (const h of hooks)
              await h.readAhead?.(
                q,
                blocks.map((d) => d.block),
              );
          const results: IngestOutcome[] = [];
          for (const i of indexes) {
            const { sourceKey, decoded } = items[i];
            const first = fresh.delete(sourceKey);
            results.push(first ? await applyDecoded(q, rows, decoded as Decoded, tips) : { kind: "skipped" });
          }
          await tips.flush(); // before the hooks' last writes, which may read the finality boundary
          await beforeCommit(q);
          return results;
        });
      try {
        const results = await apply(usable);
        usable.forEach((i, k) => {
          outcomes[i] = results[k];
        });
      } catch (err) {
        const reason = malformedReason("apply", err);
        if (reason === null) throw err;
        if (usable.length > 1) {
          // Isolate the request the database refuses: one transaction per request.
          for (const i of usable) [outcomes[i]] = await ingestor.importBatch([items[i]]);
          return outcomes;
        }
        const { path, body, sourceKey } = items[usable[0]];
        logger.warn({ msg: "payload rejected by the database in import", path, source_key: sourceKey, error: reason });
        const id = await insertJournal(db, { path, body, bodyBytes: Buffer.byteLength(body), sourceKey });
        if (id) await markJournalMalformed(db, id, reason);
        outcomes[usable[0]] = { kind: "malformed", reason };
      }
      return outcomes;
    },

    decode: tryDecode,

    async drainPending(onOutcome) {
      let processed = 0;
      let waits = 0;
      for (;;) {
        const batch = await readPendingJournal(db, 100);
        if (!batch.length) return processed;
        for (const entry of batch) {
          let outcome: IngestOutcome;
          try {
            outcome = await ingestor.processJournalEntry(entry);
          } catch (err) {
            if (!(err instanceof RestoreInProgressError)) throw err;
            // Start-up waits (the ports answer 503 meanwhile) until the restore is over.
            if (waits++ === 0) logger.warn({ msg: err.message });
            await new Promise((r) => setTimeout(r, Math.min(30_000, 500 * waits)));
            break;
          }
          processed++;
          onOutcome?.(outcome);
        }
      }
    },

    async refreshFinality() {
      await db.transaction(async (q) => {
        const tip = await readTip(q, true);
        await updateTip(
          q,
          { finality: decideFinality(tip, { kind: "unchanged" }) },
          confirmations,
          chainNotification({ type: "finality" }),
        );
      });
    },
  };
  return ingestor;
}

/**
 * On PostgreSQL, block transactions do not wait for the WAL flush: the journal row (committed
 * synchronously before the acknowledgement) or the import file is the durable copy, and a
 * transaction lost to a server crash leaves its request pending, to be processed again at start.
 * The server flushes its WAL by itself within a fraction of a second, so killing our process loses
 * nothing. PGlite runs inside our process and has no WAL writer: there, commits stay synchronous.
 */
async function relaxCommit(q: Queryable, kind: Db["kind"]): Promise<void> {
  if (kind === "postgres") await q.query("SET LOCAL synchronous_commit TO off");
}

/** Committed events are the ones indexed as effects (the tip counters count only those). */
function committedCount(block: DecodedBlock): number {
  let n = 0;
  for (const e of block.events) if (e.committed) n++;
  return n;
}

async function blockCounts(q: Queryable, indexBlockHash: string): Promise<{ txs: number; events: number }> {
  const { rows } = await q.query<{ tx_count: number; events: string }>(
    `SELECT tx_count, (SELECT count(*) FROM chain.events e WHERE e.index_block_hash = b.index_block_hash AND e.committed) AS events
       FROM chain.blocks b WHERE index_block_hash = $1`,
    [indexBlockHash],
  );
  return { txs: Number(rows[0]?.tx_count ?? 0), events: Number(rows[0]?.events ?? 0) };
}

async function insertReorg(q: Queryable, r: ReorgRecord): Promise<void> {
  const heights = r.orphaned.map((b) => b.height);
  await q.query(
    `INSERT INTO chain.reorgs (fork_point_height, orphaned_from_height, orphaned_to_height, orphaned_blocks,
       applied_blocks, old_tip_hash, old_tip_height, new_tip_hash, new_tip_height, below_finality)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      r.forkPointHeight,
      Math.min(...heights),
      Math.max(...heights),
      JSON.stringify(r.orphaned.map((b) => ({ index_block_hash: b.indexBlockHash, block_height: b.height }))),
      JSON.stringify(r.applied),
      r.oldTip.indexBlockHash,
      r.oldTip.height,
      r.newTip.indexBlockHash,
      r.newTip.height,
      r.belowFinality,
    ],
  );
}

/** The tip-change message on CHAIN_CHANNEL (sent by the tip update, delivered at commit). */
function chainNotification(payload: Record<string, unknown>): TipNotification {
  return { channel: CHAIN_CHANNEL, payload: JSON.stringify(payload) };
}
