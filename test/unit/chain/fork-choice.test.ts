/** planForkChoice (DESIGN.md §2 "Fork choice and reorgs"): given/want cases. */
import { describe, expect, it } from "vitest";
import { type BlockRef, type ForkChoiceInput, planForkChoice } from "../../../runtime/chain/fork-choice.js";

const ref = (hash: string, height: number, parent: string): BlockRef => ({
  indexBlockHash: hash,
  height,
  parentIndexBlockHash: parent,
});
const tip = (hash: string, height: number) => ({ indexBlockHash: hash, height });

const cases: { name: string; input: ForkChoiceInput; want: ReturnType<typeof planForkChoice> }[] = [
  {
    name: "the first block ever extends",
    input: { tip: null, block: ref("a1", 1, "a0"), branch: [], forkBase: null },
    want: { kind: "extend" },
  },
  {
    name: "a child of the tip extends",
    input: { tip: tip("a5", 5), block: ref("a6", 6, "a5"), branch: [], forkBase: null },
    want: { kind: "extend" },
  },
  {
    name: "a second block at the tip's height waits",
    input: { tip: tip("a5", 5), block: ref("b5", 5, "a4"), branch: [], forkBase: ref("a4", 4, "a3") },
    want: { kind: "side" },
  },
  {
    name: "a lower block on another branch waits",
    input: { tip: tip("a5", 5), block: ref("b3", 3, "a2"), branch: [], forkBase: ref("a2", 2, "a1") },
    want: { kind: "side" },
  },
  {
    name: "a child of a side block beats the tip: switch from the common ancestor's height + 1, branch oldest first",
    input: {
      tip: tip("a5", 5),
      block: ref("b6", 6, "b5"),
      branch: [ref("b5", 5, "b4"), ref("b4", 4, "a3")],
      forkBase: ref("a3", 3, "a2"),
    },
    want: { kind: "switch", forkPointHeight: 4, apply: ["b4", "b5", "b6"], gap: false },
  },
  {
    name: "a block whose ancestry is unknown but higher: follow it without rolling back below the gap",
    input: { tip: tip("a5", 5), block: ref("x9", 9, "x8"), branch: [], forkBase: null },
    want: { kind: "switch", forkPointHeight: 9, apply: ["x9"], gap: true },
  },
];

describe("planForkChoice", () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(planForkChoice(c.input)).toEqual(c.want);
    });
  }
});
