/**
 * The import graph of runtime/ and generator/ has no circle: every module can be read after the
 * modules it imports (test/support/import-graph.ts reads the edges and finds the circles).
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findCycles, graphOf, importsOf, repoRoot } from "../support/import-graph.js";

describe("import graph", () => {
  it("finds a circle when there is one (the checker itself)", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
      ["e", ["e"]],
    ]);
    expect(findCycles(graph)).toEqual([["a", "b", "c"], ["e"]]);
  });

  it("reads static, dynamic and type-only imports", () => {
    const file = path.join(repoRoot, "runtime/service.ts");
    const source = [
      'import { a } from "./main.js";',
      'import type { B } from "./config/index.js";',
      'const c = await import("./db/index.js");',
      'import "./internal/logger.js";',
    ].join("\n");
    expect(importsOf(file, source).map((f) => path.relative(repoRoot, f))).toEqual([
      "runtime/main.ts",
      "runtime/config/index.ts",
      "runtime/db/index.ts",
      "runtime/internal/logger.ts",
    ]);
  });

  it("runtime/ and generator/ have no circle", () => {
    const graph = graphOf(["runtime", "generator"]);
    expect(graph.size).toBeGreaterThan(100);
    const cycles = findCycles(graph).map((c) => c.map((f) => path.relative(repoRoot, f)));
    expect(cycles).toEqual([]);
  });
});
