import { describe, expect, it } from "vitest";
import { batchIsFull, batchLimitsAt, DEFAULT_BATCH_LIMITS } from "../../../runtime/cli/import.js";

describe("import batch limits", () => {
  const limits = { maxRequests: 4, maxBytes: 1000 };

  it("a batch is full at the request limit or the byte limit, whichever comes first", () => {
    expect(batchIsFull(3, 999, limits)).toBe(false);
    expect(batchIsFull(4, 10, limits)).toBe(true);
    expect(batchIsFull(1, 1000, limits)).toBe(true);
  });

  it("by default many requests share a transaction, bounded by bytes", () => {
    // Blocks of ~36 KB (30 events): the byte bound ends the batch long before the request bound.
    const blockBytes = 36 * 1024;
    let requests = 0;
    while (!batchIsFull(requests, requests * blockBytes, DEFAULT_BATCH_LIMITS)) requests++;
    expect(requests).toBeGreaterThan(16);
    expect(requests).toBeLessThan(DEFAULT_BATCH_LIMITS.maxRequests);
  });

  it("the first batches are smaller, doubling up to the limits", () => {
    const big = { maxRequests: 1024, maxBytes: 8 * 1024 * 1024 };
    const at = (i: number) => batchLimitsAt(i, big);
    expect(at(0)).toEqual({ maxRequests: 64, maxBytes: 512 * 1024 });
    expect(at(1)).toEqual({ maxRequests: 128, maxBytes: 1024 * 1024 });
    expect(at(3)).toEqual({ maxRequests: 512, maxBytes: 4 * 1024 * 1024 });
    expect(at(4)).toEqual(big);
    expect(at(100)).toEqual(big);
    // --batch-size 1 stays one request per transaction from the first batch on.
    expect(batchLimitsAt(0, { maxRequests: 1, maxBytes: 1 })).toEqual({ maxRequests: 1, maxBytes: 1 });
  });
});
