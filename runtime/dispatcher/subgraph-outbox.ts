/**
 * Subgraph-webhook outbox writer (issue items 3 and 5): the listener the subgraph engine calls
 * inside each block transaction with the rows its handlers changed (and, after a reorg, the
 * compensating changes). Each change that passes a webhook's filter becomes an outbox row
 * `<subgraph>.<table>.<op>`; compensating changes are fences, delivered strictly after what came
 * before them, so a receiver applying deliveries in order converges on the canonical table.
 */
import type { Queryable } from "../db/types.js";
import { insertOutboxRows, notifyWorkers, type OutboxInsert } from "./outbox-store.js";
import type { RowFilter } from "./subgraph-filter.js";
import { buildRowChangeData, changeMatches, type RowChange, rowChangeType } from "./subgraph-payload.js";

export type { RowChange };

/** The engine's `onRowChanges` listener signature (runtime/subgraphs/index.ts). */
export type RowChangeListener = (
  q: Queryable,
  changes: readonly RowChange[],
  block: { indexBlockHash: string; height: number },
) => Promise<void>;

interface SubgraphWebhook {
  id: string;
  subgraph: string;
  table: string;
  filter: RowFilter;
  startHeight: number;
}

export function createSubgraphOutbox(): RowChangeListener {
  // Ordinal of changes sharing one dedupe key within a block transaction (several rows per event).
  const ordinals = new WeakMap<Queryable, Map<string, number>>();

  return async (q, changes) => {
    if (!changes.length) return;
    const webhooks = await loadSubgraphWebhooks(q);
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
}

async function loadSubgraphWebhooks(q: Queryable): Promise<SubgraphWebhook[]> {
  const { rows } = await q.query<{
    id: string;
    subgraph_name: string;
    table_name: string;
    filter: RowFilter | null;
    start_height: number;
  }>(
    "SELECT id, subgraph_name, table_name, filter, start_height FROM control.webhooks WHERE kind = 'subgraph' ORDER BY id",
  );
  return rows.map((r) => ({
    id: r.id,
    subgraph: r.subgraph_name,
    table: r.table_name,
    filter: r.filter ?? {},
    startHeight: Number(r.start_height),
  }));
}
