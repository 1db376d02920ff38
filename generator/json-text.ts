/**
 * Stable, reviewable JSON text for generated artifacts: two-space indentation; objects always
 * expanded; an array of scalars (or of short scalar arrays) stays on one line when the whole line
 * fits in 120 columns — the layout Biome's JSON formatter settles on, so golden copies pass lint.
 * LF, trailing newline.
 */
const LINE_WIDTH = 120;

export function jsonText(value: unknown): string {
  return `${render(value, "", "", "")}\n`;
}

/** `prefix` is `"key": ` (or ""), `suffix` the "," that follows on the same line (or ""). */
function render(value: unknown, indent: string, prefix: string, suffix: string): string {
  if (value === null || typeof value !== "object") return scalar(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const inline = inlineArray(value);
    if (inline !== undefined && indent.length + prefix.length + inline.length + suffix.length <= LINE_WIDTH)
      return inline;
    const items = value.map((item, i) => inner + render(item, inner, "", i < value.length - 1 ? "," : ""));
    return `[\n${items.join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  const lines = entries.map(([key, v], i) => {
    const keyText = `${JSON.stringify(key)}: `;
    return `${inner}${keyText}${render(v, inner, keyText, i < entries.length - 1 ? "," : "")}`;
  });
  return `{\n${lines.join(",\n")}\n${indent}}`;
}

function scalar(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error(`jsonText: cannot encode ${typeof value}`);
  return text;
}

/**
 * `["a", "b"]` or `[["a"], ["b", "c"]]`; undefined when the array holds objects, or (as Biome
 * and Prettier decide) several arrays that each hold more than one item.
 */
function inlineArray(items: readonly unknown[]): string | undefined {
  const nested = items.filter((item) => Array.isArray(item));
  if (items.length > 1 && nested.length === items.length && nested.every((item) => (item as unknown[]).length > 1)) {
    return undefined;
  }
  const parts: string[] = [];
  for (const item of items) {
    if (Array.isArray(item)) {
      if (item.some((inner) => inner !== null && typeof inner === "object")) return undefined;
      parts.push(`[${item.map(scalar).join(", ")}]`);
    } else if (item !== null && typeof item === "object") {
      return undefined;
    } else {
      parts.push(scalar(item));
    }
  }
  return `[${parts.join(", ")}]`;
}
