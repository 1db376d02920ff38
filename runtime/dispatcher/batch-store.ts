/**
 * SQL of control.webhook_batches: the compact records block transactions write (one INSERT per
 * block and writer) and the dispatcher expands in id order (see delivery-batch.ts, expander.ts).
 */
import type { Queryable } from "../db/types.js";
import type { DeliveryBatchBody, DeliveryBatchBuilder } from "./delivery-batch.js";

export interface DeliveryBatch {
  id: string;
  kind: "deliveries";
  /** Chain applies: the block they derive from; null for other deliveries (row changes, confirmations). */
  blockHash: string | null;
  body: DeliveryBatchBody;
  webhookCount: number;
  /** Webhook positions [0, expanded) are expanded. */
  expanded: number;
}

export interface RollbackBatch {
  id: string;
  kind: "rollback";
  forkPointHeight: number;
  /** The orphaned blocks, newest first. */
  orphaned: string[];
}

export type StoredBatch = DeliveryBatch | RollbackBatch;

/** Records a batch of deliveries (nothing when it is empty); true when one was written. */
export async function insertDeliveryBatch(
  q: Queryable,
  batch: DeliveryBatchBuilder,
  blockHash: string | null,
): Promise<boolean> {
  if (!batch.deliveryCount) return false;
  await q.query(
    `INSERT INTO control.webhook_batches (kind, block_hash, body, webhook_count, delivery_count)
     VALUES ('deliveries', $1, $2, $3, $4)`,
    [blockHash, JSON.stringify(batch.body()), batch.webhookCount, batch.deliveryCount],
  );
  return true;
}

/** Records a reorg's orphaned blocks (newest first) for the rollback deliveries. */
export async function insertRollbackBatch(q: Queryable, forkPointHeight: number, orphaned: string[]): Promise<void> {
  await q.query(`INSERT INTO control.webhook_batches (kind, orphaned, body) VALUES ('rollback', $1::text[], $2)`, [
    orphaned,
    JSON.stringify({ forkPointHeight }),
  ]);
}

/** The oldest batches not yet expanded, in id order. */
export async function headBatches(q: Queryable, limit: number): Promise<StoredBatch[]> {
  const { rows } = await q.query<{
    id: string;
    kind: string;
    block_hash: string | null;
    orphaned: string[] | null;
    body: unknown;
    webhook_count: number;
    expanded: number;
  }>(
    `SELECT id, kind, block_hash, orphaned, body, webhook_count, expanded
       FROM control.webhook_batches ORDER BY id LIMIT $1`,
    [limit],
  );
  return rows.map((r): StoredBatch => {
    const body = typeof r.body === "string" ? JSON.parse(r.body) : r.body;
    if (r.kind === "rollback") {
      return {
        id: String(r.id),
        kind: "rollback",
        forkPointHeight: Number((body as { forkPointHeight: number }).forkPointHeight),
        orphaned: r.orphaned ?? [],
      };
    }
    return {
      id: String(r.id),
      kind: "deliveries",
      blockHash: r.block_hash,
      body: body as DeliveryBatchBody,
      webhookCount: Number(r.webhook_count),
      expanded: Number(r.expanded),
    };
  });
}

/** Whether a later rollback batch orphans `blockHash` (its applies were never sent: skip them). */
export async function orphanedLater(q: Queryable, batchId: string, blockHash: string): Promise<boolean> {
  const { rows } = await q.query(
    `SELECT 1 FROM control.webhook_batches WHERE kind = 'rollback' AND id > $1 AND $2 = ANY(orphaned) LIMIT 1`,
    [batchId, blockHash],
  );
  return rows.length > 0;
}

export async function advanceBatch(q: Queryable, batchId: string, expanded: number): Promise<void> {
  await q.query("UPDATE control.webhook_batches SET expanded = $2 WHERE id = $1", [batchId, expanded]);
}

export async function deleteBatch(q: Queryable, batchId: string): Promise<void> {
  await q.query("DELETE FROM control.webhook_batches WHERE id = $1", [batchId]);
}
