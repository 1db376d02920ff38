/**
 * The subgraph engine (DESIGN.md §1–§3). Loads every built-in and
 * deployed subgraph; as BlockHooks, runs their handlers inside each block's transaction, journals
 * pre-images and reverts them on reorgs (rebuilding, like a reindex, a subgraph whose journal no
 * longer covers what a reorg below finality orphaned), keeps per-subgraph progress and hands each
 * block's row changes to listeners (the webhook outbox); manages run-time deploys, reindexes and
 * deletes with backfills from stored canonical blocks.
 *
 * State lives in control.subgraphs and control.subgraph_progress (read at the start of each
 * ingest transaction, so a deploy made by another process is picked up by the ingest leader;
 * progress written before its commit: transaction-view.ts); modules are cached in memory by
 * module hash.
 */
import { type DocumentKind, type JsonDocument, subgraphDocument } from "./documents.js";
import { rmSync } from "node:fs";
import path from "node:path";
import { pgSchemaName, sqlIdent } from "../../generator/naming.js";
import { type BlockHooks, RetryTransactionError } from "../chain/hooks.js";
import type { DecodedBlock } from "../chain/types.js";
import type { Config } from "../config/index.js";
import type { Db, Queryable } from "../db/types.js";
import { badRequest, conflict, notFound, ServiceError } from "../internal/errors.js";
import type { Logger } from "../internal/logger.js";
import type { StatementCache } from "./apply-ops.js";
import { type ActiveSubgraph, applyBlocks } from "./block-apply.js";
import { buildHandlerContexts } from "./context.js";
import { runBackfill } from "./backfill.js";
import {
  countCanonicalAbove,
  lockTip,
  markFailed,
  progressOf,
  readAllProgress,
  readSubgraphRow,
  readSubgraphRows,
  type SubgraphRow,
  upsertDefinition,
} from "./control-store.js";
import { derivationChanged } from "./derivation.js";
import { buildDispatchIndex, type DispatchIndex, type PlannedOp, planOps } from "./dispatch.js";
import {
  builtinSources,
  loadDeployedModule,
  loadStoredSpec,
  type ModuleSource,
  modelDeployedSpec,
  type SpecFormat,
} from "./module-loader.js";
import { pruneUndo, revertBlockRows } from "./revert.js";
import { readTip } from "../chain/tip.js";
import { rebuildReason, subgraphsToRebuild } from "./revert-coverage.js";
import { diffSchemas } from "./schema-diff.js";
import { createTraitResolver } from "./trait-resolver.js";
import { createTableStats } from "./table-stats.js";
import { plannedInserts, plannedLookups } from "./read-ahead.js";
import { createTransactionRows, type TransactionRows } from "./transaction-rows.js";
import { createTransactionView, type SubgraphStatusRow } from "./transaction-view.js";
import type {
  HandlerContext,
  ChangedBlock,
  RowChange,
  RowChangeListener,
  SubgraphInfo,
  SubgraphModule,
  SubgraphProgress,
} from "./types.js";

export type { DocumentKind, JsonDocument } from "./documents.js";
export type { SpecFormat } from "./module-loader.js";

export type { RowChangeListener } from "./types.js";

/** What a deploy did: created (backfill started), unchanged, migrated in place, or rebuilt. */
export interface DeployResult {
  name: string;
  version: string;
  schemaHash: string;
  action: "created" | "unchanged" | "migrated" | "rebuilt";
  progress: SubgraphProgress;
}

