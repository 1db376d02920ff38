/**
 * Makes the embedded database's data-directory template (runtime/db/pglite-template.ts): initdb and
 * every core migration on a new PGlite data directory, closed cleanly, with its manifest. Run by
 * `npm run build` (`node dist/runtime/db/pglite-template-build.js [dir]`, default dist/pglite-template);
 * a template that is already up to date (same PGlite, same migrations, every file intact) is kept,
 * so a rebuild costs a file check, not an initdb.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { CORE_MIGRATIONS, type Migration, migrate } from "./migrate.js";
import { createPgliteDb } from "./pglite.js";
import {
  MANIFEST_FILE,
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

/** Builds the template in `dir` (replacing one made by other code), or keeps it when up to date. */
export async function buildPgliteTemplate(
  dir: string,
  migrations: readonly Migration[] = CORE_MIGRATIONS,
): Promise<BuildResult> {
  const expected = { pglite: pgliteVersion(), stamps: migrationStamps(migrations) };
  if (upToDate(dir, expected)) return { built: false, dir, migrations: migrations.length };
  const partial = `${dir}.${process.pid}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  const pgdata = path.join(partial, TEMPLATE_PGDATA);
  fs.mkdirSync(pgdata, { recursive: true });
  const db = await createPgliteDb(pgdata);
  try {
    await migrate(db, [...migrations]);
  } finally {
    await db.close();
  }
  const tree = listTree(pgdata);
  const manifest: TemplateManifest = {
    format: TEMPLATE_FORMAT,
    pglite: expected.pglite,
    migrations: expected.stamps,
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
function upToDate(dir: string, expected: Parameters<typeof templateMismatch>[1]): boolean {
  let manifest: TemplateManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), "utf8")) as TemplateManifest;
  } catch {
    return false;
  }
  if (templateMismatch(manifest, expected) !== null || manifest.migrations.length !== expected.stamps.length) {
    return false;
  }
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
