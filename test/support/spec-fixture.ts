/** Test helper: a SubgraphModel from inline YAML (throws with every error if it is invalid). */
import { modelSpec } from "../../generator/generate.js";
import type { SubgraphModel } from "../../generator/model.js";
import { formatSpecError } from "../../generator/spec-error.js";

export function modelFromYaml(text: string, file = "spec.yaml"): SubgraphModel {
  const result = modelSpec({ file, text });
  if (!result.ok) throw new Error(result.errors.map(formatSpecError).join("\n"));
  return result.model;
}

/** The errors of an invalid inline spec, printed. */
export function errorsOfYaml(text: string, file = "spec.yaml"): string[] {
  const result = modelSpec({ file, text });
  return result.ok ? [] : result.errors.map(formatSpecError);
}
