/**
 * generate: specs → the complete generated/ tree as a Map of relative path → contents
 * (STYLE.md "Generator: a pure pipeline with files written at the edge"; sqlc's Generate).
 * Never touches the disk; deterministic — same specs in, same bytes out.
 */
import { emitClient } from "./emit-client.js";
import { emitDescriptor } from "./emit-descriptor.js";
import { emitIndex } from "./emit-index.js";
import { emitMigration } from "./emit-migration.js";
import { emitOpenApi } from "./emit-openapi.js";
import { emitRoutes } from "./emit-routes.js";
import { emitServiceOpenApi, emitServiceTypes } from "./emit-service.js";
import { modelSpec, type SpecInput } from "./model-spec.js";
import type { SubgraphModel } from "./model.js";
import { type SpecError, sortSpecErrors } from "./spec-error.js";

export type { SpecInput } from "./model-spec.js";
export { modelSpec } from "./model-spec.js";

export type GenerateResult = { ok: true; files: Map<string, string> } | { ok: false; errors: SpecError[] };

/** The artifacts of one subgraph, keyed `<name>/<artifact>`. */
export async function generateSubgraph(model: SubgraphModel): Promise<Map<string, string>> {
  const dir = model.name;
  return new Map([
    [`${dir}/client.ts`, await emitClient(model)],
    [`${dir}/descriptor.json`, emitDescriptor(model)],
    [`${dir}/migration.sql`, emitMigration(model)],
    [`${dir}/openapi.json`, emitOpenApi(model)],
    [`${dir}/routes.ts`, emitRoutes(model)],
  ]);
}

/** Every spec → the whole generated/ tree (plus index.ts), or every error of every spec. */
export async function generate(inputs: readonly SpecInput[]): Promise<GenerateResult> {
  const errors: SpecError[] = [];
  const models: SubgraphModel[] = [];
  for (const input of inputs) {
    const result = modelSpec(input);
    if (!result.ok) {
      errors.push(...result.errors);
      continue;
    }
    const clash = models.find((m) => m.pgSchema === result.model.pgSchema);
    if (clash === undefined) models.push(result.model);
    else errors.push(nameClash(input, result.model, clash));
  }
  if (errors.length > 0) return { ok: false, errors: sortSpecErrors(errors) };
  models.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files = new Map<string, string>();
  for (const model of models) {
    for (const [path, contents] of await generateSubgraph(model)) files.set(path, contents);
  }
  files.set("index.ts", emitIndex(models.map((m) => m.name)));
  // The service's own API (top-level files: no subgraph directory can take their names).
  files.set("service-openapi.json", emitServiceOpenApi());
  files.set("service-api.ts", await emitServiceTypes());
  return { ok: true, files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
}

/** Two specs whose names give one PostgreSQL schema (the same name, or names differing in - and _). */
function nameClash(input: SpecInput, model: SubgraphModel, clash: SubgraphModel): SpecError {
  const line = input.text.split("\n").findIndex((text) => /^name\s*:/.test(text)) + 1;
  return {
    file: input.file,
    line: Math.max(line, 1),
    col: 1,
    path: "name",
    message:
      clash.name === model.name
        ? `subgraph name "${model.name}" is already used by another spec`
        : `subgraph name "${model.name}" maps to the PostgreSQL schema ${model.pgSchema} of "${clash.name}" (- and _ both become _); rename one`,
  };
}
