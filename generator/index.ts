/**
 * The generator's public surface (DESIGN.md §1: also used at run time by deploy): validate a
 * spec, build its model, emit its artifacts in memory, and the disk/CLI edges.
 */
export { buildModel } from "./build-model.js";
export { registerGeneratorCommands } from "./commands.js";
export { emitClient } from "./emit-client.js";
export { buildDescriptor, emitDescriptor } from "./emit-descriptor.js";
export { emitMigration } from "./emit-migration.js";
export { buildOpenApi, emitOpenApi } from "./emit-openapi.js";
export { emitRoutes } from "./emit-routes.js";
export { type GenerateResult, generate, generateSubgraph, modelSpec, type SpecInput } from "./generate.js";
export { type LoadedSpec, loadSpec } from "./load-spec.js";
export type { SubgraphModel, TableModel } from "./model.js";
export { canonicalJson, schemaHash } from "./schema-hash.js";
export { formatSpecError, type SpecError, SpecValidationError } from "./spec-error.js";
export { buildTableMeta } from "./table-meta.js";
export { checkGenerated, writeGenerated } from "./write.js";
