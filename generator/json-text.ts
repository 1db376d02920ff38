/**
 * Stable, reviewable JSON text for generated artifacts: two-space indentation like
 * JSON.stringify, but arrays of scalars that fit stay on one line. LF, trailing newline.
 */
const INLINE_WIDTH = 80;

export function jsonText(value: unknown): string {
  return `${render(value, "")}\n`;
}

function render(value: unknown, indent: string): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    if (text === undefined) throw new Error(`jsonText: cannot encode ${typeof value}`);
    return text;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const inline = inlineArray(value);
    if (inline !== undefined && inline.length + indent.length <= INLINE_WIDTH) return inline;
    return `[\n${value.map((item) => inner + render(item, inner)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([key, v]) => `${inner}${JSON.stringify(key)}: ${render(v, inner)}`).join(",\n")}\n${indent}}`;
}

/** `["a", "b"]` or `[["a"], ["b", "c"]]`: scalars, or arrays of scalars. */
function inlineArray(items: readonly unknown[]): string | undefined {
  const parts: string[] = [];
  for (const item of items) {
    if (Array.isArray(item)) {
      if (item.some((inner) => inner !== null && typeof inner === "object")) return undefined;
      parts.push(`[${item.map((inner) => JSON.stringify(inner)).join(", ")}]`);
    } else if (item !== null && typeof item === "object") {
      return undefined;
    } else {
      parts.push(JSON.stringify(item));
    }
  }
  return `[${parts.join(", ")}]`;
}
