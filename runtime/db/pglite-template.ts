/**
 * The embedded database's data-directory template: an initialised and migrated, empty PGlite data
 * directory that `npm run build` writes to dist/pglite-template (runtime/db/pglite-template-build.ts).
 * A first start on an empty DATA_DIR copies it instead of running initdb and every migration
 * (initdb alone is seconds of CPU); migrate() then applies only the migrations newer than it.
 *
 * The built-in subgraphs are deployed in it too (their tables and control rows): on a first start the
 * subgraph engine then finds them up to date instead of creating every table.
 *
 * Layout: `manifest.json` (what the template holds) and `pgdata/` (the data directory). The manifest
 * names the PGlite version and each migration it contains (version, name, SHA-256 of its SQL, and
 * of the ledger DDL), so a template made by other code is recognised and ignored, the built-in
 * subgraphs it holds (name and module hash; the engine reconciles any that differ, as on an older
 * database), and the size and
 * SHA-256 of every file, checked while copying, so a damaged template is never used. Whatever goes
 * wrong, the caller falls back to creating the database the ordinary way.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CORE_MIGRATIONS, LEDGER_TABLE_DDL, type Migration } from "./migrate.js";

/** Bumped when the manifest or the directory layout changes: older templates are then ignored. */
export const TEMPLATE_FORMAT = 1;
export const MANIFEST_FILE = "manifest.json";
export const TEMPLATE_PGDATA = "pgdata";

export interface MigrationStamp {
  version: number;
  name: string;
  /** SHA-256 (hex) of the migration's SQL and the ledger's DDL. */
  sha256: string;
}

export interface SubgraphStamp {
  name: string;
  /** The engine's module hash (routes and migration SQL): equal means nothing to change on start. */
  moduleHash: string;
}

export interface TemplateFile {
  /** Relative to pgdata/, with forward slashes. */
  path: string;
  size: number;
  sha256: string;
}

export interface TemplateManifest {
  format: number;
  /** @electric-sql/pglite's version: a data directory is only read by the PostgreSQL that wrote it. */
  pglite: string;
  migrations: MigrationStamp[];
  /** The built-in subgraphs deployed in it (absent in templates made before they were). */
  subgraphs?: SubgraphStamp[];
  /** Every directory of pgdata/ (relative, parents first): PostgreSQL needs the empty ones too. */
  dirs: string[];
  files: TemplateFile[];
}

/** Pure: the stamps of a migration list, in version order. */
export function migrationStamps(migrations: readonly Migration[] = CORE_MIGRATIONS): MigrationStamp[] {
  return [...migrations]
    .sort((a, b) => a.version - b.version)
    .map((m) => ({
      version: m.version,
      name: m.name,
      sha256: createHash("sha256").update(LEDGER_TABLE_DDL).update("\0").update(m.sql).digest("hex"),
    }));
}

/**
 * Pure: why a manifest cannot seed a database for this code, or null when it can. It can when it
 * was made by this PGlite and its migrations are exactly the first ones of `stamps` (the rest are
 * applied by migrate(), in order, as on any older database).
 */
export function templateMismatch(
  manifest: unknown,
  expected: { pglite: string; stamps: MigrationStamp[] },
): string | null {
  const m = manifest as Partial<TemplateManifest> | null;
  if (typeof m !== "object" || m === null) return "the manifest is not a JSON object";
  if (m.format !== TEMPLATE_FORMAT) return `template format ${String(m.format)}, this code reads ${TEMPLATE_FORMAT}`;
  if (m.pglite !== expected.pglite) return `made by PGlite ${String(m.pglite)}, this is PGlite ${expected.pglite}`;
  if (!Array.isArray(m.migrations) || !Array.isArray(m.dirs) || !Array.isArray(m.files)) {
    return "the manifest lacks its migrations, dirs or files";
  }
  const inside = (p: unknown) =>
    typeof p === "string" &&
    p !== "" &&
    !p.startsWith("/") &&
    !p.split("/").some((part) => part === ".." || part === "");
  if (!m.dirs.every(inside) || !m.files.every((f) => inside(f?.path))) {
    return "the manifest names a path outside the template";
  }
  if (m.migrations.length > expected.stamps.length) {
    return `it holds ${m.migrations.length} migrations, this code has ${expected.stamps.length}`;
  }
  for (const [i, have] of m.migrations.entries()) {
    const want = expected.stamps[i];
    if (have?.version !== want.version || have.name !== want.name || have.sha256 !== want.sha256) {
      return `its migration ${String(have?.version)} (${String(have?.name)}) differs from this code's migration ${want.version} (${want.name})`;
    }
  }
  return null;
}

/** The version of the installed @electric-sql/pglite. */
export function pgliteVersion(): string {
  const main = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  for (let dir = path.dirname(main); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string; version?: string };
    if (pkg.name === "@electric-sql/pglite" && pkg.version) return pkg.version;
  }
  throw new Error("cannot find the version of @electric-sql/pglite");
}

/**
 * Where the build writes the template: dist/pglite-template of the package this module belongs to
 * (found from the compiled module and from its source alike).
 */
export function defaultTemplateDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, "package.json")) && dir !== path.dirname(dir)) dir = path.dirname(dir);
  return path.join(dir, "dist", "pglite-template");
}

