/**
 * The SDK (runtime/sdk) ships to webhook receivers and API clients, so it may import only itself,
 * the formats it shares with the service (runtime/formats), the service's generated API types
 * (generated/service-api), its two client libraries (openapi-fetch, eventsource-parser) and Node
 * built-ins — never the service's own modules; runtime/formats in turn imports only itself and
 * Node built-ins. Every import and re-export is checked, type-only
 * ones included.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const runtimeDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../runtime");

/** Module specifiers of `import … from`, `export … from`, bare `import "…"` and `import("…")`. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']/gm,
    /^\s*import\s+["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) found.push(m[1]);
  return found;
}

/**
 * Imports in `folder`'s .ts files that leave the allowed folders (Node built-ins are allowed;
 * `extra`: further allowed specifiers, packages or paths relative to runtime/).
 */
function strayImports(folder: string, allowed: readonly string[], extra: readonly string[] = []): string[] {
  const dir = path.join(runtimeDir, folder);
  const stray: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
    for (const spec of specifiers(readFileSync(path.join(dir, file), "utf8"))) {
      if (spec.startsWith("node:")) continue;
      const target = spec.startsWith(".") ? path.relative(runtimeDir, path.resolve(dir, spec)) : spec;
      if (extra.includes(target)) continue;
      const inside = allowed.some((a) => target.split(path.sep)[0] === a && !target.startsWith(".."));
      if (!inside) stray.push(`${folder}/${file} imports ${spec}`);
    }
  }
  return stray;
}

describe("layers point one way", () => {
  it("runtime/sdk imports only runtime/sdk, runtime/formats, the generated API types, its client libraries and Node built-ins", () => {
    const extra = ["openapi-fetch", "eventsource-parser/stream", path.join("..", "generated", "service-api.js")];
    expect(strayImports("sdk", ["sdk", "formats"], extra)).toEqual([]);
  });

  it("runtime/formats imports only runtime/formats and Node built-ins", () => {
    expect(strayImports("formats", ["formats"])).toEqual([]);
  });
});
