/**
 * Restores from an archive into an instance's database: `bootstrap` (an empty chain → every
 * partition), `backfill` (partitions of a height range the instance lacks or holds differently)
 * and `repair` (partitions whose local rows no longer match the manifest). In phases:
 *
 * 1. plan, cost and confirm (partitions, bytes, and on an archive that sells bundles "N bundles,
 *    $X, balance $Y": a short balance stops here, before anything is downloaded or written);
 * 2. download every bundle and check its sha256 against the signed manifest: a bad bundle stops
 *    the restore here, before any row is written, naming the partition and the reason;
 * 3. load each partition in ONE transaction (delete what it replaces, COPY its sections, record
 *    it): a kill leaves each partition wholly in or wholly out, and a re-run resumes after the
 *    last one committed. Bootstrap drops the chain tables' secondary indexes first (kept in the
 *    restore's state row) and builds them once after the load;
 * 4. re-tip the chain (tip, counters, finality) and rebuild the subgraphs from the stored blocks.
 *
 * A service sharing the database (PostgreSQL) may keep running: while the restore's state row
 * exists, its observer requests stay journaled and are applied after the restore (runtime/chain/
 * ingest.ts). Bootstrap refuses a chain that holds blocks (README "Restore history from an archive").
 */
import { ADDRESS_ACTIVITY_COLUMNS } from "./address-activity-rows.js";
import { RESTORED_EVENT_COLUMNS } from "./compact-event-rows.js";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { progressBar } from "../cli/progress.js";
import type { Config } from "../config/index.js";
import type { Db } from "../db/types.js";
import type { Logger } from "../internal/logger.js";
import { assembleIngest } from "../ingest-wiring.js";
import { rebuildAddressActivity } from "../chain/address-activity.js";
import { lockTipShared, retipFromStoredChain } from "../chain/tip.js";
import { markAllForBackfill } from "../subgraphs/control-store.js";
import { BundleFormatError, blockHashesOf } from "./bundle.js";
import {
  CHAIN_TABLES,
  type ChainTable,
  chainIsEmpty,
  buildIndexes,
  deleteBlockRows,
  deleteBurnBlockRows,
  dropIndexes,
  importSql,
  readSecondaryIndexes,
} from "./chain-tables.js";
import {
  ArchiveRefusal,
  type BundleCharging,
  bundleDownloadBegan,
  downloadBundle,
  fetchPricing,
  type OpenedArchive,
  sha256File,
} from "./client.js";
import type { CostEstimate } from "./credits/money.js";
import { bundlePriceCents } from "./credits/presign-charge.js";
import { checkRestoreCost } from "./credits/restore-cost.js";
import type { PartitionEntry } from "./manifest.js";
import {
  type RestoreOperation,
  countRestoredPartitions,
  finishRestoreState,
  readRestoreState,
  recordRestoredPartition,
  setDroppedIndexes,
  setRestorePhase,
  startRestoreState,
} from "./restore-store.js";
import type { PartitionPiece } from "./partition-pieces.js";
import { type PartitionPreparer, startPartitionPreparer } from "./partition-preparer.js";
import { checkPartition } from "./verify.js";

export interface RestorePlan {
  operation: RestoreOperation;
  partitions: PartitionEntry[];
  bytes: number;
  events: number;
  priceUnits: number;
  /** What the bundles still to fetch cost against the credit balance; null on a free archive. */
  cost: CostEstimate | null;
  resumed: boolean;
}

export interface RestoreProgress {
  /** One redrawable status line. */
  update(line: string): void;
  /** A line that stays. */
  done(line: string): void;
}

export interface RestoreOptions {
  db: Db;
  config: Readonly<Config>;
  logger: Logger;
  archive: OpenedArchive;
  operation: RestoreOperation;
  /** backfill: the height range. */
  from?: number;
  to?: number;
  downloadsDir: string;
  /** The instance's credit key (loadCreditKey); null or absent: none (enough for a free archive). */
  creditKey?: string | null;
  /** Asked with the plan before anything is downloaded; false cancels. */
  confirm(plan: RestorePlan): Promise<boolean>;
  progress?: RestoreProgress;
  /** Tests: the download URL of a partition instead of a presigned one. */
  urlFor?(entry: PartitionEntry): string | undefined;
}

