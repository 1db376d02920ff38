/**
 * Renders plain data as a TypeScript literal (STYLE.md: small helpers for the node shapes that
 * repeat): keys through tsKey, strings through tsString, order as given. Small flat objects and
 * arrays stay on one line.
 */
import { tsKey, tsString } from "./naming.js";

const INLINE_WIDTH = 90;

/** A TypeScript expression for `value` (objects, arrays, strings, numbers, booleans, null). */
export function tsLiteral(value: unknown, indent = ""): string {
  const inline = inlineLiteral(value, 0);
  if (inline !== undefined && inline.length <= INLINE_WIDTH) return inline;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((item) => `${inner}${tsLiteral(item, inner)},`).join("\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{\n${entries.map(([key, v]) => `${inner}${tsKey(key)}: ${tsLiteral(v, inner)},`).join("\n")}\n${indent}}`;
}

function scalarLiteral(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return tsString(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new Error(`tsLiteral: cannot render ${typeof value}`);
}

/** One-line form: scalars; arrays of one-line items; objects whose values are all scalars. */
function inlineLiteral(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value !== "object") return scalarLiteral(value);
  if (depth >= 2) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => inlineLiteral(item, depth + 1));
    return items.every((item) => item !== undefined) ? `[${items.join(", ")}]` : undefined;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  if (entries.some(([, v]) => v !== null && typeof v === "object")) return undefined;
  return `{ ${entries.map(([key, v]) => `${tsKey(key)}: ${scalarLiteral(v)}`).join(", ")} }`;
}

/** An object literal whose values are already TypeScript source. */
export function tsObject(entries: readonly (readonly [string, string])[], indent = ""): string {
  if (entries.length === 0) return "{}";
  const inner = `${indent}  `;
  return `{\n${entries.map(([key, code]) => `${inner}${tsKey(key)}: ${code},`).join("\n")}\n${indent}}`;
}