export interface SubgraphEngine {
  /** Register with the ingestor (service and `sluice import`). */
  hooks: BlockHooks;
  /**
   * Brings built-ins up to date (migrated in place, or rebuilt from stored blocks when their
   * tables changed incompatibly or their sources or handlers changed), loads deployed specs,
   * resumes interrupted backfills.
   */
  init(): Promise<void>;
  /** Adds a listener; returns its removal. */
  onRowChanges(listener: RowChangeListener): () => void;
  list(): SubgraphInfo[];
  get(name: string): SubgraphInfo | undefined;
  /** The generated descriptor or OpenAPI document of a loaded subgraph (without live values), or null. */
  document(name: string, kind: DocumentKind): JsonDocument | null;
  /** Status and progress of every subgraph. */
  progressAll(): Promise<SubgraphProgress[]>;
  /** Status and progress, or null for an unknown subgraph. */
  progress(name: string): Promise<SubgraphProgress | null>;
  /**
   * Validates, generates, migrates and (when new or rebuilt) backfills a spec. Throws
   * ServiceError: 400 SPEC_INVALID (details.errors), 409 SUBGRAPH_EXISTS (a built-in's name, a
   * name sharing another subgraph's PostgreSQL schema, or a breaking change without `replace`),
   * 409 OPERATION_IN_PROGRESS.
   */
  deploy(specText: string, format: SpecFormat, options?: { replace?: boolean }): Promise<DeployResult>;
  /** Rebuilds from stored blocks in the background; 404 SUBGRAPH_NOT_FOUND, 409 OPERATION_IN_PROGRESS. */
  reindex(name: string): Promise<SubgraphProgress>;
  /** Drops a deployed subgraph's tables and definition; 409 BUILT_IN_SUBGRAPH for built-ins. */
  remove(name: string): Promise<void>;
  /**
   * Loads what another process deployed, changed or deleted (control.subgraphs is the truth).
   * Run on its notification (SUBGRAPHS_CHANNEL) and when the listening connection comes back.
   */
  sync(): Promise<void>;
  /** Resolves when no backfill or reindex runs in this process. */
  idle(): Promise<void>;
  /** Stops background operations after their current batch. */
  close(): Promise<void>;
}

/** NOTIFY channel of subgraph deploys and deletes; the payload is the subgraph's name. */
export const SUBGRAPHS_CHANNEL = "sluice_subgraphs";

const errorMessage = (err: unknown) => (err instanceof Error ? err.message : String(err));

export interface SubgraphEngineDeps {
  db: Db;
  config: Readonly<Config>;
  logger: Logger;
  /** Built-in modules; default: generated/index.ts. */
  builtins?: readonly SubgraphModule[];
  /** Blocks per backfill transaction (default 250). */
  backfillBatchBlocks?: number;
  /**
   * Whether backfills sum the settled blocks of subgraphs made of increments in SQL (default true;
   * false replays them one operation at a time, which gives the same rows).
   */
  sumReplay?: boolean;
  /** Prune the undo journal every N applied blocks (default 64). */
  pruneEveryBlocks?: number;
  /** Hears each live block's per-subgraph apply time and failures (runtime/metrics/subgraphs.ts). */
  observer?: SubgraphApplyObserver;
}

/** What one transaction holds: its rows in memory, the blocks applied, the blocks read ahead for. */
interface TransactionMemory {
  rows: TransactionRows;
  blocks: string[];
  /** Height of the block this transaction applied last (-1: none yet). */
  lastHeight: number;
  /**
   * The finalized height the periodic prune of the undo journal is due at (null: none), run before
   * commit or before a revert reads the journal: run during the blocks, its statement waited
   * behind every chain row insert sent before it.
   */
  pruneDue: number | null;
  ahead: readonly DecodedBlock[];
  /** Whether the cache holds the read-ahead of `ahead` (a reorg's revert empties it). */
  aheadRead: boolean;
  /** Handler contexts of the blocks read ahead for, built once for the read-ahead and the blocks' own step. */
  contexts: WeakMap<DecodedBlock, HandlerContext[]>;
  /** Each read-ahead block's planned operations per subgraph without trait sources (pure, so planned once). */
  plans: WeakMap<DecodedBlock, Map<SubgraphModule, PlannedOp[]>>;
}

/** What the engine reports of each block it applies to the subgraphs. */
export interface SubgraphApplyObserver {
  applied(subgraph: string, seconds: number): void;
  failed(subgraph: string): void;
}

interface Loaded {
  source: ModuleSource;
  index: DispatchIndex;
  deployedAt: string;
}

