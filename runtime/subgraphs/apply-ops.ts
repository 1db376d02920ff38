/**
 * Writes a subgraph's planned row operations: per table, in chain
 * order, one statement per run (op-runs.ts), journaling pre-images for blocks that can still
 * reorg, and — when asked — turning the results into RowChanges. Given the transaction's rows
 * (transaction-rows.ts), upsert, increment, insert and update runs are folded in memory instead and written once
 * at the transaction's end; a statement on the same table writes them first.
 */
import { schemaTag } from "../db/prepared-statements.js";
import type { Queryable } from "../db/types.js";
import { buildRuns, type DraftChange, type Run, runChanges, runParams, type SeqOp, splitResult } from "./op-runs.js";
import {
  deleteSql,
  insertSql,
  type JournalTarget,
  type StatementCache,
  type TableTarget,
  type TaggedTarget,
  updateSql,
  upsertSql,
} from "./table-sql.js";
import type { TransactionRows } from "./transaction-rows.js";
import type { SubgraphModule } from "./types.js";

export type { JournalTarget, StatementCache } from "./table-sql.js";

function statement(cache: StatementCache, target: TaggedTarget, run: Run, journal: boolean, collect: boolean): string {
  const signature = runSignature(run);
  const key = `${target.schemaHash}|${target.schema}.${target.meta.name}|${signature}|${journal ? "j" : ""}${collect ? "c" : ""}`;
  let sql = cache.get(key);
  if (sql === undefined) {
    // Tagged with the schema version so the driver may keep it prepared (db/prepared-statements.ts).
    sql = schemaTag(target.schemaHash) + buildSql(target, run, journal, collect);
    cache.set(key, sql);
  }
  return sql;
}

function runSignature(run: Run): string {
  switch (run.kind) {
    case "insert":
      return `insert|${run.columns.join(",")}`;
    case "upsert":
      return `upsert|${run.key.join(",")}|${run.columns.join(",")}`;
    case "increment":
      return `increment|${run.key.join(",")}|${run.adds.join(",")}|${run.columns.join(",")}`;
    case "update":
      return `update|${run.keyColumns.join(",")}|${run.nulls.join(",")}|${run.setColumns.join(",")}`;
    case "delete":
      return `delete|${run.keyColumns.join(",")}|${run.nulls.join(",")}`;
  }
}

function buildSql(target: TableTarget, run: Run, journal: boolean, collect: boolean): string {
  switch (run.kind) {
    case "insert":
      return insertSql(target, run.columns, journal, collect);
    case "upsert":
      return upsertSql(target, run.key, run.columns, [], journal, collect);
    case "increment":
      return upsertSql(target, run.key, run.columns, run.adds, journal, collect);
    case "update":
      return updateSql(target, run.keyColumns, run.nulls, run.setColumns, journal);
    case "delete":
      return deleteSql(target, run.keyColumns, run.nulls, journal);
  }
}

/** Applies one table's operations; returns their changes when `collect`. */
export async function applyTableOps(
  q: Queryable,
  target: TaggedTarget,
  ops: readonly SeqOp[],
  journal: JournalTarget | null,
  collect: boolean,
  cache: StatementCache,
  memory?: TransactionRows,
): Promise<DraftChange[]> {
  const out: DraftChange[] = [];
  for (const run of buildRuns(target.meta, ops)) {
    if (memory !== undefined && run.kind !== "delete") {
      out.push(...(await memory.apply(q, target, run, journal, collect)));
      continue;
    }
    // The statement must see the rows folded so far; a delete changes rows the cache holds, which
    // it then reads again.
    await memory?.flushTable(q, target);
    if (run.kind === "update" || run.kind === "delete") memory?.forgetTable(target);
    const sql = statement(cache, target, run, journal !== null, collect);
    const head = journal ? [journal.indexBlockHash, journal.blockHeight, target.subgraph, target.meta.name] : [];
    const { rows } = await q.query<Record<string, unknown>>(sql, [...head, ...runParams(target.meta, run)]);
    if (run.kind === "insert") memory?.inserted(target, run.ops.length);
    if (!collect) continue;
    const { old, now } = splitResult(target.meta, rows);
    out.push(...runChanges(target.subgraph, target.meta, run, old, now));
  }
  return out;
}

/** Applies a subgraph's operations table by table (tables are independent; order within a table is kept). */
export async function applySubgraphOps(
  q: Queryable,
  module: SubgraphModule,
  ops: readonly SeqOp[],
  journal: JournalTarget | null,
  collect: boolean,
  cache: StatementCache,
  memory?: TransactionRows,
): Promise<DraftChange[]> {
  const byTable = new Map<string, SeqOp[]>();
  for (const op of ops) {
    const list = byTable.get(op.op.table);
    if (list) list.push(op);
    else byTable.set(op.op.table, [op]);
  }
  const out: DraftChange[] = [];
  for (const [table, tableOps] of byTable) {
    const target = {
      subgraph: module.name,
      schema: module.schema,
      meta: module.tables[table],
      schemaHash: module.schemaHash,
    };
    out.push(...(await applyTableOps(q, target, tableOps, journal, collect, cache, memory)));
  }
  return out;
}