/** Directories (parents first) and files of `root`, relative with forward slashes, sorted. */
export function listTree(root: string): { dirs: string[]; files: string[] } {
  const dirs: string[] = [];
  const files: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        dirs.push(child);
        walk(child);
      } else if (entry.isFile()) files.push(child);
    }
  };
  walk("");
  return { dirs: dirs.sort(), files: files.sort() };
}

export function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export type SeedResult =
  | { seeded: true; manifest: TemplateManifest }
  | { seeded: false; reason: string; missing?: boolean };

/**
 * Creates data directory `pgdata` (missing or empty) as a copy of the template in `templateDir`,
 * checking every file against the manifest as it goes. The copy is made beside `pgdata` and renamed
 * into place, so a crash never leaves half a database (the next start removes the half copy). The
 * caller holds DATA_DIR's lock. Never throws: `seeded: false` says why the
 * template was not used, and nothing has changed then.
 */
export function seedFromTemplate(
  templateDir: string,
  pgdata: string,
  expected: { pglite: string; stamps: MigrationStamp[] } = { pglite: pgliteVersion(), stamps: migrationStamps() },
): SeedResult {
  let manifest: TemplateManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(templateDir, MANIFEST_FILE), "utf8")) as TemplateManifest;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { seeded: false, reason: `no template at ${templateDir}`, missing: true };
    return { seeded: false, reason: "its manifest is not JSON" };
  }
  const mismatch = templateMismatch(manifest, expected);
  if (mismatch) return { seeded: false, reason: mismatch };
  const partial = `${pgdata}.template-${process.pid}`;
  try {
    removeStaleCopies(pgdata);
    fs.mkdirSync(partial, { recursive: true });
    for (const dir of manifest.dirs) fs.mkdirSync(path.join(partial, ...dir.split("/")), { recursive: true });
    const source = path.join(templateDir, TEMPLATE_PGDATA);
    // One chunk buffer for every file: the copy adds no garbage for the service to carry after it.
    const chunk = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
    for (const file of manifest.files) {
      const rel = file.path.split("/");
      const { size, sha256: digest } = copyFile(path.join(source, ...rel), path.join(partial, ...rel), chunk);
      if (size !== file.size || digest !== file.sha256) {
        throw new Error(`its file ${file.path} does not match the manifest`);
      }
    }
    fs.rmSync(pgdata, { recursive: true, force: true }); // missing or empty (checked by the caller)
    fs.renameSync(partial, pgdata);
    return { seeded: true, manifest };
  } catch (err) {
    fs.rmSync(partial, { recursive: true, force: true });
    return { seeded: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

const COPY_CHUNK_BYTES = 1 << 20;

/** Copies left beside `pgdata` by a process that died while copying (the caller holds DATA_DIR's lock). */
function removeStaleCopies(pgdata: string): void {
  const prefix = `${path.basename(pgdata)}.template-`;
  const parent = path.dirname(pgdata);
  for (const name of fs.existsSync(parent) ? fs.readdirSync(parent) : []) {
    if (name.startsWith(prefix)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  }
}

/** Copies `from` to a new file `to` through `chunk`; returns the size and SHA-256 of what it copied. */
function copyFile(from: string, to: string, chunk: Buffer): { size: number; sha256: string } {
  const hash = createHash("sha256");
  const input = fs.openSync(from, "r");
  try {
    const output = fs.openSync(to, "wx");
    try {
      let size = 0;
      for (let n = fs.readSync(input, chunk); n > 0; n = fs.readSync(input, chunk)) {
        hash.update(chunk.subarray(0, n));
        fs.writeSync(output, chunk, 0, n);
        size += n;
      }
      return { size, sha256: hash.digest("hex") };
    } finally {
      fs.closeSync(output);
    }
  } finally {
    fs.closeSync(input);
  }
}

/** Whether `dir` is missing or an empty directory (the only data directory a template may fill). */
export function isEmptyDir(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw err;
  }
}

/**
 * Values a migration draws at random that must differ between databases, drawn again for a
 * database copied from the template (every copy would otherwise share the template's), keyed by
 * the migration that draws them: control.webhook_progress.webhooks_token keys the webhook lists a
 * process keeps (0012).
 */
const REDRAWN_PER_DATABASE: readonly { version: number; sql: string }[] = [
  {
    version: 12,
    sql: "UPDATE control.webhook_progress SET webhooks_token = md5(random()::text || clock_timestamp()::text)",
  },
];

/** A copy's built-in subgraphs were deployed when the database was created, not when the template was built. */
const REDRAW_SUBGRAPH_TIMES =
  "UPDATE control.subgraphs SET deployed_at = now(), updated_at = now() WHERE kind = 'builtin'";

/** Pure: the statements that redraw the per-database values of what a template holds. */
export function redrawSql(manifest: Pick<TemplateManifest, "migrations" | "subgraphs">): string[] {
  const held = new Set(manifest.migrations.map((m) => m.version));
  const sql = REDRAWN_PER_DATABASE.filter((r) => held.has(r.version)).map((r) => r.sql);
  if (manifest.subgraphs?.length) sql.push(REDRAW_SUBGRAPH_TIMES);
  return sql;
}
