/**
 * Access to the recorded chain fixtures in ../shared/fixtures (DESIGN.md §7; see its README).
 * Tests that need them use `describe.skipIf(!hasFixtures)` so the suite runs without them.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

/** The repository root (this file is test/support/fixtures.ts). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** `<repo root>/../shared/fixtures`. */
export const FIXTURES_DIR = path.resolve(REPO_ROOT, "../shared/fixtures");

export const hasFixtures = existsSync(FIXTURES_DIR);

/** One recorded observer request of an event-replay TSV. `body` is the raw JSON text. */
export interface ReplayRow {
  id: string;
  timestamp: string;
  path: string;
  body: string;
}

/**
 * Rows of an event-replay TSV (`id \t timestamp \t path \t json`), `.tsv` or `.tsv.gz`, in file
 * order. A relative `file` is taken from FIXTURES_DIR.
 */
export function readReplayTsv(file: string): ReplayRow[] {
  const abs = path.resolve(FIXTURES_DIR, file);
  let data = readFileSync(abs);
  if (abs.endsWith(".gz")) data = gunzipSync(data);
  const rows: ReplayRow[] = [];
  const lines = data.toString("utf8").split("\n");
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].endsWith("\r") ? lines[n].slice(0, -1) : lines[n];
    if (line === "") continue;
    // The JSON body is the 4th column; JSON text never holds a raw tab inside a string.
    const t1 = line.indexOf("\t");
    const t2 = line.indexOf("\t", t1 + 1);
    const t3 = line.indexOf("\t", t2 + 1);
    if (t1 < 0 || t2 < 0 || t3 < 0) throw new Error(`${abs}:${n + 1}: expected 4 tab-separated columns`);
    rows.push({
      id: line.slice(0, t1),
      timestamp: line.slice(t1 + 1, t2),
      path: line.slice(t2 + 1, t3),
      body: line.slice(t3 + 1),
    });
  }
  return rows;
}

/** An observer fixture file: a replay TSV or a single `/new_block` JSON body. */
export interface ObserverFixture {
  /** Path relative to `<FIXTURES_DIR>/observer`, e.g. `sbtc/rotate-keys-event.json`. */
  name: string;
  file: string;
  kind: "tsv" | "json";
}

/** Every observer fixture under `<FIXTURES_DIR>/observer`, sorted by name; [] without fixtures. */
export function listObserverFixtures(): ObserverFixture[] {
  const root = path.join(FIXTURES_DIR, "observer");
  if (!existsSync(root)) return [];
  const out: ObserverFixture[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.tsv(\.gz)?$/.test(entry.name)) out.push({ name: path.relative(root, file), file, kind: "tsv" });
      else if (entry.name.endsWith(".json")) out.push({ name: path.relative(root, file), file, kind: "json" });
    }
  };
  walk(root);
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The `/new_block` bodies (raw JSON text) of one observer fixture, in file order. */
export function newBlockBodies(fixture: ObserverFixture): string[] {
  if (fixture.kind === "json") return [readFileSync(fixture.file, "utf8")];
  return readReplayTsv(fixture.file)
    .filter((r) => r.path === "/new_block")
    .map((r) => r.body);
}
