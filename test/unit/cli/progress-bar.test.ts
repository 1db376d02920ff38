import { describe, expect, it } from "vitest";
import { progressBar } from "../../../runtime/cli/progress.js";

describe("progressBar", () => {
  it.each([
    [0, "[--------------------]   0%"],
    [0.42, "[########------------]  42%"],
    [1, "[####################] 100%"],
    [1.7, "[####################] 100%"],
    [-1, "[--------------------]   0%"],
    [Number.NaN, "[--------------------]   0%"],
  ])("%s → %s", (fraction, want) => {
    expect(progressBar(fraction)).toBe(want);
  });
});