export interface RestoreSummary {
  plan: RestorePlan;
  cancelled: boolean;
  downloadedBytes: number;
  downloadSeconds: number;
  rows: number;
  events: number;
  loadSeconds: number;
  indexSeconds: number;
  subgraphSeconds: number;
  tipHeight: number | null;
  finalizedHeight: number | null;
}

export class RestoreRefusal extends Error {}

const fmtBytes = (n: number) =>
  n >= 1 << 30
    ? `${(n / (1 << 30)).toFixed(2)} GB`
    : n >= 1 << 20
      ? `${(n / (1 << 20)).toFixed(1)} MB`
      : `${(n / 1024).toFixed(1)} kB`;
const fmtRate = (n: number) =>
  n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(0);
const fmtEta = (s: number) =>
  Number.isFinite(s) ? (s >= 60 ? `${Math.floor(s / 60)}m${Math.round(s % 60)}s` : `${Math.round(s)}s`) : "?";

export function describePlan(plan: RestorePlan): string {
  return [
    `${plan.operation}${plan.resumed ? " (resuming)" : ""}: ${plan.partitions.length} partition${plan.partitions.length === 1 ? "" : "s"}` +
      (plan.partitions.length
        ? ` (heights ${plan.partitions[0].first_height}–${plan.partitions[plan.partitions.length - 1].last_height})`
        : ""),
    `  download ${fmtBytes(plan.bytes)}, ${plan.events} events`,
    plan.cost ? `  cost ${plan.cost.line}` : "  cost: free (this archive charges nothing)",
  ].join("\n");
}

