/**
 * Reorg revert of subgraph rows (DESIGN.md §2 "Fork choice and reorgs"): restores, from the
 * pre-image journal, every row an orphaned block changed to its state before the block, per
 * table in two statements (delete what the block created; put back what it updated or deleted),
 * emits the compensating RowChanges (`reverted: true`) and drops the block's journal entries.
 * Data-driven: whatever subgraph journaled the block is reverted, whatever its status.
 */
import type { Queryable } from "../db/types.js";
import { renderRow, splitResult } from "./op-runs.js";
import { qualified, revertDeleteSql, revertRestoreSql, type TableTarget } from "./table-sql.js";
import type { RowChange, SubgraphModule } from "./types.js";

export interface RevertedBlock {
  indexBlockHash: string;
  height: number;
}

/** Reverts one block's subgraph rows; returns the compensating changes (empty unless `collect`). */
export async function revertBlockRows(
  q: Queryable,
  modules: ReadonlyMap<string, SubgraphModule>,
  block: RevertedBlock,
  collect: boolean,
): Promise<RowChange[]> {
  const { rows: groups } = await q.query<{ subgraph: string; table_name: string }>(
    `SELECT subgraph, table_name FROM control.subgraph_undo WHERE index_block_hash = $1
      GROUP BY subgraph, table_name ORDER BY subgraph, table_name`,
    [block.indexBlockHash],
  );
  const changes: RowChange[] = [];
  for (const g of groups) {
    const module = modules.get(g.subgraph);
    const meta = module?.tables[g.table_name];
    if (module === undefined || meta === undefined) {
      throw new Error(
        `cannot revert block ${block.indexBlockHash}: subgraph ${g.subgraph} table ${g.table_name} is not loaded`,
      );
    }
    const target: TableTarget = { subgraph: module.name, schema: module.schema, meta };
    const params = [block.indexBlockHash, g.subgraph, g.table_name];
    const removed = await q.query<Record<string, unknown>>(revertDeleteSql(target), params);
    const restored = await q.query<Record<string, unknown>>(
      revertRestoreSql(target, Object.keys(meta.columns)),
      params,
    );
    if (!collect) continue;
    const base = {
      subgraph: g.subgraph,
      table: g.table_name,
      eventIndex: -1,
      blockHeight: block.height,
      indexBlockHash: block.indexBlockHash,
      reverted: true,
    };
    for (const raw of removed.rows) {
      const row = renderRow(meta, raw);
      changes.push({ ...base, op: "deleted", row, txId: String(row._tx_id) });
    }
    const { old, now } = splitResult(meta, restored.rows);
    const before = new Map(old.map((r) => [r._id, r]));
    for (const row of now) {
      const previous = before.get(row._id);
      if (previous === undefined) changes.push({ ...base, op: "created", row, txId: String(row._tx_id) });
      else changes.push({ ...base, op: "updated", row, previous, txId: String(previous._tx_id) });
    }
  }
  await q.query("DELETE FROM control.subgraph_undo WHERE index_block_hash = $1", [block.indexBlockHash]);
  await q.query("UPDATE control.subgraph_progress SET subgraph_height = $1 - 1 WHERE subgraph_height >= $1", [
    block.height,
  ]);
  return changes;
}

/**
 * Drops every journal entry of blocks at or below `finalizedHeight` (final blocks reorg only below
 * finality), and records in every subgraph's progress that the journal no longer covers them
 * (revert-coverage.ts), in the same statement.
 */
export async function pruneUndo(q: Queryable, finalizedHeight: number): Promise<void> {
  await q.query(
    `WITH pruned AS (DELETE FROM control.subgraph_undo WHERE block_height <= $1)
     UPDATE control.subgraph_progress SET unjournaled_height = $1 WHERE unjournaled_height < $1`,
    [finalizedHeight],
  );
}

/** `"schema"."table"` of a module's table (for tests and tools). */
export function tableName(module: SubgraphModule, table: string): string {
  return qualified({ subgraph: module.name, schema: module.schema, meta: module.tables[table] });
}
