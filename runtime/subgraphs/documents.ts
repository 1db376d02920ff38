/**
 * The generated documents of a loaded subgraph (SPEC.md "Subgraph descriptor", Versioning 3),
 * before the API adds this instance's live values: built-ins read generated/<name>/ (committed
 * output of `make generate`); a subgraph deployed at run time is modelled from its spec text by
 * the same entry point that loaded it (module-loader.ts) and emitted by the generator's document
 * emitters. A document is used only when it describes the running module (same version and
 * schemaHash); parsed documents are cached per name, version and schemaHash.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { buildDescriptor } from "../../generator/emit-descriptor.js";
import { buildOpenApi } from "../../generator/emit-openapi.js";
import { GENERATED_DIR } from "../../generator/repo-paths.js";
import { type ModuleSource, modelDeployedSpec } from "./module-loader.js";
import type { SubgraphModule } from "./types.js";

export type DocumentKind = "descriptor" | "openapi";
export type JsonDocument = Record<string, unknown>;

const cache = new Map<string, JsonDocument>();

/** The generated document of a loaded subgraph, or null when none describes it. */
export function subgraphDocument(source: ModuleSource, kind: DocumentKind): JsonDocument | null {
  const { module } = source;
  const key = `${module.name}\u0000${module.version}\u0000${module.schemaHash}\u0000${kind}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const doc = fromGeneratedFile(module, kind) ?? fromSpecText(source, kind);
  if (doc) cache.set(key, doc);
  return doc;
}

function describes(module: SubgraphModule, kind: DocumentKind, doc: JsonDocument): boolean {
  if (kind === "descriptor") return doc.schemaHash === module.schemaHash && doc.version === module.version;
  const info = doc.info as JsonDocument | undefined;
  return doc["x-subgraph-schema-hash"] === module.schemaHash && info?.version === module.version;
}

function fromGeneratedFile(module: SubgraphModule, kind: DocumentKind): JsonDocument | null {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(module.name)) return null;
  const file = path.join(GENERATED_DIR, module.name, `${kind}.json`);
  if (!existsSync(file)) return null;
  const doc = JSON.parse(readFileSync(file, "utf8")) as JsonDocument;
  return describes(module, kind, doc) ? doc : null;
}

function fromSpecText(source: ModuleSource, kind: DocumentKind): JsonDocument | null {
  if (!source.specText) return null;
  const modelled = modelDeployedSpec(source.specText, source.specFormat ?? "yaml");
  if (!modelled.ok) return null;
  const doc = kind === "descriptor" ? buildDescriptor(modelled.model) : buildOpenApi(modelled.model);
  return describes(source.module, kind, doc) ? doc : null;
}
