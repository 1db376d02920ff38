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

  it("runtime/api's rooms point one way: http/ serves the surfaces, surfaces do not lean on each other or on the top level", () => {
    const api = (file: string) => path.relative(path.join(repoRoot, "runtime/api"), file);
    const graph = graphOf(["runtime/api"]);
    const crossings: string[] = [];
    for (const [file, targets] of graph) {
      const from = api(file);
      const room = from.includes("/") ? from.split("/")[0] : null;
      for (const target of targets) {
        const to = api(target);
        if (to.startsWith("..") || !room) continue; // outside runtime/api, or from the api's own top level
        const targetRoom = to.includes("/") ? to.split("/")[0] : null;
        if (targetRoom === room) continue;
        const allowed =
          (targetRoom === "http" && room !== "http") ||
          (room === "subgraphs" && (to === "events/chain-hub.ts" || to === "events/reorg-records.ts"));
        if (!allowed) crossings.push(`${from} → ${to}`);
      }
    }
    expect(graph.size).toBeGreaterThan(40);
    expect(crossings).toEqual([]);
  });

  it("outside runtime/api, production code reaches the API through its public entry only", () => {
    const apiDir = path.join(repoRoot, "runtime/api") + path.sep;
    const entry = path.join(apiDir, "index.ts");
    const graph = graphOf(["runtime"]);
    const reachingIn: string[] = [];
    for (const [file, targets] of graph) {
      if (file.startsWith(apiDir)) continue;
      for (const target of targets)
        if (target.startsWith(apiDir) && target !== entry)
          reachingIn.push(`${path.relative(repoRoot, file)} → ${path.relative(repoRoot, target)}`);
    }
    expect([...graph.values()].flat()).toContain(entry);
    expect(reachingIn).toEqual([]);
  });
});
