/** control.archive_restore and control.archive_partitions (migrations 0010, 0011): a restore's resumable state. */
import type { Queryable } from "../db/types.js";

export type RestoreOperation = "bootstrap" | "backfill" | "repair";
export type RestorePhase = "downloading" | "loading" | "indexes" | "subgraphs";

export interface RestoreState {
  /** Made once when the restore starts: with a bundle's file, the idempotency key of its charge. */
  restoreId: string;
  operation: RestoreOperation;
  archiveUrl: string;
  manifestSequence: number;
  /** first_height of each partition the restore loads. */
  partitions: number[];
  /** first_height of each partition committed so far. */
  loaded: number[];
  phase: RestorePhase;
  droppedIndexes: { name: string; definition: string }[];
}

export async function readRestoreState(q: Queryable): Promise<RestoreState | null> {
  const { rows } = await q.query<Record<string, unknown>>(
    "SELECT restore_id, operation, archive_url, manifest_sequence, partitions, loaded, phase, dropped_indexes FROM control.archive_restore",
  );
  const r = rows[0];
  if (!r) return null;
  return {
    restoreId: String(r.restore_id),
    operation: r.operation as RestoreOperation,
    archiveUrl: String(r.archive_url),
    manifestSequence: Number(r.manifest_sequence),
    partitions: r.partitions as number[],
    loaded: r.loaded as number[],
    phase: r.phase as RestorePhase,
    droppedIndexes: r.dropped_indexes as RestoreState["droppedIndexes"],
  };
}

export async function startRestoreState(q: Queryable, s: Omit<RestoreState, "loaded">): Promise<void> {
  await q.query(
    `INSERT INTO control.archive_restore (restore_id, operation, archive_url, manifest_sequence, partitions, phase, dropped_indexes)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      s.restoreId,
      s.operation,
      s.archiveUrl,
      s.manifestSequence,
      JSON.stringify(s.partitions),
      s.phase,
      JSON.stringify(s.droppedIndexes),
    ],
  );
}

export async function setRestorePhase(q: Queryable, phase: RestorePhase): Promise<void> {
  await q.query("UPDATE control.archive_restore SET phase = $1, updated_at = now()", [phase]);
}

export async function finishRestoreState(q: Queryable): Promise<void> {
  await q.query("DELETE FROM control.archive_restore");
}

export async function recordRestoredPartition(
  q: Queryable,
  p: { firstHeight: number; lastHeight: number; sha256: string; contentSha256: string; keyId: string },
): Promise<void> {
  await q.query(
    `INSERT INTO control.archive_partitions (first_height, last_height, sha256, content_sha256, key_id)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (first_height) DO UPDATE SET last_height = EXCLUDED.last_height, sha256 = EXCLUDED.sha256,
       content_sha256 = EXCLUDED.content_sha256, key_id = EXCLUDED.key_id, restored_at = now()`,
    [p.firstHeight, p.lastHeight, p.sha256, p.contentSha256, p.keyId],
  );
  await q.query("UPDATE control.archive_restore SET loaded = loaded || $1::jsonb, updated_at = now()", [
    JSON.stringify([p.firstHeight]),
  ]);
}

export async function countRestoredPartitions(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: string }>("SELECT count(*) AS n FROM control.archive_partitions");
  return Number(rows[0].n);
}

export async function setDroppedIndexes(q: Queryable, indexes: RestoreState["droppedIndexes"]): Promise<void> {
  await q.query("UPDATE control.archive_restore SET dropped_indexes = $1, updated_at = now()", [
    JSON.stringify(indexes),
  ]);
}
