/** Collects SpecErrors at spec paths (STYLE.md: collect every error before failing). */
import { dottedPath, type SpecError } from "./spec-error.js";
import type { SpecPath, YamlSource } from "./yaml-source.js";

export interface Reporter {
  /** An error at the key or value found at `path`. */
  at(path: SpecPath, message: string, target?: "key" | "value"): void;
  /** An error at character `offset` of the string value at `path` (inside an expression). */
  inString(path: SpecPath, offset: number, message: string): void;
  readonly errors: readonly SpecError[];
}

export function createReporter(source: YamlSource): Reporter {
  const errors: SpecError[] = [];
  return {
    errors,
    at(path, message, target = "value") {
      errors.push({ file: source.file, ...source.locate(path, target), path: dottedPath(path), message });
    },
    inString(path, offset, message) {
      errors.push({ file: source.file, ...source.locateInString(path, offset), path: dottedPath(path), message });
    },
  };
}
