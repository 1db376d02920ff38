/** subgraphsToRebuild: which subgraphs a reorg's reverts cannot restore (runtime/subgraphs/revert-coverage.ts). */
import { describe, expect, it } from "vitest";
import { type JournalCoverage, rebuildReason, subgraphsToRebuild } from "../../../runtime/subgraphs/revert-coverage.js";

const sub = (over: Partial<JournalCoverage>): JournalCoverage => ({
  name: "s",
  status: "ready",
  subgraphHeight: 50,
  unjournaledHeight: -1,
  startBlock: 0,
  ...over,
});

describe("subgraphsToRebuild", () => {
  it("leaves a subgraph whose journal covers every orphaned block to the reverts", () => {
    expect(subgraphsToRebuild([sub({ unjournaledHeight: 29 })], 30)).toEqual([]);
    expect(subgraphsToRebuild([sub({ unjournaledHeight: -1 })], 0)).toEqual([]);
  });

  it("rebuilds a subgraph that applied an orphaned block which may have no undo entries", () => {
    expect(subgraphsToRebuild([sub({ unjournaledHeight: 30 })], 30)).toEqual(["s"]);
    expect(subgraphsToRebuild([sub({ unjournaledHeight: 45 })], 30)).toEqual(["s"]);
    // Backfills and reindexes past the fork point wrote rows there too.
    for (const status of ["backfilling", "reindexing"])
      expect(subgraphsToRebuild([sub({ status, subgraphHeight: 40, unjournaledHeight: 40 })], 30)).toEqual(["s"]);
  });

  it("leaves a subgraph that has not applied any orphaned block (it applies the new branch as usual)", () => {
    expect(subgraphsToRebuild([sub({ status: "backfilling", subgraphHeight: 29, unjournaledHeight: 29 })], 30)).toEqual(
      [],
    );
  });

  it("leaves a subgraph whose unjournaled blocks are all below its start block (it wrote nothing there)", () => {
    expect(subgraphsToRebuild([sub({ startBlock: 40, unjournaledHeight: 39 })], 30)).toEqual([]);
    expect(subgraphsToRebuild([sub({ startBlock: 40, unjournaledHeight: 40 })], 30)).toEqual(["s"]);
  });

  it("leaves a failed subgraph alone", () => {
    expect(subgraphsToRebuild([sub({ status: "failed", unjournaledHeight: 45 })], 30)).toEqual([]);
  });

  it("agrees with a block-by-block reading: some orphaned block it wrote from may lack undo entries", () => {
    const heights = [-1, 0, 1, 2, 3, 4, 5, 6];
    for (const fork of [0, 1, 3, 5])
      for (const subgraphHeight of heights)
        for (const unjournaledHeight of heights)
          for (const startBlock of [0, 2, 4]) {
            const s = sub({ subgraphHeight, unjournaledHeight, startBlock });
            // Orphaned: every height from the fork point to the tip (never above 6 here).
            let unrevertable = false;
            for (let h = fork; h <= 6; h++) {
              const written = h >= startBlock && h <= subgraphHeight;
              if (written && h <= unjournaledHeight) unrevertable = true;
            }
            expect(subgraphsToRebuild([s], fork), JSON.stringify({ fork, ...s })).toEqual(unrevertable ? ["s"] : []);
          }
  });

  it("keeps the order it was given and names the fork point in the reason", () => {
    const rows = [
      sub({ name: "a", unjournaledHeight: 40 }),
      sub({ name: "b" }),
      sub({ name: "c", unjournaledHeight: 31 }),
    ];
    expect(subgraphsToRebuild(rows, 31)).toEqual(["a", "c"]);
    expect(rebuildReason(31)).toContain("reorg at height 31");
  });
});
