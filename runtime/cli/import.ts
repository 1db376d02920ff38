/**
 * `sluice import <file.tsv|file.tsv.gz>`: replays an event-replay TSV through the same path as
 * the observer, several requests per transaction (BatchLimits), with progress and a summary. Re-running is a no-op:
 * each request is keyed by a hash of its content.
 */
import { createHash } from "node:crypto";
import type { IngestOutcome } from "../chain/hooks.js";
import type { ImportItem, Ingestor } from "../chain/ingest.js";
import { type Progress, formatDuration, formatRate } from "./progress.js";
import { readReplayRows } from "./replay-tsv.js";
import { type BatchDecoder, inlineDecoder } from "./worker-decoder.js";

export interface ImportSummary {
  rows: number;
  blocks: number;
  extended: number;
  side: number;
  duplicate: number;
  reorgs: number;
  burnBlocks: number;
  events: number;
  malformed: number;
  skipped: number;
  otherRequests: number;
  seconds: number;
}

export function emptySummary(): ImportSummary {
  return {
    rows: 0,
    blocks: 0,
    extended: 0,
    side: 0,
    duplicate: 0,
    reorgs: 0,
    burnBlocks: 0,
    events: 0,
    malformed: 0,
    skipped: 0,
    otherRequests: 0,
    seconds: 0,
  };
}

/** Pure: folds one outcome into the summary. */
export function countOutcome(s: ImportSummary, o: IngestOutcome): void {
  s.rows++;
  switch (o.kind) {
    case "block":
      s.blocks++;
      if (o.result === "extended") s.extended++;
      else if (o.result === "side") s.side++;
      else if (o.result === "duplicate") s.duplicate++;
      else s.reorgs++;
      if (o.result !== "duplicate") s.events += o.events;
      break;
    case "burn_block":
      s.burnBlocks++;
      break;
    case "malformed":
      s.malformed++;
      break;
    case "skipped":
      s.skipped++;
      break;
    default:
      s.otherRequests++;
  }
}

export function requestKey(path: string, body: string): string {
  return `import:${createHash("sha256").update(path).update("\t").update(body).digest("hex")}`;
}

/**
 * How many requests share a database transaction: as many as fit in `maxBytes` of request bodies
 * (bytes follow events closely), at most `maxRequests`. Large transactions pay off now that each
 * subgraph row is written once per transaction: fewer commits, fewer reads of the same rows, fewer
 * statements. Measured on PostgreSQL with the built-in subgraphs (1,500 blocks × 30 events):
 * 16 requests ~4,000 events/s, 256 (about 8 MB) ~5,200, beyond that no further gain.
 * Each block always lies wholly inside one transaction; the observer keeps one block per transaction.
 */
export interface BatchLimits {
  maxRequests: number;
  maxBytes: number;
}

export const DEFAULT_BATCH_SIZE = 1024;
export const DEFAULT_BATCH_MB = 8;
export const DEFAULT_BATCH_LIMITS: BatchLimits = {
  maxRequests: DEFAULT_BATCH_SIZE,
  maxBytes: DEFAULT_BATCH_MB * 1024 * 1024,
};

/** Pure: whether a batch holding `requests` requests of `bytes` body bytes is full. */
export function batchIsFull(requests: number, bytes: number, limits: BatchLimits): boolean {
  return requests >= limits.maxRequests || bytes >= limits.maxBytes;
}

/**
 * Pure: the limits of the `index`th batch (0-based). The first batches are smaller (1/16 of the
 * limits, doubling up to them): nothing reaches the database before the first batch is decoded, and
 * a full first batch kept it idle for a whole batch's decoding (about 1.5 s of 8 MB); later batches
 * are decoded while earlier ones are in the database.
 */
export function batchLimitsAt(index: number, limits: BatchLimits): BatchLimits {
  const shift = Math.max(0, RAMP_BATCHES - index);
  return {
    maxRequests: Math.max(1, limits.maxRequests >> shift),
    maxBytes: Math.max(1, Math.floor(limits.maxBytes / 2 ** shift)),
  };
}

/** Batches before the limits apply in full (the first is 2^RAMP_BATCHES times smaller). */
const RAMP_BATCHES = 4;