export function createSubgraphEngine(deps: SubgraphEngineDeps): SubgraphEngine {
  const { db, config, logger } = deps;
  const log = logger.child({ component: "subgraphs" });
  const contracts: Record<string, string> = { ...config.contracts };
  const builtins = new Map(builtinSources(deps.builtins).map((s) => [s.module.name, s]));
  const loaded = new Map<string, Loaded>();
  const listeners = new Set<RowChangeListener>();
  const operations = new Map<string, Promise<void>>();
  const cache: StatementCache = new Map();
  const view = createTransactionView();
  // Rows each ingest transaction holds in memory (transaction-rows.ts), with the blocks it applied.
  const memories = new WeakMap<Queryable, TransactionMemory>();
  const stats = createTableStats();
  // Blocks whose optimistic step failed: their retry uses savepoints (block-apply.ts).
  const isolate = new Set<string>();
  const traits = createTraitResolver();
  const pruneEvery = deps.pruneEveryBlocks ?? 64;
  let blocksSincePrune = 0;
  // Rebuilds a block transaction decided on, started once it commits (hooks.afterCommit).
  const rebuildsOnCommit = new WeakMap<Queryable, { forkPointHeight: number; names: string[] }[]>();
  let closing = false;

  const setLoaded = (source: ModuleSource, deployedAt: Date) =>
    loaded.set(source.module.name, {
      source,
      index: buildDispatchIndex(source.module, contracts),
      deployedAt: deployedAt.toISOString(),
    });

  let unlisten: (() => Promise<void>) | undefined;
  /** Tells the other processes that `name` was deployed, changed or deleted (after the commit). */
  const announce = async (name: string) => {
    try {
      await db.notify(SUBGRAPHS_CHANNEL, name);
    } catch (err) {
      log.warn({ msg: "cannot tell other processes of a subgraph change", subgraph: name, error: errorMessage(err) });
    }
  };

  const active = (name: string): ActiveSubgraph | undefined => {
    const l = loaded.get(name);
    return l && { module: l.source.module, index: l.index };
  };

  /** Makes the in-memory modules match control.subgraphs (rows may come from another process). */
  async function syncModules(q: Queryable, rows: readonly { name: string; module_hash: string }[]): Promise<void> {
    const names = new Set(rows.map((r) => r.name));
    for (const name of loaded.keys()) if (!names.has(name)) loaded.delete(name);
    for (const r of rows) {
      if (loaded.get(r.name)?.source.moduleHash === r.module_hash) continue;
      const row = await readSubgraphRow(q, r.name);
      if (row !== null) await loadRow(q, row);
    }
  }

  async function loadRow(q: Queryable, row: SubgraphRow): Promise<void> {
    try {
      if (row.kind === "builtin") {
        const source = builtins.get(row.name);
        if (source === undefined) throw new Error(`built-in subgraph ${row.name} is not part of this build`);
        setLoaded(source, row.deployedAt);
      } else {
        setLoaded(await loadStoredSpec(row.specText ?? "", row.specFormat ?? "yaml", config.dataDir), row.deployedAt);
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log.error({ msg: "cannot load subgraph", subgraph: row.name, error: message });
      if (row.status !== "failed") await markFailed(q, row.name, `cannot load: ${message}`);
    }
  }

  /** Whether any listener will use the changes of `block` (a listener that cannot say will). */
  async function changesWanted(q: Queryable, block: ChangedBlock): Promise<boolean> {
    for (const listener of listeners)
      if (!listener.wantsChanges || (await listener.wantsChanges(q, block))) return true;
    return false;
  }

  function memoryOf(q: Queryable): TransactionMemory {
    let memory = memories.get(q);
    if (memory === undefined) {
      memory = {
        rows: createTransactionRows(cache, stats),
        blocks: [],
        lastHeight: -1,
        pruneDue: null,
        ahead: [],
        aheadRead: false,
        contexts: new WeakMap(),
        plans: new WeakMap(),
      };
      memories.set(q, memory);
    }
    return memory;
  }

  /**
   * Writes the rows the transaction holds in memory. Refused, the transaction runs again with each
   * of its blocks applied statement by statement in savepoints, which finds the subgraph and block.
   */
  async function writeMemory(q: Queryable): Promise<void> {
    const memory = memories.get(q);
    if (memory === undefined) return;
    try {
      await memory.rows.flush(q);
    } catch (err) {
      for (const hash of memory.blocks) isolate.add(hash);
      throw new RetryTransactionError("rows held in memory were refused: redo the transaction block by block", {
        cause: err,
      });
    }
  }

  /**
   * Drops the undo entries held in memory for blocks at or below the stored finalized height that
   * a later block of this transaction built on (and below `limit`), and prunes the stored journal
   * to the same height, as the next prune would have: written now, they would only be deleted
   * again (pruneUndo also records that the journal no longer covers them). The transaction's last
   * block keeps its entries until a later block is applied, as a block applied alone always has.
   */
  async function dropFinalUndo(q: Queryable, limit: number): Promise<void> {
    const memory = memories.get(q);
    if (!memory?.rows.pending() || memory.lastHeight < 0) return;
    const finalized = (await readTip(q)).finalizedHeight;
    if (finalized === null) return;
    const height = Math.min(finalized, limit, memory.lastHeight - 1);
    if (memory.rows.dropUndoThrough(height) > 0) await pruneUndo(q, height);
  }

  /** Runs the periodic prune of the undo journal if one is due (TransactionMemory.pruneDue). */
  async function runDuePrune(q: Queryable): Promise<void> {
    const memory = memories.get(q);
    if (memory?.pruneDue == null) return;
    const height = memory.pruneDue;
    memory.pruneDue = null;
    await pruneUndo(q, height);
  }

  async function notify(q: Queryable, changes: RowChange[], block: ChangedBlock) {
    if (changes.length === 0) return;
    for (const listener of listeners) await listener(q, changes, block);
  }

  /** Reads what `blocks` will look up (read-ahead.ts), unless a redo applies them statement by statement. */
  async function readAhead(q: Queryable, blocks: readonly DecodedBlock[]): Promise<void> {
    if (isolate.size > 0 || blocks.length === 0) return;
    const rows = await view.rows(q);
    if (rows.length === 0) return;
    await syncModules(q, rows);
    const subs: ActiveSubgraph[] = [];
    for (const r of rows) {
      const sub = r.status === "ready" ? active(r.name) : undefined;
      if (sub) subs.push(sub);
    }
    const { rows: memory, contexts, plans } = memoryOf(q);
    const planned: { module: SubgraphModule; ops: PlannedOp[] }[] = [];
    for (const block of blocks) {
      let blockContexts = contexts.get(block);
      if (blockContexts === undefined) {
        blockContexts = buildHandlerContexts(block, contracts);
        contexts.set(block, blockContexts);
      }
      const blockPlans = new Map<SubgraphModule, PlannedOp[]>();
      for (const { module, index } of subs) {
        let ops: PlannedOp[];
        try {
          ops = planOps(module, index, blockContexts, traits.check);
        } catch {
          continue; // the block's own application reports the handler's failure
        }
        planned.push({ module, ops });
        // A trait verdict may change within the transaction (a deploy in an earlier block): such
        // subgraphs are planned again by the block's own step.
        if (index.traitSources.size === 0) blockPlans.set(module, ops);
      }
      plans.set(block, blockPlans);
    }
    const lookups = plannedLookups(planned);
    const creates = plannedInserts(planned);
    if (lookups.length === 0 && creates.length === 0) return;
    // A key the database cannot take (a value its column refuses) must not fail the transaction:
    // the block's own application then meets it where refusals are handled.
    await q.query("SAVEPOINT sluice_read_ahead");
    try {
      for (const l of lookups) {
        if (l.kind === "keys")
          creates.push({ target: l.target, count: await memory.readAhead(q, l.target, l.key, l.values) });
        else await memory.readAheadMatches(q, l.target, l.key, l.nulls, l.values);
      }
      await memory.reserveAhead(q, creates);
      await q.query("RELEASE SAVEPOINT sluice_read_ahead");
    } catch {
      await q.query("ROLLBACK TO SAVEPOINT sluice_read_ahead");
      await q.query("RELEASE SAVEPOINT sluice_read_ahead");
      memory.forget();
    }
  }

  const hooks: BlockHooks = {
    async readAhead(q, blocks) {
      const memory = memoryOf(q);
      memory.ahead = blocks;
      await readAhead(q, blocks);
      memory.aheadRead = true;
    },

    async applyBlock(q, block) {
      traits.noteBlock(block);
      const rows = await view.rows(q);
      if (rows.length === 0) return;
      await syncModules(q, rows);
      const subs: ActiveSubgraph[] = [];
      for (const r of rows) {
        if (r.status !== "ready" || r.subgraph_height >= block.height) continue;
        const sub = active(r.name);
        if (sub) subs.push(sub);
      }
      if (subs.length === 0) return;
      const finalized = rows[0].finalized_height;
      const journal =
        finalized === null || block.height > finalized
          ? { indexBlockHash: block.indexBlockHash, blockHeight: block.height }
          : null;
      const careful = isolate.has(block.indexBlockHash);
      const memory = memoryOf(q);
      if (!memory.aheadRead && memory.ahead.length > 0) {
        // A reorg emptied the cache: read again for this block and those after it.
        memory.aheadRead = true;
        await readAhead(
          q,
          memory.ahead.filter((b) => b.height >= block.height),
        );
      }
      memory.blocks.push(block.indexBlockHash);
      memory.lastHeight = block.height;
      const result = await applyBlocks(q, subs, [block], {
        journal,
        collect: await changesWanted(q, block),
        cache,
        traits,
        logger: log,
        config: contracts,
        optimistic: !careful,
        memory: memory.rows,
        contextsOf: (b) => memory.contexts.get(b) ?? buildHandlerContexts(b, contracts),
        plannedOf: (sub) => memory.plans.get(block)?.get(sub.module),
      }).catch((err) => {
        // The ingestor runs the transaction again; its blocks then isolate each subgraph (a
        // refusal of rows in memory may come from any of them).
        if (err instanceof RetryTransactionError) for (const hash of memory.blocks) isolate.add(hash);
        throw err;
      });
      if (careful) isolate.delete(block.indexBlockHash);
      for (const [name, seconds] of result.seconds) deps.observer?.applied(name, seconds);
      for (const name of result.failed) deps.observer?.failed(name);
      view.failed(q, result.failed);
      view.advanced(
        q,
        subs.map((s) => s.module.name).filter((n) => !result.failed.includes(n)),
        block.height,
        journal !== null,
      );
      await notify(q, result.changes, { indexBlockHash: block.indexBlockHash, height: block.height });
      if (++blocksSincePrune >= pruneEvery && finalized !== null) {
        blocksSincePrune = 0;
        memory.pruneDue = Math.max(memory.pruneDue ?? finalized, finalized);
      }
    },

    async revertBlock(q, ref, forkPointHeight) {
      await runDuePrune(q);
      // The revert reads the tables and the undo journal: what memory holds goes there first,
      // less the undo entries of final blocks below the fork point (no revert can use them).
      await dropFinalUndo(q, forkPointHeight - 1);
      await writeMemory(q);
      const memory = memories.get(q);
      memory?.rows.forget();
      if (memory) memory.aheadRead = false;
      await view.reload(q); // progress as stored, with what this transaction applied so far
      const rows = await view.rows(q);
      await syncModules(q, rows);
      // Decided at the reorg's first (newest) block; afterwards the rebuilt subgraphs need nothing.
      await startRebuilds(q, rows, forkPointHeight);
      const modules = new Map([...loaded].map(([name, l]) => [name, l.source.module]));
      const block = { indexBlockHash: ref.indexBlockHash, height: ref.height };
      const changes = await revertBlockRows(q, modules, block, await changesWanted(q, block));
      await notify(q, changes, block);
      await view.reload(q); // the revert (and a rebuild) moved progress: later blocks read it again
    },

    async beforeCommit(q) {
      await runDuePrune(q);
      // Blocks that became final within this transaction (an import transaction holds hundreds of
      // blocks; finality follows its tip a few blocks behind): their undo entries are pruned as it
      // commits instead of written now and deleted by a later transaction.
      await dropFinalUndo(q, Number.POSITIVE_INFINITY);
      await writeMemory(q);
      await view.flush(q);
    },

    afterCommit(q) {
      const rebuilds = rebuildsOnCommit.get(q);
      if (rebuilds === undefined) return;
      rebuildsOnCommit.delete(q);
      for (const { forkPointHeight, names } of rebuilds) {
        log.warn({
          msg: "subgraphs rebuilding: a reorg orphaned blocks whose row changes can no longer be reverted",
          subgraphs: names,
          fork_point_height: forkPointHeight,
        });
        for (const name of names) startOperation(name);
      }
    },
  };

  /**
   * Inside a reorg's transaction, before its reverts: each subgraph the undo journal cannot revert
   * (revert-coverage.ts) gets empty tables and the `reindexing` status with the reason, exactly as
   * a reindex does, so the reverts and the new branch's blocks pass it by; the rebuild from the
   * stored canonical blocks starts once the transaction commits.
   */
  async function startRebuilds(
    q: Queryable,
    rows: readonly SubgraphStatusRow[],
    forkPointHeight: number,
  ): Promise<void> {
    const coverage = rows.map((r) => ({
      name: r.name,
      status: r.status,
      subgraphHeight: r.subgraph_height,
      unjournaledHeight: r.unjournaled_height,
      startBlock: loaded.get(r.name)?.source.module.startBlock ?? 0,
    }));
    const names: string[] = [];
    for (const name of subgraphsToRebuild(coverage, forkPointHeight)) {
      const source = loaded.get(name)?.source;
      if (source === undefined) continue; // cannot be loaded: marked failed while syncing modules
      await rebuildTables(q, source);
      await resetDefinition(q, source, "reindexing", rebuildReason(forkPointHeight));
      names.push(name);
    }
    if (names.length === 0) return;
    const pending = rebuildsOnCommit.get(q) ?? [];
    pending.push({ forkPointHeight, names });
    rebuildsOnCommit.set(q, pending);
  }

  function startOperation(name: string): void {
    if (operations.has(name) || closing) return;
    const run = runBackfill(
      {
        db,
        logger: log,
        config: contracts,
        cache,
        traits,
        batchBlocks: deps.backfillBatchBlocks ?? 250,
        sumReplay: deps.sumReplay ?? true,
        isClosing: () => closing,
        subgraph: active,
      },
      name,
    )
      .catch((err) => {
        log.error({
          msg: "subgraph backfill crashed",
          subgraph: name,
          error: err instanceof Error ? err.message : String(err),
        });
      })
      .then(() => {
        operations.delete(name);
      });
    operations.set(name, run);
  }

  const busy = (name: string) =>
    conflict("OPERATION_IN_PROGRESS", `an operation on subgraph ${name} is in progress; wait for it to finish`, {
      name,
    });
  const missing = (name: string) => notFound("SUBGRAPH_NOT_FOUND", `no subgraph named ${name}`, { name });

  /** Drops a subgraph's schema and journal, recreates its tables. */
  async function rebuildTables(q: Queryable, source: ModuleSource): Promise<void> {
    await q.exec(`DROP SCHEMA IF EXISTS ${sqlIdent(source.module.schema)} CASCADE`);
    await q.query("DELETE FROM control.subgraph_undo WHERE subgraph = $1", [source.module.name]);
    await q.exec(source.migrationSql);
  }

  /**
   * Sets up a definition that must be (re)built from stored blocks; ready at once on an empty chain.
   * `reason`: why the engine rebuilds it by itself (none for a requested operation).
   */
  async function resetDefinition(
    q: Queryable,
    source: ModuleSource,
    status: "backfilling" | "reindexing",
    reason: string | null = null,
  ): Promise<boolean> {
    const total = await countCanonicalAbove(q, (source.module.startBlock ?? 0) - 1);
    await upsertDefinition(q, source, {
      status: total > 0 ? status : "ready",
      resetProgress: true,
      blocksTotal: total,
      reason,
    });
    return total > 0;
  }

  const engine: SubgraphEngine = {
    hooks,

    async init() {
      const needsBackfill = await db.transaction(async (q) => {
        await lockTip(q);
        const rows = new Map((await readSubgraphRows(q)).map((r) => [r.name, r]));
        const started: string[] = [];
        for (const source of builtins.values()) {
          const name = source.module.name;
          const row = rows.get(name);
          if (row === undefined) {
            await q.exec(source.migrationSql);
            if (await resetDefinition(q, source, "backfilling")) started.push(name);
            continue;
          }
          if (row.kind !== "builtin") {
            log.error({ msg: "a deployed subgraph has a built-in's name; the built-in is not loaded", subgraph: name });
            continue;
          }
          if (row.moduleHash === source.moduleHash) continue;
          const diff = diffSchemas(source.module.schema, row.tables, source.module.tables);
          const rederive = derivationChanged(row, { version: source.module.version, specText: source.specText });
          if (diff.kind === "breaking" || rederive || row.status === "failed") {
            log.warn({
              msg: "built-in subgraph changed incompatibly: rebuilding",
              subgraph: name,
              reasons: rederive ? [...diff.breaking, "sources or handlers changed"] : diff.breaking,
            });
            await rebuildTables(q, source);
            if (await resetDefinition(q, source, "backfilling")) started.push(name);
          } else {
            for (const sql of diff.statements) await q.exec(sql);
            await q.exec(source.migrationSql);
            await upsertDefinition(q, source, { status: row.status, resetProgress: false });
          }
        }
        return started;
      });
      const rows = await readSubgraphRows(db);
      for (const row of rows) await loadRow(db, row);
      for (const row of rows)
        if (row.status === "backfilling" || row.status === "reindexing") needsBackfill.push(row.name);
      for (const name of new Set(needsBackfill)) startOperation(name);
      log.info({ msg: "subgraphs loaded", subgraphs: [...loaded.keys()] });
      // Deploys and deletes made through other processes (runtime/scale: several API processes).
      const resync = () => {
        engine.sync().catch((err) => {
          log.error({ msg: "cannot load the subgraphs another process changed", error: errorMessage(err) });
        });
      };
      unlisten = await db.listen(SUBGRAPHS_CHANNEL, resync, { onResume: resync });
    },

    onRowChanges(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },

    list() {
      return [...loaded.keys()].sort().flatMap((name) => {
        const info = engine.get(name);
        return info ? [info] : [];
      });
    },

    get(name) {
      const l = loaded.get(name);
      if (!l) return undefined;
      const m = l.source.module;
      return {
        name: m.name,
        version: m.version,
        schemaHash: m.schemaHash,
        kind: l.source.kind,
        module: m,
        deployedAt: l.deployedAt,
      };
    },

    document(name, kind) {
      const l = loaded.get(name);
      return l ? subgraphDocument(l.source, kind) : null;
    },

    progressAll() {
      return readAllProgress(db);
    },

    async progress(name) {
      const row = await readSubgraphRow(db, name);
      return row && progressOf(row);
    },

    async deploy(specText, format, options = {}) {
      const modelled = modelDeployedSpec(specText, format);
      if (!modelled.ok) {
        throw badRequest(
          "SPEC_INVALID",
          `the spec has ${modelled.errors.length} error${modelled.errors.length === 1 ? "" : "s"}`,
          {
            errors: modelled.errors,
          },
        );
      }
      const model = modelled.model;
      const name = model.name;
      if (builtins.has(name)) {
        throw conflict(
          "SUBGRAPH_EXISTS",
          `${name} is a built-in subgraph; change specs/${name}.yaml and rebuild instead`,
          { name },
        );
      }
      if (operations.has(name)) throw busy(name);
      const source = await loadDeployedModule(model, specText, format, config.dataDir);
      const outcome = await db.transaction(async (q) => {
        await lockTip(q);
        const row = await readSubgraphRow(q, name, true);
        if (row?.status === "backfilling" || row?.status === "reindexing") throw busy(name);
        if (row === null) {
          // Names differing only in - and _ share one PostgreSQL schema: the new one would write
          // into (and on delete drop) the other's tables.
          const schema = source.module.schema;
          const owner = (await readSubgraphRows(q)).find((r) => pgSchemaName(r.name) === schema)?.name;
          if (owner !== undefined) {
            throw conflict(
              "SUBGRAPH_EXISTS",
              `subgraph ${name} would share the PostgreSQL schema ${schema} with subgraph ${owner}; choose another name`,
              { name, conflictsWith: owner },
            );
          }
          await q.exec(source.migrationSql);
          return { action: "created" as const, backfill: await resetDefinition(q, source, "backfilling") };
        }
        if (row.moduleHash === source.moduleHash && row.status !== "failed")
          return { action: "unchanged" as const, backfill: false };
        const diff = diffSchemas(source.module.schema, row.tables, source.module.tables);
        if (diff.kind === "breaking" || row.status === "failed") {
          if (diff.kind === "breaking" && options.replace !== true) {
            throw conflict(
              "SUBGRAPH_EXISTS",
              `subgraph ${name} exists and this spec changes its schema incompatibly; deploy with ?replace=true to rebuild it`,
              {
                name,
                breaking: diff.breaking,
              },
            );
          }
          await rebuildTables(q, source);
          return { action: "rebuilt" as const, backfill: await resetDefinition(q, source, "backfilling") };
        }
        for (const sql of diff.statements) await q.exec(sql);
        await q.exec(source.migrationSql);
        await upsertDefinition(q, source, { status: row.status, resetProgress: false });
        return { action: "migrated" as const, backfill: false };
      });
      const row = await readSubgraphRow(db, name);
      if (row === null) throw new Error(`subgraph ${name} vanished after deploy`);
      setLoaded(source, row.deployedAt);
      if (outcome.action !== "unchanged") await announce(name);
      log.info({ msg: "subgraph deployed", subgraph: name, version: model.version, action: outcome.action });
      if (outcome.backfill) startOperation(name);
      return {
        name,
        version: model.version,
        schemaHash: model.schemaHash,
        action: outcome.action,
        progress: progressOf(row),
      };
    },

    async reindex(name) {
      if (operations.has(name)) throw busy(name);
      await db.transaction(async (q) => {
        await lockTip(q);
        const row = await readSubgraphRow(q, name, true);
        if (row === null) throw missing(name);
        if (row.status === "backfilling" || row.status === "reindexing") throw busy(name);
        if (!loaded.has(name)) await loadRow(q, row);
        const l = loaded.get(name);
        if (l === undefined) throw new ServiceError(500, "INTERNAL", `subgraph ${name} cannot be loaded`);
        await rebuildTables(q, l.source);
        await resetDefinition(q, l.source, "reindexing");
      });
      log.info({ msg: "subgraph reindex started", subgraph: name });
      startOperation(name);
      const progress = await engine.progress(name);
      if (progress === null) throw missing(name);
      return progress;
    },

    async remove(name) {
      if (builtins.has(name)) {
        throw conflict("BUILT_IN_SUBGRAPH", `${name} is a built-in subgraph and cannot be deleted`, { name });
      }
      if (operations.has(name)) throw busy(name);
      await db.transaction(async (q) => {
        await lockTip(q);
        const row = await readSubgraphRow(q, name, true);
        if (row === null) throw missing(name);
        if (row.status === "backfilling" || row.status === "reindexing") throw busy(name);
        const schema = loaded.get(name)?.source.module.schema ?? `sg_${name.replace(/-/g, "_")}`;
        await q.exec(`DROP SCHEMA IF EXISTS ${sqlIdent(schema)} CASCADE`);
        await q.query("DELETE FROM control.subgraph_undo WHERE subgraph = $1", [name]);
        await q.query("DELETE FROM control.subgraphs WHERE name = $1", [name]);
      });
      loaded.delete(name);
      await announce(name);
      rmSync(path.resolve(config.dataDir, "subgraphs", name), { recursive: true, force: true });
      log.info({ msg: "subgraph deleted", subgraph: name });
    },

    async sync() {
      if (closing) return;
      const { rows } = await db.query<{ name: string; module_hash: string }>(
        "SELECT name, module_hash FROM control.subgraphs ORDER BY name",
      );
      await syncModules(db, rows);
    },

    async idle() {
      while (operations.size > 0) await Promise.all([...operations.values()]);
    },

    async close() {
      closing = true;
      await unlisten?.();
      await engine.idle();
    },
  };
  return engine;
}
