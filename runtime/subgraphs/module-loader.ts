/**
 * Where subgraph modules come from (DESIGN.md §1): built-ins from generated/index.ts with their
 * committed migration.sql; specs deployed at run time through the same generator in-process —
 * validate and model the spec, emit its routes.ts and migration.sql, transpile routes.ts to
 * JavaScript with the TypeScript compiler bundled in ts-morph, write it to
 * `DATA_DIR/subgraphs/<name>/routes-<hash>.mjs` and import it. The executed handlers are the very
 * code `make generate` would commit for that spec, so a deployed subgraph behaves exactly like a
 * built-in one; the spec language is declarative, so there is no user code to sandbox.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { subgraphs as generatedSubgraphs } from "../../generated/index.js";
import { emitMigration } from "../../generator/emit-migration.js";
import { modelSpec } from "../../generator/model-spec.js";
import type { SubgraphModel } from "../../generator/model.js";
import { GENERATED_DIR, SPECS_DIR } from "../../generator/repo-paths.js";
import type { SpecError } from "../../generator/spec-error.js";
import type { SubgraphModule } from "./types.js";

export type SpecFormat = "yaml" | "json";

/** A module ready to run, with what the engine stores about it. */
export interface ModuleSource {
  module: SubgraphModule;
  kind: "builtin" | "deployed";
  /** Changes whenever the handlers or schema change (reload trigger across processes). */
  moduleHash: string;
  migrationSql: string;
  specText: string | null;
  specFormat: SpecFormat | null;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * The built-in subgraphs: the one place production code takes them from generated/index.ts. The
 * ingest wiring and the standalone dispatcher hand them to whatever needs them.
 */
export const builtinSubgraphs: readonly SubgraphModule[] = generatedSubgraphs;

/** Built-in subgraphs (default: those of generated/index.ts) with their migrations. */
export function builtinSources(modules: readonly SubgraphModule[] = builtinSubgraphs): ModuleSource[] {
  return modules.map((module) => {
    const dir = path.join(GENERATED_DIR, module.name);
    const migrationSql = readFileSync(path.join(dir, "migration.sql"), "utf8");
    const routesFile = path.join(dir, "routes.ts");
    const routes = existsSync(routesFile) ? readFileSync(routesFile, "utf8") : `${module.version}:${module.schemaHash}`;
    const specFile = path.join(SPECS_DIR, `${module.name}.yaml`);
    return {
      module,
      kind: "builtin" as const,
      moduleHash: sha256(`${routes}\n${migrationSql}`),
      migrationSql,
      specText: existsSync(specFile) ? readFileSync(specFile, "utf8") : null,
      specFormat: existsSync(specFile) ? ("yaml" as const) : null,
    };
  });
}

/** The file name spec errors of a deployed spec show. */
export function specFileName(format: SpecFormat): string {
  return format === "json" ? "request.json" : "request.yaml";
}

/** Validates and models a spec; every error with its location, or the model. */
export function modelDeployedSpec(
  text: string,
  format: SpecFormat,
): { ok: true; model: SubgraphModel } | { ok: false; errors: SpecError[] } {
  return modelSpec({ file: specFileName(format), text });
}

/** Compiles a modelled spec into a running module (generated routes.ts → JS → import). */
export async function loadDeployedModule(
  model: SubgraphModel,
  specText: string,
  format: SpecFormat,
  dataDir: string,
): Promise<ModuleSource> {
  // Loaded on first deploy, not at start-up (ts-morph is large).
  const [{ emitRoutes }, { ts }] = await Promise.all([import("../../generator/emit-routes.js"), import("ts-morph")]);
  const routes = emitRoutes(model);
  const migrationSql = emitMigration(model);
  const moduleHash = sha256(`${format}\n${specText}`);
  const js = ts.transpileModule(routes, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false },
    fileName: "routes.ts",
  }).outputText;
  const dir = path.resolve(dataDir, "subgraphs", model.name);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `routes-${moduleHash.slice(0, 16)}.mjs`);
  if (!existsSync(file) || readFileSync(file, "utf8") !== js) writeFileSync(file, js);
  const imported = (await import(pathToFileURL(file).href)) as { subgraph?: SubgraphModule };
  if (imported.subgraph === undefined) throw new Error(`compiled module of ${model.name} exports no subgraph`);
  return { module: imported.subgraph, kind: "deployed", moduleHash, migrationSql, specText, specFormat: format };
}

/** Loads a stored deployed spec (it validated when deployed; a failure here is a server problem). */
export async function loadStoredSpec(specText: string, format: SpecFormat, dataDir: string): Promise<ModuleSource> {
  const result = modelDeployedSpec(specText, format);
  if (!result.ok) {
    throw new Error(
      `stored spec no longer validates: ${result.errors.map((e) => `${e.line}:${e.col}: ${e.message}`).join("; ")}`,
    );
  }
  return loadDeployedModule(result.model, specText, format, dataDir);
}
