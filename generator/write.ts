/**
 * The disk edge of the generator (STYLE.md: "make generate writes that map; make check compares
 * it with generated/, including files that should no longer exist, prints a diff"): reads
 * specs/*.yaml, writes or checks generated/.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { type GenerateResult, generate, type SpecInput } from "./generate.js";
import { REPO_ROOT, SPECS_DIR } from "./repo-paths.js";
import { SpecValidationError } from "./spec-error.js";
import { unifiedDiff } from "./line-diff.js";

/** Every `*.yaml` in `specsDir`, sorted, named relative to the repository root. */
export function readSpecInputs(specsDir = SPECS_DIR): SpecInput[] {
  return readdirSync(specsDir)
    .filter((name) => name.endsWith(".yaml") || name.endsWith(".yml"))
    .sort()
    .map((name) => {
      const path = join(specsDir, name);
      return { file: relative(REPO_ROOT, path).split("\\").join("/"), text: readFileSync(path, "utf8") };
    });
}

/** The expected generated/ tree from the specs; throws SpecValidationError on spec errors. */
export async function expectedFiles(specsDir = SPECS_DIR): Promise<Map<string, string>> {
  const result: GenerateResult = await generate(readSpecInputs(specsDir));
  if (!result.ok) throw new SpecValidationError(result.errors);
  return result.files;
}

/** Every file under `dir`, as `/`-separated paths relative to it. */
export function listFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (current: string) => {
    let entries: string[];
    try {
      entries = readdirSync(current);
    } catch {
      return;
    }
    for (const entry of entries.sort()) {
      const path = join(current, entry);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(relative(dir, path).split("\\").join("/"));
    }
  };
  walk(dir);
  return files;
}

export interface WriteSummary {
  written: string[];
  removed: string[];
}

/** Regenerates `dir` from the specs: writes changed files, deletes files no spec produces. */
export async function writeGenerated(dir: string, specsDir = SPECS_DIR): Promise<WriteSummary> {
  return writeTree(dir, await expectedFiles(specsDir));
}

/** Makes `dir` hold exactly `files` (a generated tree): writes changed files, deletes the others. */
export function writeTree(dir: string, files: ReadonlyMap<string, string>): WriteSummary {
  const summary: WriteSummary = { written: [], removed: [] };
  for (const [path, contents] of files) {
    const target = join(dir, path);
    if (readOrUndefined(target) === contents) continue;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, contents);
    summary.written.push(path);
  }
  for (const path of listFiles(dir)) {
    if (files.has(path)) continue;
    rmSync(join(dir, path));
    summary.removed.push(path);
  }
  removeEmptyDirectories(dir);
  return summary;
}

export interface CheckResult {
  ok: boolean;
  /** Diffs and missing/stale notices; ends with the fix when not ok. */
  report: string;
}

/** Compares `dir` with what the specs generate, including files that should not exist. */
export async function checkGenerated(dir: string, specsDir = SPECS_DIR): Promise<CheckResult> {
  return checkTree(dir, await expectedFiles(specsDir));
}

/** Compares `dir` with `files` (a generated tree), including files that should not exist. */
export function checkTree(dir: string, files: ReadonlyMap<string, string>): CheckResult {
  const label = displayPath(dir);
  const parts: string[] = [];
  for (const [path, contents] of files) {
    const current = readOrUndefined(join(dir, path));
    if (current === undefined) parts.push(`missing: ${label}/${path}\n`);
    else if (current !== contents)
      parts.push(unifiedDiff(current, contents, `${label}/${path} (on disk)`, `${label}/${path} (from specs)`));
  }
  for (const path of listFiles(dir)) {
    if (!files.has(path)) parts.push(`should not exist: ${label}/${path}\n`);
  }
  if (parts.length === 0) return { ok: true, report: `${label}/ is up to date\n` };
  return { ok: false, report: `${parts.join("")}\n${label}/ is stale: run make generate and commit\n` };
}

/** `generated` for directories inside the repository, the absolute path otherwise. */
function displayPath(dir: string): string {
  const inside = relative(REPO_ROOT, dir);
  if (inside === "") return ".";
  return inside.startsWith("..") || isAbsolute(inside) ? dir : inside.split("\\").join("/");
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function removeEmptyDirectories(dir: string): void {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (!statSync(path).isDirectory()) continue;
    removeEmptyDirectories(path);
    if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
  }
}
