/**
 * control.subgraphs rows (migration 0003): what the engine persists about each subgraph — spec,
 * schema fingerprint, status and progress. Small typed queries; every caller passes its Queryable
 * so the reads and writes join the caller's transaction.
 */
import type { Queryable } from "../db/types.js";
import type { ModuleSource, SpecFormat } from "./module-loader.js";
import type { SubgraphProgress, SubgraphStatus, TableMeta } from "./types.js";

export interface SubgraphRow {
  name: string;
  kind: "builtin" | "deployed";
  version: string;
  schemaHash: string;
  moduleHash: string;
  specText: string | null;
  specFormat: SpecFormat | null;
  tables: Record<string, TableMeta>;
  status: SubgraphStatus;
  subgraphHeight: number;
  blocksDone: number;
  blocksTotal: number;
  operationStartedAt: Date | null;
  operationFinishedAt: Date | null;
  error: string | null;
  /** Why the engine started the current or last rebuild by itself; null for requested operations. */
  reason: string | null;
  deployedAt: Date;
}

/** control.subgraphs joined with its progress row (migration 0005). */
const SELECT_ROWS = `SELECT s.name, s.kind, s.version, s.schema_hash, s.module_hash, s.spec_text, s.spec_format, s.tables,
  s.status, p.subgraph_height, s.blocks_done, s.blocks_total, s.operation_started_at, s.operation_finished_at, s.error,
  s.operation_reason, s.deployed_at FROM control.subgraphs s JOIN control.subgraph_progress p USING (name)`;

function toRow(r: Record<string, unknown>): SubgraphRow {
  const date = (v: unknown) => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(String(v)));
  return {
    name: String(r.name),
    kind: r.kind as SubgraphRow["kind"],
    version: String(r.version),
    schemaHash: String(r.schema_hash),
    moduleHash: String(r.module_hash),
    specText: (r.spec_text as string | null) ?? null,
    specFormat: (r.spec_format as SpecFormat | null) ?? null,
    tables: r.tables as Record<string, TableMeta>,
    status: r.status as SubgraphStatus,
    subgraphHeight: Number(r.subgraph_height),
    blocksDone: Number(r.blocks_done),
    blocksTotal: Number(r.blocks_total),
    operationStartedAt: date(r.operation_started_at),
    operationFinishedAt: date(r.operation_finished_at),
    error: (r.error as string | null) ?? null,
    reason: (r.operation_reason as string | null) ?? null,
    deployedAt: date(r.deployed_at) ?? new Date(0),
  };
}

export async function readSubgraphRows(q: Queryable): Promise<SubgraphRow[]> {
  const { rows } = await q.query(`${SELECT_ROWS} ORDER BY name`);
  return rows.map(toRow);
}

export async function readSubgraphRow(q: Queryable, name: string, forUpdate = false): Promise<SubgraphRow | null> {
  const { rows } = await q.query(`${SELECT_ROWS} WHERE name = $1${forUpdate ? " FOR UPDATE OF s" : ""}`, [name]);
  return rows.length ? toRow(rows[0]) : null;
}

/** Status and progress of every subgraph, without the spec and table columns (read per list page). */
export async function readAllProgress(q: Queryable): Promise<SubgraphProgress[]> {
  const { rows } = await q.query(
    `SELECT s.name, s.status, p.subgraph_height, s.blocks_done, s.blocks_total, s.operation_started_at,
            s.operation_finished_at, s.error, s.operation_reason
       FROM control.subgraphs s JOIN control.subgraph_progress p USING (name) ORDER BY s.name`,
  );
  return rows.map((r) => progressOf(toRow(r)));
}

/**
 * What a cached list page of a subgraph is valid under, in one single-row read: the chain tip, its
 * reorg count, the subgraph's schema, last change and height. Null when nothing records the subgraph.
 */
export async function readStampRow(q: Queryable, name: string): Promise<Record<string, string | number | null> | null> {
  const { rows } = await q.query<Record<string, string | number | null>>(
    `SELECT t.index_block_hash, t.block_height, t.reorg_count, s.schema_hash, s.updated_at::text AS updated_at,
            p.subgraph_height
       FROM control.chain_tip t, control.subgraphs s JOIN control.subgraph_progress p USING (name) WHERE s.name = $1`,
    [name],
  );
  return rows[0] ?? null;
}

export function progressOf(row: SubgraphRow): SubgraphProgress {
  return {
    name: row.name,
    status: row.status,
    subgraphHeight: row.subgraphHeight,
    blocksDone: row.blocksDone,
    blocksTotal: row.blocksTotal,
    operationStartedAt: row.operationStartedAt?.toISOString() ?? null,
    operationFinishedAt: row.operationFinishedAt?.toISOString() ?? null,
    error: row.error,
    reason: row.reason,
  };
}