export async function restoreFromArchive(o: RestoreOptions): Promise<RestoreSummary> {
  const { db, archive } = o;
  const manifest = archive.manifest;
  if (manifest.network !== o.config.network)
    throw new RestoreRefusal(
      `the archive holds ${manifest.network}; this instance is on ${o.config.network} (NETWORK)`,
    );
  const byFirst = new Map(manifest.partitions.map((p) => [p.first_height, p]));

  // 1. Plan: an unfinished restore resumes; otherwise choose the partitions.
  let state = await readRestoreState(db);
  let partitions: PartitionEntry[];
  if (state !== null) {
    if (state.operation !== o.operation)
      throw new RestoreRefusal(
        `an archive ${state.operation} is unfinished; run \`sluice archive ${state.operation}\` again to finish it first`,
      );
    partitions = state.partitions.map((h) => {
      const p = byFirst.get(h);
      if (!p)
        throw new RestoreRefusal(
          `the unfinished ${state?.operation} needs partition ${h}, which the archive no longer lists`,
        );
      return p;
    });
  } else {
    partitions = await choosePartitions(o);
  }
  const loaded = new Set(state?.loaded ?? []);
  const plan: RestorePlan = {
    operation: o.operation,
    partitions,
    bytes: partitions.filter((p) => !loaded.has(p.first_height)).reduce((s, p) => s + p.bytes, 0),
    events: partitions.reduce((s, p) => s + p.rows.events, 0),
    priceUnits: partitions.filter((p) => !loaded.has(p.first_height)).reduce((s, p) => s + p.price_units, 0),
    cost: null,
    resumed: state !== null,
  };
  const summary: RestoreSummary = {
    plan,
    cancelled: false,
    downloadedBytes: 0,
    downloadSeconds: 0,
    rows: 0,
    events: 0,
    loadSeconds: 0,
    indexSeconds: 0,
    subgraphSeconds: 0,
    tipHeight: null,
    finalizedHeight: null,
  };
  if (partitions.length === 0) return summary;
  // The cost before the prompt: a short balance throws CreditsShortError (with the buy command)
  // before anything is downloaded or written. The archive enforces the cap again on each charge;
  // bundles of a resumed restore already charged are not charged again (same idempotency keys), so
  // those whose download began are left out of the estimate.
  const pricing = await fetchPricing(archive.baseUrl);
  const creditKey = o.creditKey ?? null;
  if (pricing.charged) {
    const prices = partitions
      .filter((p) => !loaded.has(p.first_height) && !bundleDownloadBegan(o.downloadsDir, p))
      .map((p) => bundlePriceCents(p.price_units, pricing.unitPriceCents));
    plan.cost = await checkRestoreCost(archive.baseUrl, creditKey, prices, o.operation);
  }
  if (!(await o.confirm(plan))) return { ...summary, cancelled: true };

  // The restore is recorded before anything else: from here on, a service sharing the database
  // leaves observer requests journaled until the restore ends (runtime/chain/ingest.ts).
  const operation = o.operation;
  if (state === null) {
    await db.transaction(async (q) => {
      await lockTipShared(q, true);
      if (operation === "bootstrap" && !(await chainIsEmpty(q)))
        throw new RestoreRefusal("bootstrap needs an instance whose chain is empty; use backfill or repair");
      await startRestoreState(q, {
        restoreId: randomUUID(),
        operation,
        archiveUrl: archive.baseUrl,
        manifestSequence: manifest.sequence,
        partitions: partitions.map((p) => p.first_height),
        phase: "downloading",
        droppedIndexes: [],
      });
    });
    state = await readRestoreState(db);
  }
  if (state === null) throw new Error("restore state vanished");
  const charging: BundleCharging = { creditKey, restoreId: state.restoreId, kind: operation };

  const files = new Map<number, string>();
  const pending = partitions.filter((p) => !loaded.has(p.first_height));
  let t0 = performance.now();
  let got = 0;
  // The partitions' node work runs on one worker thread (partition-preparer.ts), started now so
  // that its start overlaps the downloads.
  const preparer = state.phase === "downloading" || state.phase === "loading" ? startPartitionPreparer() : null;
  try {
    // 2. Download and check every bundle before any row is written.
    try {
      for (const [i, p] of pending.entries()) {
        const file = await downloadBundle(
          archive.baseUrl,
          p,
          o.downloadsDir,
          (n) => {
            got += n;
            const s = (performance.now() - t0) / 1000;
            const rate = got / Math.max(s, 1e-3);
            o.progress?.update(
              `download ${progressBar(got / Math.max(plan.bytes, 1))} ${i + 1}/${pending.length} | ${fmtBytes(got)} of ${fmtBytes(plan.bytes)} (${fmtBytes(rate)}/s) | ETA ${fmtEta((plan.bytes - got) / rate)}`,
            );
          },
          o.urlFor?.(p),
          charging,
        );
        files.set(p.first_height, file);
      }
    } catch (err) {
      // Nothing was written. On a free archive the restore did not happen (and ingestion need not
      // wait for it). On one that charges, the state (and its restore id) stays, so that running
      // again reuses the idempotency keys and no bundle already paid is charged twice.
      if (state.phase === "downloading" && !pricing.charged) await finishRestoreState(db);
      throw err;
    }
    summary.downloadedBytes = got;
    summary.downloadSeconds = (performance.now() - t0) / 1000;
    o.progress?.done(
      `downloaded ${pending.length} bundles, ${fmtBytes(got)} in ${summary.downloadSeconds.toFixed(1)}s; digests match the signed manifest`,
    );

    // 3. Load, one transaction per partition.
    if (state.phase === "downloading") {
      await db.transaction(async (q) => {
        const dropped = operation === "bootstrap" ? await readSecondaryIndexes(q) : [];
        await setDroppedIndexes(q, dropped);
        await dropIndexes(
          q,
          dropped.map((d) => d.name),
        );
        await setRestorePhase(q, "loading");
      });
      state = await readRestoreState(db);
    }
    if (state === null) throw new Error("restore state vanished");
    t0 = performance.now();
    const totalRows = pending.reduce((s, p) => s + rowsOf(p), 0);
    if (state.phase === "loading") {
      // On PostgreSQL two partitions load side by side (each in its own transaction), so that the
      // server's work on one overlaps the waits of the other.
      const concurrency = db.kind === "postgres" ? 2 : 1;
      let next = 0;
      let done = 0;
      let failure: unknown = null;
      // Rows COPYed so far, committed or not: the bar moves within a partition too.
      let loadingRows = 0;
      const report = () => {
        const s = (performance.now() - t0) / 1000;
        const rate = loadingRows / Math.max(s, 1e-3);
        o.progress?.update(
          `load ${progressBar(loadingRows / Math.max(totalRows, 1))} ${done}/${pending.length} | rows ${fmtRate(loadingRows)} (${fmtRate(rate)} rows/s) | events ${fmtRate(summary.events)} | ETA ${fmtEta((totalRows - loadingRows) / rate)}`,
        );
      };
      // Partitions are prepared in the order the loaders ask for them; a failed loader stops the
      // preparer, so that the other does not wait on it.
      const prepare = preparer;
      if (prepare === null) throw new Error("the restore worker was not started");
      const worker = async () => {
        while (failure === null && next < pending.length) {
          const p = pending[next++];
          try {
            const file = files.get(p.first_height) as string;
            await checkDownloaded(p, file);
            await loadPartition(db, prepare, p, file, manifest.key_id, o.operation === "bootstrap", (n) => {
              loadingRows += n;
              report();
            });
            summary.rows += rowsOf(p);
          } catch (err) {
            failure ??= err;
            await prepare.close(err as Error);
            return;
          }
          summary.events += p.rows.events;
          done++;
          report();
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      if (failure !== null) throw failure;
      summary.loadSeconds = (performance.now() - t0) / 1000;
      o.progress?.done(
        `loaded ${pending.length} partitions: ${summary.rows} rows in ${summary.loadSeconds.toFixed(1)}s (${fmtRate(summary.rows / Math.max(summary.loadSeconds, 1e-3))} rows/s)`,
      );
      await setRestorePhase(db, "indexes");
      state.phase = "indexes";
    }
  } finally {
    await preparer?.close();
  }

  // 4. Indexes, tip, subgraphs.
  if (state.phase === "indexes") {
    t0 = performance.now();
    o.progress?.update(`building ${state.droppedIndexes.length} chain indexes…`);
    const dropped = state.droppedIndexes;
    const bootstrap = o.operation === "bootstrap";
    // A bootstrap writes each partition's derived address rows with it. Partitions loaded before
    // this run (by a run that was stopped, possibly of an earlier build that derived them only
    // here) get theirs rebuilt from the loaded rows, beside the index builds on PostgreSQL.
    const rederive = async () => {
      if (!bootstrap) return;
      for (const [from, to] of contiguousRanges(partitions.filter((p) => loaded.has(p.first_height))))
        await db.transaction(async (q) => {
          if (db.kind === "postgres") await q.query("SET LOCAL work_mem = '256MB'");
          await rebuildAddressActivity(q, from, to);
        });
    };
    if (db.kind === "postgres") await Promise.all([buildIndexes(db, dropped), rederive()]);
    else {
      await buildIndexes(db, dropped);
      await rederive();
    }
    await db.transaction(async (q) => {
      await retipFromStoredChain(q, o.config.finalityBurnConfirmations);
      if (bootstrap) await markAllForBackfill(q);
      await setRestorePhase(q, "subgraphs");
    });
    summary.indexSeconds = (performance.now() - t0) / 1000;
    o.progress?.done(`chain indexes built and statistics gathered in ${summary.indexSeconds.toFixed(1)}s`);
    state.phase = "subgraphs";
  }
  t0 = performance.now();
  o.progress?.update("rebuilding subgraphs from the restored blocks…");
  await rebuildSubgraphs(o, o.operation !== "bootstrap");
  summary.subgraphSeconds = (performance.now() - t0) / 1000;
  o.progress?.done(`subgraphs rebuilt in ${summary.subgraphSeconds.toFixed(1)}s`);
  await finishRestoreState(db);
  for (const f of files.values()) fs.rmSync(f, { force: true });
  const { rows } = await db.query<{ block_height: number | null; finalized_height: number | null }>(
    "SELECT block_height, finalized_height FROM control.chain_tip",
  );
  summary.tipHeight = rows[0]?.block_height ?? null;
  summary.finalizedHeight = rows[0]?.finalized_height ?? null;
  return summary;
}

const rowsOf = (p: PartitionEntry) => p.rows.blocks + p.rows.burn_blocks + p.rows.transactions + p.rows.events;

async function choosePartitions(o: RestoreOptions): Promise<PartitionEntry[]> {
  const all = o.archive.manifest.partitions;
  if (o.operation === "bootstrap") {
    // Run again after it finished: nothing to do (newer partitions are a backfill's).
    if (!(await chainIsEmpty(o.db)) && (await countRestoredPartitions(o.db)) > 0) return [];
    if (!(await chainIsEmpty(o.db)))
      throw new RestoreRefusal(
        "bootstrap needs an instance whose chain is empty (it holds blocks); use `sluice archive backfill` or `repair`",
      );
    return all;
  }
  if (o.operation === "backfill") {
    const from = o.from ?? 0;
    const to = o.to ?? Number.MAX_SAFE_INTEGER;
    const chosen: PartitionEntry[] = [];
    for (const p of all.filter((p) => p.last_height >= from && p.first_height <= to)) {
      if ((await checkPartition(o.db, p)).status !== "ok") chosen.push(p);
    }
    return chosen;
  }
  const chosen: PartitionEntry[] = [];
  for (const p of all) if ((await checkPartition(o.db, p)).status === "differs") chosen.push(p);
  return chosen;
}

/** The height ranges the partitions cover, adjacent partitions merged (one rebuild per run of them). */
function contiguousRanges(partitions: readonly PartitionEntry[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const p of [...partitions].sort((a, b) => a.first_height - b.first_height)) {
    const last = ranges.at(-1);
    if (last && p.first_height === last[1] + 1) last[1] = p.last_height;
    else ranges.push([p.first_height, p.last_height]);
  }
  return ranges;
}

/** Whether a downloaded bundle is still the one the signed manifest names (it sat on disk, maybe across a restart). */
async function checkDownloaded(p: PartitionEntry, file: string): Promise<void> {
  if ((await sha256File(file)) !== p.sha256) {
    fs.rmSync(file, { force: true });
    throw new ArchiveRefusal("the downloaded bundle changed on disk; run again to download it anew", p);
  }
}

/**
 * One partition in one transaction, streamed: the preparer's pieces (file → gunzip → sections,
 * prepared on a worker thread: partition-pieces.ts) → COPY, so memory does not grow with the
 * partition. Delete what it replaces (the burn range before its burn blocks, the blocks the bundle
 * carries — its blocks section, one row per height, comes first — before those), COPY each
 * section, record it. The file's digest was checked before the transaction; the content digest,
 * the row counts and the file digest once more are checked before the commit, so a bundle that is
 * not the one the manifest names rolls back whole.
 */
async function loadPartition(
  db: Db,
  preparer: PartitionPreparer,
  p: PartitionEntry,
  file: string,
  keyId: string,
  bootstrap: boolean,
  onRows: (rows: number) => void,
): Promise<number> {
  const range = {
    firstHeight: p.first_height,
    lastHeight: p.last_height,
    burnAfter: p.burn_after_height,
    burnTo: p.burn_to_height,
  };
  return db.transaction(async (q) => {
    const copyFromStream = q.copyFromStream?.bind(q);
    if (!copyFromStream) throw new Error("this database driver has no COPY path");
    if (db.kind === "postgres") await q.query("SET LOCAL synchronous_commit TO off");
    // Ingestion locks the tip row first in every block transaction: a share lock on it keeps a service
    // that was started anyway from interleaving blocks with this partition, and during a
    // bootstrap a tip means it already ingested some.
    const tip = await lockTipShared(q);
    if (bootstrap && tip !== null)
      throw new RestoreRefusal(
        "blocks were ingested while the bootstrap ran: stop the service, then run the bootstrap again",
      );
    let rows = 0;
    let digests: Extract<PartitionPiece, { kind: "end" }> | null = null;
    try {
      // A bootstrap's address rows are derived from the sections on the way (a backfill or repair
      // rebuilds them with SQL once its rows are in, through the indexes).
      const pieces = preparer.pieces({ file, bootstrap })[Symbol.asyncIterator]();
      let current: PartitionPiece | undefined;
      // The piece the loader is at (a function: the section streams below move it on).
      const at = () => current;
      const next = async () => {
        current = (await pieces.next()).value as PartitionPiece | undefined;
      };
      await next();
      const heights = at();
      if (heights?.kind !== "partition") throw new Error("the restore worker sent no partition heights");
      if (heights.firstHeight !== p.first_height || heights.lastHeight !== p.last_height)
        throw new ArchiveRefusal("the bundle holds other heights than the manifest says", p);
      await next();
      for (let header = at(); header?.kind === "section"; header = at()) {
        const table = chainTable(header.table);
        // The section's COPY text: the rows pieces up to the next header.
        const sectionRows = async function* () {
          for (;;) {
            await next();
            const piece = at();
            if (piece?.kind !== "rows") return;
            yield piece.chunk;
          }
        };
        // A bootstrap loads into a chain that was empty when it began, and a partition is committed
        // whole or not at all: there is nothing to replace (and, with the indexes dropped, looking
        // would scan every row loaded so far).
        if (table.name === "chain.burn_blocks" && !bootstrap) await deleteBurnBlockRows(q, range);
        let source: AsyncIterable<Uint8Array> | Uint8Array[] = sectionRows();
        if (table.name === "chain.blocks") {
          const chunks: Uint8Array[] = [];
          for await (const c of source) chunks.push(c);
          const blocks = Buffer.concat(chunks);
          if (!bootstrap) await deleteBlockRows(q, range, blockHashesOf(blocks));
          source = [blocks];
        }
        if (header.declared === 0) {
          for await (const _ of source); // to the next header
          continue;
        }
        await copyFromStream(
          importSql(table, table.name === "chain.events" ? RESTORED_EVENT_COLUMNS : table.columns),
          source,
        );
        rows += header.declared;
        onRows(header.declared);
      }
      const derived = at();
      if (derived?.kind === "activity") {
        await copyFromStream(`COPY chain.address_activity (${ADDRESS_ACTIVITY_COLUMNS.join(", ")}) FROM STDIN`, [
          derived.chunk,
        ]);
        await next();
      }
      const end = at();
      if (end?.kind !== "end") throw new Error("the restore worker ended a partition early");
      digests = end;
    } catch (err) {
      if (err instanceof BundleFormatError) throw new ArchiveRefusal(`the bundle is malformed: ${err.message}`, p);
      if ((err as { code?: string }).code?.startsWith("Z_"))
        throw new ArchiveRefusal(`the bundle is malformed: not a gzip stream (${(err as Error).message})`, p);
      throw err;
    }
    if (digests.fileSha256 !== p.sha256)
      throw new ArchiveRefusal("the downloaded bundle changed on disk; run again to download it anew", p);
    if (digests.contentSha256 !== p.content_sha256)
      throw new ArchiveRefusal("the bundle's content digest is not the one the signed manifest names", p);
    // Derived from the chain rows just loaded (a bootstrap's were derived on the way in).
    if (!bootstrap) await rebuildAddressActivity(q, p.first_height, p.last_height);
    await recordRestoredPartition(q, {
      firstHeight: p.first_height,
      lastHeight: p.last_height,
      sha256: p.sha256,
      contentSha256: p.content_sha256,
      keyId,
    });
    return rows;
  });
}

function chainTable(name: ChainTable["name"]): ChainTable {
  const table = CHAIN_TABLES.find((t) => t.name === name);
  if (!table) throw new Error(`no chain table ${name}`);
  return table;
}

/**
 * Subgraphs rebuilt from the stored blocks by the engine itself. After a bootstrap they were
 * marked for backfill (their tables are empty) and the engine resumes that when it starts; after a
 * backfill or repair, rows already derived from the old chain rows are rebuilt by a reindex.
 */
async function rebuildSubgraphs(o: RestoreOptions, reindex: boolean): Promise<void> {
  const { subgraphs } = await assembleIngest({ db: o.db, config: o.config, logger: o.logger });
  try {
    await subgraphs.idle();
    if (reindex) {
      for (const info of subgraphs.list()) {
        const p = await subgraphs.progress(info.name);
        if (p?.status === "ready") await subgraphs.reindex(info.name);
      }
      await subgraphs.idle();
    }
    const failed = (await subgraphs.progressAll()).filter((p) => p.status !== "ready");
    if (failed.length)
      throw new RestoreRefusal(
        `subgraphs not ready after the restore: ${failed.map((p) => `${p.name} (${p.status}${p.error ? `: ${p.error}` : ""})`).join(", ")}`,
      );
  } finally {
    await subgraphs.close();
  }
}
