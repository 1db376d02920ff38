/**
 * The embedded database's data-directory template (runtime/db/pglite-template.ts) for the CLI and
 * service processes tests start: a checkout that was never built (CI's fresh clone) has no
 * dist/pglite-template, so each process starting on an empty DATA_DIR would run initdb, every
 * migration and the subgraphs' first deploy (about 6 s of CPU, against 2 s from a template). Built
 * once into .tmp/pglite-template by the template builder of the run's transpiled sources (kept
 * between runs while up to date: same PGlite, migrations and subgraphs, files intact) and handed
 * down as PGLITE_TEMPLATE. A test that sets PGLITE_TEMPLATE itself still decides for its process.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "../../generator/repo-paths.js";

export const CHILDREN_TEMPLATE_DIR = path.join(REPO_ROOT, ".tmp", "pglite-template");

let built: Promise<void> | undefined;

/** Vitest global setup, after test/support/transpiled-sources.ts (it runs that tree's builder). */
export default async function setup(): Promise<void> {
  const transpiled = process.env.SLUICE_TEST_JS_DIR;
  // A run that starts no process (SLUICE_TEST_TRANSPILE=off) needs no template.
  if (!transpiled) return;
  built ??= (async () => {
    const builder = path.join(transpiled, "runtime", "db", "pglite-template-build.js");
    execFileSync(process.execPath, [builder, CHILDREN_TEMPLATE_DIR], { cwd: REPO_ROOT, stdio: "ignore" });
  })();
  await built;
  process.env.PGLITE_TEMPLATE ??= CHILDREN_TEMPLATE_DIR;
}