/**
 * Inserts or replaces the definition columns of a subgraph row (status/progress as given). Resetting
 * the progress starts an operation: counters, error and the undo journal's coverage start afresh,
 * with `reason` (why the engine started it by itself; null when it was requested).
 */
export async function upsertDefinition(
  q: Queryable,
  source: ModuleSource,
  state: { status: SubgraphStatus; resetProgress: boolean; blocksTotal?: number; reason?: string | null },
): Promise<void> {
  const m = source.module;
  await q.query(
    `WITH def AS (INSERT INTO control.subgraphs (name, kind, version, schema_hash, module_hash, spec_text, spec_format, tables, status,
        blocks_done, blocks_total, operation_started_at, error, operation_reason)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $11, CASE WHEN $9 IN ('backfilling', 'reindexing') THEN now() END, NULL, $13)
     ON CONFLICT (name) DO UPDATE SET kind = EXCLUDED.kind, version = EXCLUDED.version, schema_hash = EXCLUDED.schema_hash,
        module_hash = EXCLUDED.module_hash, spec_text = EXCLUDED.spec_text, spec_format = EXCLUDED.spec_format,
        tables = EXCLUDED.tables, status = EXCLUDED.status, updated_at = now(),
        blocks_done = CASE WHEN $12 THEN 0 ELSE control.subgraphs.blocks_done END,
        blocks_total = CASE WHEN $12 THEN EXCLUDED.blocks_total ELSE control.subgraphs.blocks_total END,
        operation_started_at = CASE WHEN $12 THEN EXCLUDED.operation_started_at ELSE control.subgraphs.operation_started_at END,
        operation_finished_at = CASE WHEN $12 THEN NULL ELSE control.subgraphs.operation_finished_at END,
        error = CASE WHEN $12 THEN NULL ELSE control.subgraphs.error END,
        operation_reason = CASE WHEN $12 THEN $13 ELSE control.subgraphs.operation_reason END,
        deployed_at = CASE WHEN $12 THEN now() ELSE control.subgraphs.deployed_at END
     RETURNING name)
     INSERT INTO control.subgraph_progress (name, subgraph_height) SELECT name, $10 FROM def
     ON CONFLICT (name) DO UPDATE SET
        subgraph_height = CASE WHEN $12 THEN EXCLUDED.subgraph_height ELSE control.subgraph_progress.subgraph_height END,
        unjournaled_height = CASE WHEN $12 THEN -1 ELSE control.subgraph_progress.unjournaled_height END`,
    [
      m.name,
      source.kind,
      m.version,
      m.schemaHash,
      source.moduleHash,
      source.specText,
      source.specFormat,
      JSON.stringify(m.tables),
      state.status,
      (m.startBlock ?? 0) - 1,
      state.blocksTotal ?? 0,
      state.resetProgress,
      state.reason ?? null,
    ],
  );
}

/** Marks a subgraph failed with its error (it stops indexing until reindexed or redeployed). */
export async function markFailed(q: Queryable, name: string, error: string): Promise<void> {
  await q.query(
    "UPDATE control.subgraphs SET status = 'failed', error = $2, operation_finished_at = now(), updated_at = now() WHERE name = $1",
    [name, error.slice(0, 4000)],
  );
}

/** Canonical stored blocks above a height (the size of a backfill). */
export async function countCanonicalAbove(q: Queryable, height: number): Promise<number> {
  const { rows } = await q.query<{ n: string }>(
    "SELECT count(*) AS n FROM chain.blocks WHERE canonical AND block_height > $1",
    [height],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Locks the chain tip row (serialises with block ingestion) and returns heights. */
export async function lockTip(q: Queryable): Promise<{ height: number; finalizedHeight: number | null }> {
  const { rows } = await q.query<{ block_height: number | null; finalized_height: number | null }>(
    "SELECT block_height, finalized_height FROM control.chain_tip FOR UPDATE",
  );
  const r = rows[0];
  return { height: r?.block_height ?? -1, finalizedHeight: r?.finalized_height ?? null };
}

/**
 * Every subgraph is to be built again from the stored blocks, by the engine's own backfill when
 * it next starts: after history was bulk-loaded beneath subgraphs whose tables are still empty
 * (an archive bootstrap into an empty chain).
 */
export async function markAllForBackfill(q: Queryable): Promise<void> {
  await q.query(
    `UPDATE control.subgraphs SET status = 'backfilling', blocks_done = 0, blocks_total = 0, error = NULL,
        operation_reason = NULL, operation_started_at = now(), operation_finished_at = NULL, updated_at = now()`,
  );
  await q.query("UPDATE control.subgraph_progress SET subgraph_height = -1, unjournaled_height = -1");
}
