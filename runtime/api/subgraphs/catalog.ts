/**
 * Which subgraphs and tables the read routes serve, and how far each is indexed (SPEC.md
 * "Subgraph routes"; DESIGN.md §4 404 codes). Modules come from the subgraph engine
 * (`ApiDeps.subgraphs`: built-in and deployed subgraphs); without one the routes answer 503.
 * Unknown names are 404 SUBGRAPH_NOT_FOUND / TABLE_NOT_FOUND with the closest valid name. (The
 * engine's list is in memory; its progress reads, like the stamp read, are the engine's store.)
 *
 * `tip` (every list response): `block_height` = the canonical chain tip (control.chain_tip),
 * `subgraph_height` = the last block the subgraph processed (control.subgraph_progress; the chain tip
 * when nothing records it), `blocks_behind` = the difference, never negative. Values are
 * cached per process (per chain hub) for at most TIP_CACHE_MS and dropped on every chain-hub
 * signal, so a list request costs no extra query in steady state; a response read in the few
 * milliseconds between a block's commit and its notification may show the previous tip. While the
 * hub is not live (its listening connection lost) they are read on every request.
 */
import { schemaTag } from "../../db/prepared-statements.js";
import type { Queryable } from "../../db/types.js";
import { notFound, ServiceError } from "../../internal/errors.js";
import { readTip as readChainTip } from "../../chain/tip.js";
import { readStampRow } from "../../subgraphs/control-store.js";
import type { SubgraphModule, SubgraphProgress } from "../../subgraphs/types.js";
import { didYouMean } from "../http/query-params.js";
import type { ChainHub } from "../events/chain-hub.js";
import { tableSql } from "./query/sql.js";
import type { TableTarget } from "./query/types.js";
import type { SubgraphsContext } from "./context.js";

export interface TipJson {
  block_height: number;
  subgraph_height: number;
  blocks_behind: number;
}

/** Progress as the metadata routes show it (snake_case like `tip`). */
export interface ProgressJson {
  status: string;
  subgraph_height: number;
  blocks_done: number;
  blocks_total: number;
  error: string | null;
  /** Why the engine started the current or last rebuild by itself; null for requested operations. */
  reason: string | null;
}

export const TIP_CACHE_MS = 1000;

