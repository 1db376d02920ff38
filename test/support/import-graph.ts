/**
 * The import graph of the repository's own TypeScript: relative import edges read from source text
 * (static, dynamic and type-only alike), and its circles (Tarjan's strongly connected components).
 */
import fs from "node:fs";
import path from "node:path";

export const repoRoot = path.resolve(import.meta.dirname, "../..");
const IMPORT_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"(\.{1,2}\/[^"]+)"/g;

export function tsFilesUnder(dir: string): string[] {
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

export function graphOf(dirs: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((d) => tsFilesUnder(path.join(repoRoot, d)))) {
    graph.set(file, importsOf(file, fs.readFileSync(file, "utf8")));
  }
  return graph;
}
