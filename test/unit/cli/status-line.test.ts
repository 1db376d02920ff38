/** formatStatusLine: the terminal status line of `make run`. */
import { describe, expect, it } from "vitest";
import type { IngestStatus } from "../../../runtime/chain/status.js";
import { formatStatusLine } from "../../../runtime/cli/status-line.js";

const status = (
  blocks: number,
  events: number,
  extra: Partial<IngestStatus["counts"]> = {},
  lastError: string | null = null,
): IngestStatus => ({
  tip: { block_height: blocks, index_block_hash: "0xabc", burn_block_height: 100, finalized_height: blocks - 3 },
  lag: { seconds_since_last_block: 1, burn_blocks: 0, journal_backlog: 0, last_error: lastError },
  counts: {
    blocks,
    canonical_transactions: 0,
    canonical_events: events,
    reorgs: 2,
    reorgs_below_finality: 0,
    malformed_payloads: 0,
    journal_pending: 0,
    ...extra,
  },
});

describe("formatStatusLine", () => {
  it("shows tip, rates over the interval, events, reorgs and finality", () => {
    expect(formatStatusLine(status(10, 1000), status(14, 1120), 2)).toBe(
      "tip 14 | 2.0 blocks/s | events 1,120 (60/s) | reorgs 2 | finalized 11",
    );
  });
  it("has no rate on the first reading", () => {
    expect(formatStatusLine(null, status(3, 90), 2)).toBe(
      "tip 3 | 0.0 blocks/s | events 90 (0/s) | reorgs 2 | finalized 0",
    );
  });
  it("says when payloads were malformed and when processing is retrying", () => {
    const line = formatStatusLine(null, status(3, 90, { malformed_payloads: 4 }, "connection refused"), 2);
    expect(line).toMatch(/malformed 4 \| retrying: connection refused$/);
  });
});
