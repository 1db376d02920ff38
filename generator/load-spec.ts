/**
 * loadSpec: YAML text → a schema-valid RawSpec, or every error found (STYLE.md "Generator",
 * step 1 of load → model → emit). Validates against specs/spec.schema.json with ajv.
 */
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import { triggerTypeName } from "../runtime/chain/event-type-names.js";
import addFormatsModule from "ajv-formats";
import { SPEC_SCHEMA_FILE } from "./repo-paths.js";
import { schemaErrorsToSpecErrors } from "./schema-messages.js";
import { type SpecError, sortSpecErrors } from "./spec-error.js";
import type { RawSpec } from "./spec-types.js";
import { parseYamlSource, type YamlSource } from "./yaml-source.js";

export interface LoadedSpec {
  /** The file name errors and generated headers show (e.g. `specs/bns-names.yaml`). */
  readonly file: string;
  readonly spec: RawSpec;
  readonly source: YamlSource;
}

export type LoadResult = { ok: true; loaded: LoadedSpec } | { ok: false; errors: SpecError[] };

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;

let validator: ValidateFunction | undefined;

/** The compiled validator for specs/spec.schema.json (compiled once). */
function specValidator(): ValidateFunction {
  if (validator === undefined) {
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictTypes: false, strictRequired: false });
    ajv.addVocabulary(["x-name", "x-expected"]);
    addFormats(ajv);
    validator = ajv.compile(JSON.parse(readFileSync(SPEC_SCHEMA_FILE, "utf8")));
  }
  return validator;
}

/** Parses and validates one spec; `file` is the name shown in errors. */
export function loadSpec(text: string, file: string): LoadResult {
  const source = parseYamlSource(text, file);
  if (source.syntaxErrors.length > 0) return { ok: false, errors: sortSpecErrors(source.syntaxErrors) };
  normalizeSourceTypes(source.value);
  const validate = specValidator();
  if (!validate(source.value)) {
    return { ok: false, errors: sortSpecErrors(schemaErrorsToSpecErrors(validate.errors ?? [], source)) };
  }
  return { ok: true, loaded: { file, spec: source.value as RawSpec, source } };
}

/**
 * Spec sources accept any name of an event type (`print`, `contract_event`): each becomes its
 * source name (`print_event`) before validation, so the model and the schemaHash see one name.
 */
function normalizeSourceTypes(value: unknown): void {
  if (!isObject(value) || !isObject(value.sources)) return;
  for (const source of Object.values(value.sources)) {
    if (isObject(source) && typeof source.type === "string") source.type = triggerTypeName(source.type);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
