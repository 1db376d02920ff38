/**
 * The import graph of runtime/ and generator/ has no circle: every module can be read after the
 * modules it imports. Edges are read from the source text (static, dynamic and type-only
 * imports alike) and cycles found with Tarjan's strongly connected components.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const IMPORT_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"(\.{1,2}\/[^"]+)"/g;

function tsFilesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFilesUnder(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** Relative import targets of one file, as absolute .ts paths that exist. */
export function importsOf(file: string, source: string): string[] {
  const targets: string[] = [];
  for (const match of source.matchAll(IMPORT_SPECIFIER)) {
    const resolved = path.resolve(path.dirname(file), match[1]).replace(/\.js$/, ".ts");
    if (fs.existsSync(resolved)) targets.push(resolved);
  }
  return targets;
}

/** Every strongly connected component with more than one file, or a file importing itself. */
export function findCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

function graphOf(dirs: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((d) => tsFilesUnder(path.join(repoRoot, d)))) {
    graph.set(file, importsOf(file, fs.readFileSync(file, "utf8")));
  }
  return graph;
}

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