/** Batches decoded or in the database at once: bounds how far reading runs ahead. */
const BATCHES_AHEAD = 3;

export async function importReplayFile(
  file: string,
  ingestor: Ingestor,
  progress?: Progress,
  options: { batch?: Partial<BatchLimits>; decoder?: BatchDecoder } = {},
): Promise<ImportSummary> {
  const limits: BatchLimits = { ...DEFAULT_BATCH_LIMITS, ...options.batch };
  const summary = emptySummary();
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const decoder = options.decoder ?? inlineDecoder(ingestor.decode);
  let fraction = 0;
  let batch: { path: string; body: string }[] = [];
  let batchBytes = 0;
  let batches = 0;
  let current = batchLimitsAt(0, limits);
  // Each batch is decoded as soon as it is read (on the decoder's thread) while earlier batches
  // are in the database; transactions stay strictly one after another, in file order.
  const inFlight: Promise<void>[] = [];
  let last: Promise<void> = Promise.resolve();
  const flush = async () => {
    if (!batch.length) return;
    const rows = batch;
    // How far into the file this batch ends: the share done once it is committed.
    const batchEnd = fraction;
    batch = [];
    batchBytes = 0;
    current = batchLimitsAt(++batches, limits);
    const decoded = decoder.decode(rows);
    const previous = last;
    last = (async () => {
      const results = await decoded;
      await previous;
      const items: ImportItem[] = rows.map((row, i) => ({
        path: row.path,
        body: row.body,
        sourceKey: requestKey(row.path, row.body),
        decoded: results[i],
      }));
      for (const o of await ingestor.importBatch(items)) countOutcome(summary, o);
      // Drawn from the committed summary, so it never runs ahead of (or behind) what is stored.
      progress?.update(describeProgress(summary, batchEnd, elapsed()));
    })();
    last.catch(() => {}); // observed through inFlight below; never an unhandled rejection
    inFlight.push(last);
    while (inFlight.length >= BATCHES_AHEAD) await inFlight.shift();
  };
  for await (const row of readReplayRows(file, (consumed, total) => {
    fraction = total ? consumed / total : 1;
  })) {
    batch.push({ path: row.path, body: row.body });
    batchBytes += row.body.length;
    if (batchIsFull(batch.length, batchBytes, current)) await flush();
  }
  await flush();
  while (inFlight.length) await inFlight.shift();
  summary.seconds = elapsed();
  progress?.done(describeProgress(summary, "done", summary.seconds));
  return summary;
}

/**
 * Pure: the progress line, from the same counts the summary reports; `fraction` is the share of
 * the file committed, or "done" once the import has finished.
 */
export function describeProgress(s: ImportSummary, fraction: number | "done", seconds: number): string {
  const head = `blocks ${s.blocks} | events ${s.events} (${formatRate(s.events / Math.max(seconds, 1e-3))}/s)`;
  if (fraction === "done") return `${head} | done in ${seconds.toFixed(1)}s`;
  const eta = fraction > 0 ? seconds / fraction - seconds : Number.NaN;
  return `${head} | ${(fraction * 100).toFixed(0)}% | ETA ${formatDuration(eta)}`;
}

/** `startupSeconds`: from process start until the import began (database opened and migrated). */
export function describeSummary(file: string, s: ImportSummary, startupSeconds?: number): string {
  const rate = s.seconds > 0 ? formatRate(s.events / s.seconds) : "0";
  return [
    `imported ${file} in ${s.seconds.toFixed(1)}s`,
    ...(startupSeconds === undefined
      ? []
      : [`  start-up ${startupSeconds.toFixed(1)}s before that (database opened and migrated)`]),
    `  requests ${s.rows}: ${s.blocks} blocks (${s.extended} extended, ${s.side} side, ${s.reorgs} reorgs, ${s.duplicate} duplicates), ${s.burnBlocks} burn blocks, ${s.otherRequests} other`,
    `  events ${s.events} (${rate}/s)`,
    `  already imported ${s.skipped}, malformed ${s.malformed}${s.malformed ? " (see /status and the journal)" : ""}`,
    `  peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
  ].join("\n");
}
