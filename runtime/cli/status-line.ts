/**
 * The terminal status line: tip, blocks/s, events indexed, reorgs
 * and finalized height, refreshed every few seconds so a person can see the service is alive.
 */
import type { IngestStatus } from "../chain/status.js";

/** Pure: one line from two successive status readings `seconds` apart. */
export function formatStatusLine(prev: IngestStatus | null, cur: IngestStatus, seconds: number): string {
  const blocksPerSecond = prev && seconds > 0 ? Math.max(0, cur.counts.blocks - prev.counts.blocks) / seconds : 0;
  const eventsPerSecond =
    prev && seconds > 0 ? Math.max(0, cur.counts.canonical_events - prev.counts.canonical_events) / seconds : 0;
  const parts = [
    `tip ${cur.tip.block_height ?? "-"}`,
    `${blocksPerSecond.toFixed(1)} blocks/s`,
    `events ${cur.counts.canonical_events.toLocaleString("en-US")} (${eventsPerSecond.toFixed(0)}/s)`,
    `reorgs ${cur.counts.reorgs}`,
    `finalized ${cur.tip.finalized_height ?? "-"}`,
  ];
  if (cur.counts.malformed_payloads) parts.push(`malformed ${cur.counts.malformed_payloads}`);
  if (cur.lag.last_error) parts.push(`retrying: ${cur.lag.last_error.slice(0, 60)}`);
  return parts.join(" | ");
}

/** Redraws the line on a terminal every `intervalMs`; returns a stop function. Silent off a TTY. */
export function startStatusLine(
  read: () => Promise<IngestStatus>,
  stream: NodeJS.WriteStream = process.stderr,
  intervalMs = 2_000,
): () => void {
  if (!stream.isTTY) return () => {};
  let prev: IngestStatus | null = null;
  let prevAt = Date.now();
  const timer = setInterval(async () => {
    try {
      const cur = await read();
      const now = Date.now();
      stream.write(`\r\x1b[2K${formatStatusLine(prev, cur, (now - prevAt) / 1000)}`);
      prev = cur;
      prevAt = now;
    } catch {
      // a reading during shutdown; the next tick or stop() settles it
    }
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    stream.write("\n");
  };
}
