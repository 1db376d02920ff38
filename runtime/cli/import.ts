/**
 * `sluice import <file.tsv|file.tsv.gz>`: replays an event-replay TSV through the same path as
 * the observer, one transaction per request, with progress and a summary. Re-running is a no-op:
 * each request is keyed by a hash of its content.
 */
import { createHash } from "node:crypto";
import type { IngestOutcome, Ingestor } from "../chain/ingest.js";
import { type Progress, formatDuration, formatRate } from "./progress.js";
import { readReplayRows } from "./replay-tsv.js";

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
  return { rows: 0, blocks: 0, extended: 0, side: 0, duplicate: 0, reorgs: 0, burnBlocks: 0, events: 0, malformed: 0, skipped: 0, otherRequests: 0, seconds: 0 };
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

export async function importReplayFile(file: string, ingestor: Ingestor, progress?: Progress): Promise<ImportSummary> {
  const summary = emptySummary();
  const started = performance.now();
  let fraction = 0;
  let inFlight: Promise<IngestOutcome> | null = null;
  for await (const row of readReplayRows(file, (consumed, total) => {
    fraction = total ? consumed / total : 1;
  })) {
    // Decode this request while the previous one's transaction is on the database (overlap CPU
    // and I/O); transactions themselves stay strictly one after another, in file order.
    const decoded = ingestor.decode(row.path, row.body);
    const key = requestKey(row.path, row.body);
    if (inFlight) countOutcome(summary, await inFlight);
    inFlight = ingestor.importRequest(row.path, row.body, key, decoded);
    if (progress) {
      const elapsed = (performance.now() - started) / 1000;
      const eta = fraction > 0 ? elapsed / fraction - elapsed : Number.NaN;
      progress.update(
        `blocks ${summary.blocks} | events ${summary.events} (${formatRate(summary.events / Math.max(elapsed, 1e-3))}/s) | ${(fraction * 100).toFixed(0)}% | ETA ${formatDuration(eta)}`,
      );
    }
  }
  if (inFlight) countOutcome(summary, await inFlight);
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

export function describeSummary(file: string, s: ImportSummary): string {
  const rate = s.seconds > 0 ? formatRate(s.events / s.seconds) : "0";
  return [
    `imported ${file} in ${s.seconds.toFixed(1)}s`,
    `  requests ${s.rows}: ${s.blocks} blocks (${s.extended} extended, ${s.side} side, ${s.reorgs} reorgs, ${s.duplicate} duplicates), ${s.burnBlocks} burn blocks, ${s.otherRequests} other`,
    `  events ${s.events} (${rate}/s)`,
    `  already imported ${s.skipped}, malformed ${s.malformed}${s.malformed ? " (see /status and the journal)" : ""}`,
    `  peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
  ].join("\n");
}
