/**
 * Turns ajv errors against specs/spec.schema.json into SpecErrors that say what is expected
 * (STYLE.md "Generator": nearest valid name, file:line:col). The schema's `x-name` and
 * `x-expected` annotations supply the wording.
 */
import type { ErrorObject } from "ajv";
import { dottedPath, type SpecError } from "./spec-error.js";
import { didYouMean } from "./suggest.js";
import type { SpecPath, YamlSource } from "./yaml-source.js";

interface Annotated {
  "x-name"?: string;
  "x-expected"?: string;
  properties?: Record<string, unknown>;
}

/** SpecErrors for ajv's errors (run with allErrors and verbose), deduplicated. */
export function schemaErrorsToSpecErrors(errors: readonly ErrorObject[], source: YamlSource): SpecError[] {
  const result: SpecError[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const translated = translate(error);
    if (translated === null) continue;
    const key = `${dottedPath(translated.path)}|${translated.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const position = source.locate(translated.path, translated.target);
    result.push({ file: source.file, ...position, path: dottedPath(translated.path), message: translated.message });
  }
  return result;
}

interface Translated {
  path: SpecPath;
  target: "key" | "value";
  message: string;
}

function translate(error: ErrorObject): Translated | null {
  const path = pointerToPath(error.instancePath);
  const parent = (error.parentSchema ?? {}) as Annotated;
  const name = parent["x-name"];
  switch (error.keyword) {
    case "if":
    case "propertyNames":
      return null;
    case "additionalProperties": {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      const allowed = Object.keys(parent.properties ?? {});
      if (name?.startsWith("source type ")) {
        const fields = allowed.filter((field) => field !== "type");
        return {
          path: [...path, key],
          target: "key",
          message: `field "${key}" is not allowed for ${name} (allowed: ${fields.join(", ")})${didYouMean(key, fields)}`,
        };
      }
      const suggestion = didYouMean(key, allowed);
      const expected = suggestion !== "" ? suggestion : ` (expected one of: ${allowed.join(", ")})`;
      return {
        path: [...path, key],
        target: "key",
        message: `unknown key "${key}" in ${context(name, path)}${expected}`,
      };
    }
    case "required": {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      return { path, target: "value", message: `${context(name, path)} is missing the required key "${missing}"` };
    }
    case "enum": {
      const allowed = (error.schema as unknown[]).map(String);
      const value = String(error.data);
      const what = name ?? dottedPath(path);
      return {
        path,
        target: "value",
        message: `unknown ${what} "${value}"${didYouMean(value, allowed)}; expected one of: ${allowed.join(", ")}`,
      };
    }
    case "not":
      return { path, target: "value", message: `expected ${parent["x-expected"] ?? "something else"}` };
    case "minProperties":
    case "minItems":
      return { path, target: "value", message: `${dottedPath(path)} must not be empty` };
    case "maxProperties":
    case "maxItems": {
      const count = error.data !== null && typeof error.data === "object" ? Object.keys(error.data).length : 0;
      const limit = (error.params as { limit: number }).limit;
      return {
        path,
        target: "value",
        message: `${dottedPath(path)} has ${count} entries; at most ${limit} are allowed`,
      };
    }
    case "uniqueItems":
      return { path, target: "value", message: `${dottedPath(path)} lists the same item twice` };
  }
  if (error.propertyName !== undefined) {
    const key = error.propertyName;
    return {
      path: [...path, key],
      target: "key",
      message: `invalid ${name ?? "name"} "${key}": expected ${parent["x-expected"] ?? error.message}`,
    };
  }
  if (parent["x-expected"] !== undefined) {
    return {
      path,
      target: "value",
      message: `invalid ${name ?? dottedPath(path)} ${JSON.stringify(error.data)}: expected ${parent["x-expected"]}`,
    };
  }
  if (error.keyword === "type") {
    const expected = [(error.params as { type: string | string[] }).type].flat().map(typeWord).join(" or ");
    return { path, target: "value", message: `${dottedPath(path)} must be ${expected}, got ${valueWord(error.data)}` };
  }
  return { path, target: "value", message: `${dottedPath(path) || "spec"} ${error.message ?? "is invalid"}` };
}

/** `column "amount"`, `table "holdings"`, `the spec`, … */
function context(name: string | undefined, path: SpecPath): string {
  const last = path[path.length - 1];
  switch (name) {
    case undefined:
      return dottedPath(path) || "the spec";
    case "spec":
      return "the spec";
    case "table":
    case "column":
    case "source":
      return `${name} "${String(last)}"`;
    default:
      return `the ${name} at ${dottedPath(path)}`;
  }
}

function typeWord(type: string): string {
  switch (type) {
    case "object":
      return "a mapping";
    case "array":
      return "a list";
    case "string":
      return "text";
    case "integer":
      return "an integer";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    default:
      return type;
  }
}

function valueWord(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return JSON.stringify(value);
}

function pointerToPath(pointer: string): (string | number)[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}
