/**
 * Chain-webhook outbox writer (DESIGN.md §2, §5): the BlockHooks the ingestor runs inside each
 * block's transaction. What it writes stays small however many webhooks match: one batch per block
 * (delivery-batch.ts) naming each matched (event, trigger) payload once with its webhooks; the
 * dispatcher expands batches into outbox rows outside the transaction (expander.ts).
 * - applyBlock: match the block against the trigger index of the transaction's webhook snapshot
 *   and record the batch; emit `sbtc_withdrawal_swept_confirmed` for registry `withdrawal-accept`
 *   prints that just became final (burn-confirmed), once, forward-only.
 * - revertBlock: the orphaned block is remembered for the reorg's rollback batch.
 * - before the first block of the winning branch (or at onReorg): one rollback batch naming the
 *   orphaned blocks; its expansion marks their rows rolled back (never-attempted ones cancelled)
 *   and writes one `chain.reorg.rollback` fence per webhook that may have seen some of them.
 */
import type { BlockHooks } from "../chain/hooks.js";
import type { Queryable } from "../db/types.js";
import type { Logger } from "../internal/logger.js";
import { readCanonicalRange } from "../subgraphs/block-reader.js";
import { createTraitResolver, type TraitResolver } from "../subgraphs/trait-resolver.js";
import { insertDeliveryBatch, insertRollbackBatch } from "./batch-store.js";
import { applyType, buildApplyData } from "./chain-payload.js";
import { DeliveryBatchBuilder, type DeliveryTemplate } from "./delivery-batch.js";
import { notifyWorkers } from "./outbox-store.js";
import { matchBlock, matchSweptConfirmed, type MatchContext, traitCandidates } from "./trigger-match.js";
import { chainTriggerIndex, type WebhookSnapshot, webhookSnapshot } from "./webhook-snapshot.js";

export interface ChainOutboxDeps {
  logger: Logger;
  /** config.contracts.sbtcRegistryContractId */
  sbtcRegistry: string;
  traits?: TraitResolver;
}

/** Blocks orphaned by the reorg in progress, newest first (revertBlock is called newest first). */
interface PendingRollback {
  /** The reorg's fork point: the lowest height it orphans (README "Reorgs"). */
  forkPointHeight: number;
  orphaned: string[];
  flushed: boolean;
}

export function createChainOutbox(deps: ChainOutboxDeps): BlockHooks {
  const traits = deps.traits ?? createTraitResolver();
  // One entry per block transaction in a reorg (the ingestor passes the same Queryable to every hook).
  const pending = new WeakMap<Queryable, PendingRollback>();

  async function flushRollback(q: Queryable): Promise<boolean> {
    const p = pending.get(q);
    if (!p || p.flushed) return false;
    p.flushed = true;
    const snapshot = await webhookSnapshot(q);
    // Without webhooks there are no rows to roll back (deleting a webhook deletes its rows).
    if (!snapshot.chain.length && !snapshot.subgraph.length) return false;
    await insertRollbackBatch(q, p.forkPointHeight, p.orphaned);
    return true;
  }

  return {
    async applyBlock(q, block) {
      let written = await flushRollback(q);
      const snapshot = await webhookSnapshot(q);
      if (snapshot.chain.length) {
        const index = chainTriggerIndex(snapshot);
        traits.noteBlock(block);
        if (index.traitTypes.size) await traits.prefetch(q, traitCandidates(snapshot.chain, block, index));
        const ctx: MatchContext = { sbtcRegistry: deps.sbtcRegistry, implementsTrait: traits.check };
        const batch = new DeliveryBatchBuilder();
        // Matches come in block order, webhooks in snapshot order within each (event, trigger).
        let key = "";
        let template: DeliveryTemplate | null = null;
        let ids: string[] = [];
        for (const m of matchBlock(snapshot.chain, block, ctx, index)) {
          const k = `${m.txId}\n${m.eventIndex}\n${m.trigger}`;
          if (k !== key) {
            if (template) batch.add(template, ids);
            key = k;
            ids = [];
            template = {
              eventType: applyType(m.trigger),
              kind: "apply",
              txId: m.txId,
              eventIndex: m.eventIndex,
              blockHash: block.indexBlockHash,
              blockHeight: block.height,
              data: {
                ...buildApplyData({
                  trigger: m.trigger,
                  tx: m.tx,
                  event: m.event,
                  blockHash: block.blockHash,
                  blockHeight: block.height,
                }),
              },
            };
          }
          ids.push(m.webhookId);
        }
        if (template) batch.add(template, ids);
        if (await insertDeliveryBatch(q, batch, block.indexBlockHash)) written = true;
      }
      if (await emitSweptConfirmations(q, snapshot, deps.sbtcRegistry)) written = true;
      if (written) await notifyWorkers(q);
    },

    async revertBlock(_q, ref, forkPointHeight) {
      let p = pending.get(_q);
      if (!p || p.flushed) {
        p = { forkPointHeight, orphaned: [], flushed: false };
        pending.set(_q, p);
      }
      p.orphaned.push(ref.indexBlockHash);
    },

    async onReorg(q) {
      if (await flushRollback(q)) await notifyWorkers(q);
      pending.delete(q);
    },
  };
}

/**
 * Registry `withdrawal-accept` prints in canonical blocks that became final since the last block:
 * their sweep is confirmed on Bitcoin. Each fires `sbtc_withdrawal_swept_confirmed` once (final
 * blocks never reorg; the progress row moves forward only).
 */
async function emitSweptConfirmations(q: Queryable, snapshot: WebhookSnapshot, registry: string): Promise<boolean> {
  const finalized = snapshot.finalizedHeight;
  if (finalized === null) return false;
  const watchers = chainTriggerIndex(snapshot).sweptWatchers;
  // Before the first scan, start below the oldest watcher (each one's own start filters the rest).
  const done =
    snapshot.sweptConfirmedHeight ?? (watchers.length ? Math.min(...watchers.map((w) => w.startHeight)) : finalized);
  if (finalized <= done) return false;
  await q.query("UPDATE control.webhook_progress SET swept_confirmed_height = $1", [finalized]);
  snapshot.sweptConfirmedHeight = finalized; // the transaction's snapshot stays true to the table
  if (!watchers.length) return false;
  const ctx: MatchContext = { sbtcRegistry: registry, implementsTrait: () => false };
  const batch = new DeliveryBatchBuilder();
  for (const block of await readCanonicalRange(q, done + 1, finalized, ["print"], false)) {
    for (const event of block.events) {
      if (event.contractId !== registry) continue;
      const hits = matchSweptConfirmed(watchers, event, block.height, ctx);
      if (!hits.length) continue;
      const data = buildApplyData({
        trigger: "sbtc_withdrawal_swept_confirmed",
        tx: { txId: event.txId },
        event,
        blockHash: block.blockHash,
        blockHeight: block.height,
      });
      batch.add(
        {
          eventType: applyType("sbtc_withdrawal_swept_confirmed"),
          kind: "confirm",
          txId: event.txId,
          eventIndex: event.eventIndex,
          blockHash: block.indexBlockHash,
          blockHeight: block.height,
          data: { ...data },
        },
        hits.map((m) => m.webhookId),
      );
    }
  }
  return insertDeliveryBatch(q, batch, null);
}
