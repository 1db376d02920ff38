/**
 * Subgraph-webhook outbox writer: the listener the subgraph engine calls
 * inside each block transaction with the rows its handlers changed (and, after a reorg, the
 * compensating changes). Each change that passes a webhook's filter becomes an outbox row
 * `<subgraph>.<table>.<op>`; compensating changes are fences, delivered strictly after what came
 * before them, so a receiver applying deliveries in order converges on the canonical table.
 */
import type { Queryable } from "../db/types.js";
import type { RowChangeListener } from "../subgraphs/types.js";
import { insertOutboxRows, notifyWorkers, type OutboxInsert } from "./outbox-store.js";
import { buildRowChangeData, changeMatches, type RowChange, rowChangeType } from "./subgraph-payload.js";
import { webhookSnapshot } from "./webhook-snapshot.js";

export type { RowChange };

export type { RowChangeListener };

export function createSubgraphOutbox(): RowChangeListener {
  // Ordinal of changes sharing one dedupe key within a block transaction (several rows per event).
  const ordinals = new WeakMap<Queryable, Map<string, number>>();

  const listener: RowChangeListener = async (q, changes) => {
    if (!changes.length) return;
    const webhooks = (await webhookSnapshot(q)).subgraph;
    if (!webhooks.length) return;
    const seqs = ordinals.get(q) ?? new Map<string, number>();
    ordinals.set(q, seqs);
    const rows: OutboxInsert[] = [];
    for (const c of changes) {
      for (const w of webhooks) {
        if (w.subgraph !== c.subgraph || w.table !== c.table || c.blockHeight <= w.startHeight) continue;
        if (!changeMatches(w.filter, c)) continue;
        const kind = c.reverted ? "revert" : "row";
        const key = `${w.id}\n${kind}\n${c.txId}\n${c.eventIndex}\n${c.indexBlockHash}`;
        const seq = seqs.get(key) ?? 0;
        seqs.set(key, seq + 1);
        rows.push({
          webhookId: w.id,
          eventType: rowChangeType(c),
          kind,
          txId: c.txId,
          eventIndex: c.eventIndex,
          blockHash: c.indexBlockHash,
          seq,
          blockHeight: c.blockHeight,
          data: buildRowChangeData(c),
          fence: c.reverted,
        });
      }
    }
    if (await insertOutboxRows(q, rows)) await notifyWorkers(q);
  };
  // Without subgraph webhooks the block's changes are not needed (the snapshot read is shared
  // with the block's other outbox writer, so asking costs no extra round trip).
  listener.wantsChanges = async (q) => (await webhookSnapshot(q)).subgraph.length > 0;
  return listener;
}
