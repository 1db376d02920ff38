/**
 * Where the generator finds its inputs (specs/, templates/) and writes its output (generated/),
 * whether it runs from source (tsx) or from the build (dist/generator/…): walk up to package.json.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRepoRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "specs"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the sluice repository root above ${start}`);
    dir = parent;
  }
}

/** The repository root (holds package.json, specs/, templates/, generated/). */
export const REPO_ROOT = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
export const SPECS_DIR = join(REPO_ROOT, "specs");
export const TEMPLATES_DIR = join(REPO_ROOT, "templates");
export const GENERATED_DIR = join(REPO_ROOT, "generated");
export const SPEC_SCHEMA_FILE = join(SPECS_DIR, "spec.schema.json");
