/**
 * The runtime, the generator and generated/ transpiled once per test run (esbuild, as tsx does file
 * by file), for the CLI and service processes tests spawn (test/support/cli.ts): a child started
 * from JavaScript loads in a third of the CPU time of one that transpiles through tsx's loader,
 * and tests start hundreds of them. The tree sits under .tmp/ of this repository, so modules that
 * find the repository by walking up to package.json (specs/, templates/, dist/pglite-template)
 * find the same one as from source. Made by the global setup of vitest.config.ts; a run without
 * it (SLUICE_TEST_JS_DIR unset, or SLUICE_TEST_TRANSPILE=off) spawns the sources through tsx.
 */
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { REPO_ROOT } from "../../generator/repo-paths.js";

const SOURCE_DIRS = ["runtime", "generator", "generated"];

function sources(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) files.push(file);
    }
  };
  for (const dir of SOURCE_DIRS) walk(path.join(REPO_ROOT, dir));
  return files;
}

/** Transpiles the sources into `outDir` (runtime/…, generator/…, generated/… as .js). */
export async function transpileSources(outDir: string): Promise<void> {
  await build({
    entryPoints: sources(),
    outdir: outDir,
    outbase: REPO_ROOT,
    format: "esm",
    platform: "node",
    target: `node${process.versions.node}`,
    tsconfig: path.join(REPO_ROOT, "tsconfig.json"),
    sourcemap: "inline",
    logLevel: "warning",
  });
}

/** Trees of runs that were killed before their teardown (their process is gone). */
function removeDeadRuns(): void {
  const tmp = path.join(REPO_ROOT, ".tmp");
  if (!fs.existsSync(tmp)) return;
  for (const name of fs.readdirSync(tmp)) {
    const pid = /^transpiled-(\d+)$/.exec(name)?.[1];
    if (!pid) continue;
    try {
      process.kill(Number(pid), 0);
    } catch {
      fs.rmSync(path.join(tmp, name), { recursive: true, force: true });
    }
  }
}

let made: Promise<void> | undefined;

/**
 * Vitest global setup: one tree per run (concurrent runs of one checkout keep theirs), made once
 * however many projects the run has, and removed after it.
 */
export default async function setup(): Promise<(() => void) | undefined> {
  // A run whose tests start no process (the copy test/generator/added-spec.test.ts runs) needs none.
  if (process.env.SLUICE_TEST_TRANSPILE === "off") return undefined;
  const outDir = path.join(REPO_ROOT, ".tmp", `transpiled-${process.pid}`);
  made ??= (async () => {
    removeDeadRuns();
    fs.rmSync(outDir, { recursive: true, force: true });
    await transpileSources(outDir);
  })();
  await made;
  process.env.SLUICE_TEST_JS_DIR = outDir;
  return () => fs.rmSync(outDir, { recursive: true, force: true });
}
