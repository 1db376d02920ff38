/**
 * Makes the embedded database's data-directory template (runtime/db/pglite-template.ts): initdb,
 * every core migration and the built-in subgraphs (deployed by the subgraph engine, as a first start
 * deploys them) on a new PGlite data directory, closed cleanly, with its manifest. Run by
 * `npm run build` (`node dist/runtime/db/pglite-template-build.js [dir]`, default dist/pglite-template);
 * a template that is already up to date (same PGlite, migrations and subgraphs, every file intact) is kept,
 * so a rebuild costs a file check, not an initdb.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseConfig } from "../config/index.js";
import { silentLogger } from "../internal/logger.js";
import { createSubgraphEngine } from "../subgraphs/index.js";
import { builtinSources, builtinSubgraphs } from "../subgraphs/module-loader.js";
import type { SubgraphModule } from "../subgraphs/types.js";
import { CORE_MIGRATIONS, type Migration, migrate } from "./migrate.js";
import { createPgliteDb } from "./pglite.js";
import {
  MANIFEST_FILE,
  type SubgraphStamp,
  TEMPLATE_FORMAT,
  TEMPLATE_PGDATA,
  type TemplateManifest,
  defaultTemplateDir,
  listTree,
  migrationStamps,
  pgliteVersion,
  sha256,
  templateMismatch,
} from "./pglite-template.js";

export interface BuildResult {
  /** False when the template in place was up to date and kept. */
  built: boolean;
  dir: string;
  migrations: number;
}

/** The stamps of the built-in subgraphs a template holds (module hashes from their files), by name. */
export function subgraphStamps(modules: readonly SubgraphModule[]): SubgraphStamp[] {
  return builtinSources(modules)
    .map((s) => ({ name: s.module.name, moduleHash: s.moduleHash }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Builds the template in `dir` (replacing one made by other code), or keeps it when up to date.
 * `subgraphs` are the built-in subgraphs deployed in it (none for a template of other migrations).
 */
export async function buildPgliteTemplate(
  dir: string,
  migrations: readonly Migration[] = CORE_MIGRATIONS,
  subgraphs: readonly SubgraphModule[] = builtinSubgraphs,
): Promise<BuildResult> {
  const expected = { pglite: pgliteVersion(), stamps: migrationStamps(migrations) };
  const subgraphsHeld = subgraphStamps(subgraphs);
  if (upToDate(dir, expected, subgraphsHeld)) return { built: false, dir, migrations: migrations.length };
  const partial = `${dir}.${process.pid}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  const pgdata = path.join(partial, TEMPLATE_PGDATA);
  fs.mkdirSync(pgdata, { recursive: true });
  const db = await createPgliteDb(pgdata);
  try {
    await migrate(db, [...migrations]);
    if (subgraphs.length) {
      // The engine's own first-start deploy; the network only selects contracts for dispatch.
      const engine = createSubgraphEngine({ db, config: parseConfig({}), logger: silentLogger, builtins: subgraphs });
      await engine.init();
      await engine.close();
    }
  } finally {
    await db.close();
  }
  const tree = listTree(pgdata);
  const manifest: TemplateManifest = {
    format: TEMPLATE_FORMAT,
    pglite: expected.pglite,
    migrations: expected.stamps,
    subgraphs: subgraphsHeld,
    dirs: tree.dirs,
    files: tree.files.map((file) => {
      const data = fs.readFileSync(path.join(pgdata, ...file.split("/")));
      return { path: file, size: data.length, sha256: sha256(data) };
    }),
  };
  fs.writeFileSync(path.join(partial, MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(partial, dir);
  return { built: true, dir, migrations: migrations.length };
}

/** The template in `dir` matches `expected` exactly and its files are as the manifest says. */
function upToDate(
  dir: string,
  expected: Parameters<typeof templateMismatch>[1],
  subgraphs: readonly SubgraphStamp[],
): boolean {
  let manifest: TemplateManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), "utf8")) as TemplateManifest;
  } catch {
    return false;
  }
  if (templateMismatch(manifest, expected) !== null || manifest.migrations.length !== expected.stamps.length) {
    return false;
  }
  if (JSON.stringify(manifest.subgraphs ?? []) !== JSON.stringify(subgraphs)) return false;
  return manifest.files.every((f) => {
    try {
      const data = fs.readFileSync(path.join(dir, TEMPLATE_PGDATA, ...f.path.split("/")));
      return data.length === f.size && sha256(data) === f.sha256;
    } catch {
      return false;
    }
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = performance.now();
  const dir = path.resolve(process.argv[2] ?? defaultTemplateDir());
  buildPgliteTemplate(dir).then(
    (r) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const what = r.built ? "built" : "up to date";
      process.stdout.write(
        `embedded database template ${what}: ${path.relative(process.cwd(), dir)} (${r.migrations} migrations, ${seconds}s)\n`,
      );
    },
    (err) => {
      process.stderr.write(
        `could not build the embedded database template: ${err instanceof Error ? err.stack : err}\n`,
      );
      process.exit(1);
    },
  );
}
