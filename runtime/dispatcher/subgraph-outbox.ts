/**
 * Subgraph-webhook outbox writer: the listener the subgraph engine calls inside each block
 * transaction with the rows its handlers changed (and, after a reorg, the compensating changes).
 * Each change is offered to the webhooks of its (subgraph, table), found by lookup; one that passes
 * a webhook's filter becomes a delivery `<subgraph>.<table>.<op>`, recorded in one batch per call
 * (delivery-batch.ts: the payload once, with the webhooks it goes to) that the dispatcher expands
 * into outbox rows. Compensating changes are fences, delivered strictly after what came before
 * them, so a receiver applying deliveries in order converges on the canonical table.
 */
import type { Queryable } from "../db/types.js";
import type { RowChangeListener } from "../subgraphs/types.js";
import { insertDeliveryBatch } from "./batch-store.js";
import { DeliveryBatchBuilder } from "./delivery-batch.js";
import { notifyWorkers } from "./outbox-store.js";
import { buildRowChangeData, changeMatches, type RowChange, rowChangeType } from "./subgraph-payload.js";
import { subgraphWebhooksOf, webhookSnapshot } from "./webhook-snapshot.js";

export type { RowChange };

export type { RowChangeListener };

export function createSubgraphOutbox(): RowChangeListener {
  // Ordinal of changes sharing one dedupe key within a block transaction (several rows per event).
  const ordinals = new WeakMap<Queryable, Map<string, number>>();

  const listener: RowChangeListener = async (q, changes) => {
    if (!changes.length) return;
    const snapshot = await webhookSnapshot(q);
    if (!snapshot.subgraph.length) return;
    const seqs = ordinals.get(q) ?? new Map<string, number>();
    ordinals.set(q, seqs);
    const batch = new DeliveryBatchBuilder();
    for (const c of changes) {
      const kind = c.reverted ? "revert" : "row";
      // Webhooks by their ordinal for this change's dedupe key (usually all 0).
      const bySeq = new Map<number, string[]>();
      for (const w of subgraphWebhooksOf(snapshot, c.subgraph, c.table)) {
        if (c.blockHeight <= w.startHeight || !changeMatches(w.filter, c)) continue;
        const key = `${w.id}\n${kind}\n${c.txId}\n${c.eventIndex}\n${c.indexBlockHash}`;
        const seq = seqs.get(key) ?? 0;
        seqs.set(key, seq + 1);
        const list = bySeq.get(seq);
        if (list) list.push(w.id);
        else bySeq.set(seq, [w.id]);
      }
      if (!bySeq.size) continue;
      const data = buildRowChangeData(c);
      for (const [seq, ids] of bySeq) {
        batch.add(
          {
            eventType: rowChangeType(c),
            kind,
            txId: c.txId,
            eventIndex: c.eventIndex,
            blockHash: c.indexBlockHash,
            seq,
            blockHeight: c.blockHeight,
            data,
            fence: c.reverted,
          },
          ids,
        );
      }
    }
    if (await insertDeliveryBatch(q, batch, null)) await notifyWorkers(q);
  };
  // Without subgraph webhooks the block's changes are not needed (the snapshot read is shared
  // with the block's other outbox writer, so asking costs no extra round trip).
  listener.wantsChanges = async (q) => (await webhookSnapshot(q)).subgraph.length > 0;
  return listener;
}