/** Every subgraph the instance serves, sorted by name. */
export async function listModules(ctx: SubgraphsContext): Promise<SubgraphModule[]> {
  if (!ctx.subgraphs) throw new ServiceError(503, "UNAVAILABLE", "the subgraph engine is not running");
  const modules = ctx.subgraphs.list().map((info) => info.module);
  return [...modules].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The module named `name`, or 404 SUBGRAPH_NOT_FOUND. */
export async function resolveSubgraph(ctx: SubgraphsContext, name: string): Promise<SubgraphModule> {
  const modules = await listModules(ctx);
  const found = modules.find((m) => m.name === name);
  if (found) return found;
  const suggestion = didYouMean(
    name,
    modules.map((m) => m.name),
  );
  throw notFound(
    "SUBGRAPH_NOT_FOUND",
    `no subgraph ${JSON.stringify(name.slice(0, 200))}${suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : ""}`,
    { subgraph: name.slice(0, 200), suggestion: suggestion ?? null, subgraphs: modules.map((m) => m.name) },
  );
}

/** The table `table` of `module`, or 404 TABLE_NOT_FOUND. */
export function resolveTable(module: SubgraphModule, table: string): TableTarget {
  if (Object.hasOwn(module.tables, table))
    return { subgraph: module.name, schema: module.schema, meta: module.tables[table], schemaHash: module.schemaHash };
  const names = Object.keys(module.tables);
  const suggestion = didYouMean(table, names);
  throw notFound(
    "TABLE_NOT_FOUND",
    `subgraph ${JSON.stringify(module.name)} has no table ${JSON.stringify(table.slice(0, 200))}` +
      `${suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : ""}; tables: ${names.join(", ")}`,
    { subgraph: module.name, table: table.slice(0, 200), suggestion: suggestion ?? null, tables: names },
  );
}

/** Subgraph, then table, from the route's `:name` and `:table`. */
export async function resolveTarget(ctx: SubgraphsContext, name: string, table: string): Promise<TableTarget> {
  return resolveTable(await resolveSubgraph(ctx, name), table);
}

/**
 * Runs a read against a subgraph table; a table that does not exist yet (the subgraph is
 * still being created) is a 503 SUBGRAPH_NOT_READY rather than an internal error. `prepare`
 * (list pages and single rows: index walks of a few rows, where planning is much of the cost)
 * lets the driver keep the statement prepared; counts and aggregates stay planned per call, since
 * a generic plan may pick a worse index for a scan over many rows.
 */
export async function queryTable<T>(
  db: Queryable,
  target: TableTarget,
  sql: string,
  params: unknown[],
  { prepare = false }: { prepare?: boolean } = {},
): Promise<T[]> {
  const text = prepare && target.schemaHash !== undefined ? schemaTag(target.schemaHash, "read") + sql : sql;
  try {
    return (await db.query<T>(text, params)).rows;
  } catch (err) {
    if ((err as { code?: unknown }).code === "42P01") {
      throw new ServiceError(
        503,
        "SUBGRAPH_NOT_READY",
        `subgraph ${JSON.stringify(target.subgraph)} has no tables yet; retry shortly`,
        {
          subgraph: target.subgraph,
        },
        { cause: err },
      );
    }
    throw err;
  }
}

/** What a cached list page of a subgraph is valid under (subgraphs/page-cache.ts), and its tip. */
export interface SubgraphStamp {
  stamp: string;
  tip: TipJson;
  /** The chain tip's index_block_hash (part of the stamp). */
  tipHash: string | null;
}

/** One single-row read: the subgraph's stamp with the exact tip, or null when nothing records the subgraph. */
export async function readSubgraphStamp(db: Queryable, subgraph: string): Promise<SubgraphStamp | null> {
  const r = await readStampRow(db, subgraph);
  if (r === null) return null;
  const chainHeight = r.block_height === null ? null : Number(r.block_height);
  return {
    stamp: [r.index_block_hash, r.block_height, r.reorg_count, r.schema_hash, r.updated_at, r.subgraph_height].join(
      "|",
    ),
    tip: buildTip(chainHeight, Number(r.subgraph_height)),
    tipHash: r.index_block_hash === null ? null : String(r.index_block_hash),
  };
}

interface TipState {
  at: number;
  chainHeight: number | null;
  subgraphs: Map<string, { height: number | null; progress: ProgressJson | null }>;
}

/** Per-process cache, one per chain hub (one per service), dropped on every hub signal. */
const tipCaches = new WeakMap<ChainHub, { state: TipState | null }>();

function cacheFor(hub: ChainHub): { state: TipState | null } {
  let cache = tipCaches.get(hub);
  if (!cache) {
    const c: { state: TipState | null } = { state: null };
    hub.subscribe((signal) => {
      if (signal.kind !== "ping") c.state = null;
    });
    tipCaches.set(hub, c);
    cache = c;
  }
  return cache;
}

async function readTipState(ctx: SubgraphsContext): Promise<TipState> {
  const [tip, progress] = await Promise.all([
    readChainTip(ctx.db),
    ctx.subgraphs ? ctx.subgraphs.progressAll().catch(() => []) : [],
  ]);
  const subgraphs = new Map<string, { height: number | null; progress: ProgressJson | null }>();
  for (const p of progress) subgraphs.set(p.name, { height: p.subgraphHeight, progress: progressJson(p) });
  return { at: Date.now(), chainHeight: tip.blockHeight, subgraphs };
}

/** Progress as the metadata routes show it. Pure. */
function progressJson(progress: SubgraphProgress): ProgressJson {
  return {
    status: progress.status,
    subgraph_height: progress.subgraphHeight,
    blocks_done: progress.blocksDone,
    blocks_total: progress.blocksTotal,
    error: progress.error,
    reason: progress.reason,
  };
}

async function tipState(ctx: SubgraphsContext): Promise<TipState> {
  // No notifications to invalidate a cache with (no hub, or its listening connection is down).
  if (!ctx.chainHub?.live) return readTipState(ctx);
  const cache = cacheFor(ctx.chainHub);
  if (cache.state && Date.now() - cache.state.at < TIP_CACHE_MS) return cache.state;
  const state = await readTipState(ctx);
  cache.state = state;
  return state;
}

/**
 * Pure: the `tip` object. An empty chain is height 0; a subgraph with no recorded height is
 * taken to be at the chain tip; -1 (the engine's "no block processed yet") is shown as is.
 */
export function buildTip(chainHeight: number | null, subgraphHeight: number | null): TipJson {
  const block = chainHeight ?? 0;
  const sub = subgraphHeight ?? block;
  return {
    block_height: block,
    subgraph_height: sub,
    blocks_behind: chainHeight === null ? 0 : Math.max(0, block - sub),
  };
}

/** The `tip` of one subgraph (from the cached control tables: no query in steady state). */
export async function readTip(ctx: SubgraphsContext, subgraph: string): Promise<TipJson> {
  const state = await tipState(ctx);
  return buildTip(state.chainHeight, state.subgraphs.get(subgraph)?.height ?? null);
}

/** Indexing progress of one subgraph, or null when nothing records it. */
export async function readProgress(ctx: SubgraphsContext, subgraph: string): Promise<ProgressJson | null> {
  const progress = ctx.subgraphs ? await ctx.subgraphs.progress(subgraph) : null;
  if (progress) return progressJson(progress);
  return (await tipState(ctx)).subgraphs.get(subgraph)?.progress ?? null;
}

/** Above this many rows (planner estimate) the metadata routes report the estimate, not count(*). */
export const EXACT_COUNT_LIMIT = 1_000_000;

/**
 * Rows in a table for the metadata routes and descriptors: exact `count(*)` up to
 * EXACT_COUNT_LIMIT rows, PostgreSQL's planner estimate (pg_class.reltuples, refreshed by
 * ANALYZE/autovacuum) above it, so a descriptor never scans a huge table. 0 when the table
 * does not exist yet.
 */
export async function readRowCount(db: Queryable, target: TableTarget): Promise<number> {
  const { rows } = await db.query<{ estimate: string | number | null }>(
    `SELECT c.reltuples::bigint AS estimate FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')`,
    [target.schema, target.meta.name],
  );
  if (rows.length === 0) return 0;
  const estimate = Number(rows[0].estimate ?? -1);
  if (estimate >= EXACT_COUNT_LIMIT) return estimate;
  const counted = await queryTable<{ count: string | number }>(
    db,
    target,
    `SELECT count(*) AS count FROM ${tableSql(target)}`,
    [],
  );
  return Number(counted[0]?.count ?? 0);
}
