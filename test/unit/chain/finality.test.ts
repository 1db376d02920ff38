/** decideFinality (README "Finality"): given/want cases. */
import { describe, expect, it } from "vitest";
import { type ChainStep, decideFinality, type FinalityState } from "../../../runtime/chain/finality.js";
import { branchFloor } from "../../../runtime/chain/fork-choice.js";

const state = (contestedFromHeight: number | null, finalizedHighWater: number | null): FinalityState => ({
  contestedFromHeight,
  finalizedHighWater,
});

const cases: { name: string; given: FinalityState; step: ChainStep; want: ReturnType<typeof decideFinality> }[] = [
  {
    name: "the tip moves up: no branch ties it any more",
    given: state(30, 26),
    step: { kind: "advanced" },
    want: { contestedFromHeight: null, belowFinality: false },
  },
  {
    name: "a second block at the tip's height: undecided from its branch's floor",
    given: state(null, 30),
    step: { kind: "tie", branchFloor: 30 },
    want: { contestedFromHeight: 30, belowFinality: false },
  },
  {
    name: "another tying branch reaching lower: the lowest floor counts",
    given: state(47, 43),
    step: { kind: "tie", branchFloor: 45 },
    want: { contestedFromHeight: 45, belowFinality: false },
  },
  {
    name: "another tying branch reaching less low: the contest stays",
    given: state(45, 43),
    step: { kind: "tie", branchFloor: 47 },
    want: { contestedFromHeight: 45, belowFinality: false },
  },
  {
    name: "a block below the tip's height has lost already: nothing changes",
    given: state(47, 43),
    step: { kind: "unchanged" },
    want: { contestedFromHeight: 47, belowFinality: false },
  },
  {
    name: "a reorg above everything reported final",
    given: state(30, 26),
    step: { kind: "reorg", forkPointHeight: 30 },
    want: { contestedFromHeight: null, belowFinality: false },
  },
  {
    name: "a reorg orphaning the highest height reported final (the boundary has moved down since)",
    given: state(30, 30),
    step: { kind: "reorg", forkPointHeight: 30 },
    want: { contestedFromHeight: null, belowFinality: true },
  },
  {
    name: "a reorg deep below the boundary",
    given: state(null, 120),
    step: { kind: "reorg", forkPointHeight: 100 },
    want: { contestedFromHeight: null, belowFinality: true },
  },
  {
    name: "nothing reported final yet: no reorg is below finality",
    given: state(null, null),
    step: { kind: "reorg", forkPointHeight: 1 },
    want: { contestedFromHeight: null, belowFinality: false },
  },
];

describe("decideFinality", () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(decideFinality(c.given, c.step)).toEqual(c.want);
    });
  }
});

describe("branchFloor: the lowest height a branch competes for", () => {
  const ref = (hash: string, height: number, parent: string) => ({
    indexBlockHash: hash,
    height,
    parentIndexBlockHash: parent,
  });
  it("one above its canonical fork base", () => {
    expect(branchFloor({ block: ref("b30", 30, "a29"), branch: [], forkBase: ref("a29", 29, "a28") })).toBe(30);
    expect(
      branchFloor({ block: ref("b31", 31, "b30"), branch: [ref("b30", 30, "a29")], forkBase: ref("a29", 29, "a28") }),
    ).toBe(30);
  });
  it("its lowest stored block when the ancestry is incomplete", () => {
    expect(branchFloor({ block: ref("x9", 9, "x8"), branch: [], forkBase: null })).toBe(9);
    expect(branchFloor({ block: ref("x9", 9, "x8"), branch: [ref("x8", 8, "x7")], forkBase: null })).toBe(8);
  });
});
