/**
 * Chain-webhook outbox writer (DESIGN.md §2, §5): the BlockHooks the ingestor
 * runs inside each block's transaction.
 * - applyBlock: match every chain webhook's triggers against the block and write one outbox row per
 *   (webhook, event) with its dedupe key; emit `sbtc_withdrawal_swept_confirmed` for registry
 *   `withdrawal-accept` prints that just became final (burn-confirmed), once, forward-only.
 * - revertBlock: the orphaned block's rows are marked rolled back; those never attempted are
 *   cancelled (the receiver never saw them); the others are remembered for the rollback.
 * - before the first block of the winning branch (or at onReorg): one `chain.reorg.rollback` fence
 *   row per webhook that had applies the receiver may have seen, listing them (≤ 500, `truncated`).
 */
import { randomUUID } from "node:crypto";
import type { BlockHooks } from "../chain/hooks.js";
import type { Queryable } from "../db/types.js";
import type { Logger } from "../internal/logger.js";
import { applyType, buildApplyData, buildRollbackData, type ChainApplyData, ROLLBACK_TYPE } from "./chain-payload.js";
import { insertOutboxRows, notifyWorkers, type OutboxInsert } from "./outbox-store.js";
import { readCanonicalRange } from "../subgraphs/block-reader.js";
import { createTraitResolver, type TraitResolver } from "../subgraphs/trait-resolver.js";
import { matchBlock, matchSweptConfirmed, type MatchContext, traitCandidates } from "./trigger-match.js";
import { type WebhookSnapshot, webhookSnapshot } from "./webhook-snapshot.js";

export interface ChainOutboxDeps {
  logger: Logger;
  /** config.contracts.sbtcRegistryContractId */
  sbtcRegistry: string;
  traits?: TraitResolver;
}

/** Applies the receiver may have seen, per webhook, collected by revertBlock during one reorg. */
interface PendingRollback {
  /** The reorg's fork point: the lowest height it orphans (README "Reorgs"). */
  forkPointHeight: number;
  byWebhook: Map<string, ChainApplyData[]>;
  flushed: boolean;
}

export function createChainOutbox(deps: ChainOutboxDeps): BlockHooks {
  const traits = deps.traits ?? createTraitResolver();
  // One entry per block transaction in a reorg (the ingestor passes the same Queryable to every hook).
  const pending = new WeakMap<Queryable, PendingRollback>();

  async function flushRollback(q: Queryable): Promise<number> {
    const p = pending.get(q);
    if (!p || p.flushed) return 0;
    p.flushed = true;
    const fork = p.forkPointHeight;
    const rows: OutboxInsert[] = [];
    for (const [webhookId, applies] of p.byWebhook) {
      if (!applies.length) continue;
      rows.push({
        webhookId,
        eventType: ROLLBACK_TYPE,
        kind: "rollback",
        txId: "",
        eventIndex: -1,
        // One per reorg and webhook, never deduplicated against an earlier one (the same switch
        // can happen again after a flip back); the block transaction makes it exactly once.
        blockHash: `rollback:${randomUUID()}`,
        blockHeight: fork,
        data: { ...buildRollbackData(fork, applies) },
        fence: true,
      });
    }
    return insertOutboxRows(q, rows);
  }

  return {
    async applyBlock(q, block) {
      let written = await flushRollback(q);
      const snapshot = await webhookSnapshot(q);
      const webhooks = snapshot.chain;
      if (webhooks.length) {
        traits.noteBlock(block);
        await traits.prefetch(q, traitCandidates(webhooks, block));
        const ctx: MatchContext = { sbtcRegistry: deps.sbtcRegistry, implementsTrait: traits.check };
        const rows = matchBlock(webhooks, block, ctx).map(
          (m): OutboxInsert => ({
            webhookId: m.webhookId,
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
          }),
        );
        written += await insertOutboxRows(q, rows);
      }
      written += await emitSweptConfirmations(q, snapshot, deps.sbtcRegistry);
      if (written) await notifyWorkers(q);
    },

    async revertBlock(q, ref, forkPointHeight) {
      const { rows } = await q.query<{
        webhook_id: string;
        dedupe_kind: string;
        status: string;
        attempts: number;
        data: ChainApplyData;
      }>(
        `UPDATE control.webhook_outbox SET rolled_back = true,
           status = CASE WHEN dedupe_kind IN ('apply', 'replay') AND status = 'pending' AND leased_until IS NULL
                         THEN 'cancelled' ELSE status END,
           finished_at = CASE WHEN dedupe_kind IN ('apply', 'replay') AND status = 'pending' AND leased_until IS NULL
                              THEN now() ELSE finished_at END
         WHERE block_hash = $1 AND NOT rolled_back AND dedupe_kind IN ('apply', 'replay', 'row')
         RETURNING webhook_id, dedupe_kind, status, attempts, data`,
        [ref.indexBlockHash],
      );
      let p = pending.get(q);
      if (!p || p.flushed) {
        p = { forkPointHeight, byWebhook: new Map(), flushed: false };
        pending.set(q, p);
      }
      // Newest first: keep each webhook's list in block order by prepending this (older) block's rows.
      const seen = new Map<string, ChainApplyData[]>();
      for (const r of rows) {
        if (r.dedupe_kind === "row") continue;
        // Cancelled without an attempt: never sent, nothing to roll back.
        if (r.status === "cancelled" && r.attempts === 0) continue;
        const list = seen.get(r.webhook_id) ?? [];
        list.push(r.data);
        seen.set(r.webhook_id, list);
      }
      for (const [webhookId, list] of seen) {
        list.sort((a, b) => (a.event?.event_index ?? -1) - (b.event?.event_index ?? -1));
        p.byWebhook.set(webhookId, [...list, ...(p.byWebhook.get(webhookId) ?? [])]);
      }
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
async function emitSweptConfirmations(q: Queryable, snapshot: WebhookSnapshot, registry: string): Promise<number> {
  const finalized = snapshot.finalizedHeight;
  if (finalized === null) return 0;
  const watchers = snapshot.chain.filter((w) => w.triggers.some((t) => t.type === "sbtc_withdrawal_swept_confirmed"));
  // Before the first scan, start below the oldest watcher (each one's own start filters the rest).
  const done =
    snapshot.sweptConfirmedHeight ?? (watchers.length ? Math.min(...watchers.map((w) => w.startHeight)) : finalized);
  if (finalized <= done) return 0;
  await q.query("UPDATE control.webhook_progress SET swept_confirmed_height = $1", [finalized]);
  snapshot.sweptConfirmedHeight = finalized; // the transaction's snapshot stays true to the table
  if (!watchers.length) return 0;
  const ctx: MatchContext = { sbtcRegistry: registry, implementsTrait: () => false };
  const out: OutboxInsert[] = [];
  for (const block of await readCanonicalRange(q, done + 1, finalized, ["print"], false)) {
    for (const event of block.events) {
      if (event.contractId !== registry) continue;
      for (const m of matchSweptConfirmed(watchers, event, block.height, ctx)) {
        const data = buildApplyData({
          trigger: m.trigger,
          tx: { txId: event.txId },
          event,
          blockHash: block.blockHash,
          blockHeight: block.height,
        });
        out.push({
          webhookId: m.webhookId,
          eventType: applyType(m.trigger),
          kind: "confirm",
          txId: event.txId,
          eventIndex: event.eventIndex,
          blockHash: block.indexBlockHash,
          blockHeight: block.height,
          data: { ...data },
        });
      }
    }
  }
  return insertOutboxRows(q, out);
}
