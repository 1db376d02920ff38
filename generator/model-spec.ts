/**
 * Spec text → validated model (load → model, STYLE.md "Generator"), without the emitters: the
 * service validates deployed specs with this, and importing it does not load ts-morph or
 * openapi-typescript (a second or more of start-up for every CLI command).
 */
import { buildModel } from "./build-model.js";
import { loadSpec } from "./load-spec.js";
import type { SubgraphModel } from "./model.js";
import type { SpecError } from "./spec-error.js";

/** One spec's text and the file name its errors and headers show. */
export interface SpecInput {
  file: string;
  text: string;
}

/** Validates and models one spec. */
export function modelSpec(input: SpecInput): { ok: true; model: SubgraphModel } | { ok: false; errors: SpecError[] } {
  const loaded = loadSpec(input.text, input.file);
  return loaded.ok ? buildModel(loaded.loaded) : loaded;
}
