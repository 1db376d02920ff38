/**
 * The TypeScript source of the small pure helpers compiled handlers call (DESIGN.md §3 functions,
 * lossless decimals). They are inlined into each generated routes.ts — only those it uses — so a
 * generated module depends on nothing but runtime/subgraphs/types.ts.
 */

interface HelperSource {
  readonly name: string;
  readonly requires: readonly string[];
  readonly code: string;
}

/** In emission order; a helper only requires helpers listed before it. */
const HELPERS: readonly HelperSource[] = [
  {
    name: "valueAt",
    requires: [],
    code: `/** Reads a field path from decoded data; null when any step is missing. */
function valueAt(value: unknown, ...keys: string[]): unknown {
  let current: unknown = value;
  for (const key of keys) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return null;
    current = (current as Record<string, unknown>)[key];
  }
  return current ?? null;
}`,
  },
  {
    name: "toText",
    requires: [],
    code: `/** to_string(): null stays null, objects become JSON text. */
function toText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}`,
  },
  {
    name: "asDecimal",
    requires: [],
    code: `/** The decimal text of a number-like value, or null when it is not one. */
function asDecimal(value: unknown): string | null {
  if (typeof value === "bigint") return String(value);
  if (typeof value === "number") return Number.isSafeInteger(value) ? String(value) : null;
  return typeof value === "string" && /^-?\\d+(\\.\\d+)?$/.test(value) ? value : null;
}`,
  },
  {
    name: "compareDecimals",
    requires: [],
    code: `/** Orders two decimal strings exactly (BigInt on a common scale). */
function compareDecimals(left: string, right: string): number {
  const scale = Math.max(left.split(".")[1]?.length ?? 0, right.split(".")[1]?.length ?? 0);
  const scaled = (text: string): bigint => {
    const negative = text.startsWith("-");
    const [whole, fraction = ""] = (negative ? text.slice(1) : text).split(".");
    const magnitude = BigInt(whole + fraction.padEnd(scale, "0"));
    return negative ? -magnitude : magnitude;
  };
  const a = scaled(left);
  const b = scaled(right);
  return a === b ? 0 : a < b ? -1 : 1;
}`,
  },
  {
    name: "negate",
    requires: [],
    code: `/** Unary minus on a decimal, by flipping the sign text: never through a float. */
function negate(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  if (!/^-?\\d+(\\.\\d+)?$/.test(text)) throw new Error(\`cannot negate non-decimal value \${text}\`);
  if (/^-?0+(\\.0+)?$/.test(text)) return text.replace("-", "");
  return text.startsWith("-") ? text.slice(1) : \`-\${text}\`;
}`,
  },
  {
    name: "addValues",
    requires: ["asDecimal"],
    code: `/** add(): the exact sum of two decimals at the larger scale (as NUMERIC adds); null when either is null. */
function addValues(left: unknown, right: unknown): string | null {
  if (left === null || left === undefined || right === null || right === undefined) return null;
  const a = asDecimal(left);
  const b = asDecimal(right);
  if (a === null || b === null) {
    throw new Error(\`add() needs decimal numbers, got \${JSON.stringify(a === null ? left : right)}\`);
  }
  const scale = Math.max(a.split(".")[1]?.length ?? 0, b.split(".")[1]?.length ?? 0);
  const scaled = (text: string): bigint => {
    const negative = text.startsWith("-");
    const [whole, fraction = ""] = (negative ? text.slice(1) : text).split(".");
    const magnitude = BigInt(whole + fraction.padEnd(scale, "0"));
    return negative ? -magnitude : magnitude;
  };
  const sum = scaled(a) + scaled(b);
  const digits = (sum < 0n ? -sum : sum).toString().padStart(scale + 1, "0");
  const text = scale === 0 ? digits : \`\${digits.slice(0, -scale)}.\${digits.slice(-scale)}\`;
  return sum < 0n ? \`-\${text}\` : text;
}`,
  },
  {
    name: "decimalDelta",
    requires: [],
    code: `/** An increment delta as a decimal string (null adds nothing). */
function decimalDelta(value: unknown): string {
  if (value === null || value === undefined) return "0";
  const text = String(value);
  if (!/^-?\\d+(\\.\\d+)?$/.test(text)) throw new Error(\`increment by non-decimal value \${text}\`);
  return text;
}`,
  },
  {
    name: "concatText",
    requires: ["toText"],
    code: `/** concat(): joins the text of every part; null parts add nothing. */
function concatText(...parts: unknown[]): string {
  return parts.map((part) => toText(part) ?? "").join("");
}`,
  },
  {
    name: "lowerText",
    requires: ["toText"],
    code: `function lowerText(value: unknown): string | null {
  return toText(value)?.toLowerCase() ?? null;
}`,
  },
  {
    name: "upperText",
    requires: ["toText"],
    code: `function upperText(value: unknown): string | null {
  return toText(value)?.toUpperCase() ?? null;
}`,
  },
  {
    name: "coalesceValues",
    requires: [],
    code: `/** coalesce(): the first value that is not null. */
function coalesceValues(...values: unknown[]): unknown {
  return values.find((value) => value !== null && value !== undefined) ?? null;
}`,
  },
  {
    name: "buffToUtf8",
    requires: ["toText"],
    code: `/** buff_to_utf8(): 0x-hex bytes as UTF-8 text; other values pass through as text. */
function buffToUtf8(value: unknown): string | null {
  if (typeof value !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(value)) return toText(value);
  const bytes = new Uint8Array((value.length - 2) / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(value.slice(2 + 2 * i, 4 + 2 * i), 16);
  return new TextDecoder().decode(bytes);
}`,
  },
  {
    name: "splitPart",
    requires: ["toText"],
    code: `/** split_part(): the 1-based field (negative counts from the end), "" when out of range. */
function splitPart(value: unknown, delimiter: unknown, position: unknown): string | null {
  const text = toText(value);
  const separator = toText(delimiter);
  if (text === null || separator === null) return null;
  const parts = separator === "" ? [text] : text.split(separator);
  const index = Number(position);
  const at = index < 0 ? parts.length + index : index - 1;
  return Number.isInteger(index) && index !== 0 && at >= 0 && at < parts.length ? parts[at] : "";
}`,
  },
  {
    name: "toTimestamp",
    requires: [],
    code: `/** to_timestamp(): unix seconds as an ISO 8601 timestamp. */
function toTimestamp(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const seconds = Number(value);
  if (!Number.isFinite(seconds)) throw new Error(\`not a unix time: \${String(value)}\`);
  return new Date(seconds * 1000).toISOString();
}`,
  },
  {
    name: "equalValues",
    requires: ["asDecimal", "compareDecimals"],
    code: `/** ==: numbers compare exactly as decimals, everything else strictly; null equals null. */
function equalValues(left: unknown, right: unknown): boolean {
  const a = asDecimal(left);
  const b = asDecimal(right);
  if (a !== null && b !== null) return compareDecimals(a, b) === 0;
  return (left ?? null) === (right ?? null);
}`,
  },
  {
    name: "compareValues",
    requires: ["asDecimal", "compareDecimals"],
    code: `/** <, <=, >, >=: decimals numerically, text by code units; false when either side is null. */
function compareValues(left: unknown, right: unknown, op: "<" | "<=" | ">" | ">="): boolean {
  if (left === null || left === undefined || right === null || right === undefined) return false;
  const a = asDecimal(left);
  const b = asDecimal(right);
  let order: number;
  if (a !== null && b !== null) order = compareDecimals(a, b);
  else if (typeof left === "string" && typeof right === "string") order = left < right ? -1 : left > right ? 1 : 0;
  else return false;
  if (op === "<") return order < 0;
  if (op === "<=") return order <= 0;
  if (op === ">") return order > 0;
  return order >= 0;
}`,
  },
];

/** The helpers' source, in a fixed order, for `used` and everything they require. */
export function helperSources(used: ReadonlySet<string>): string[] {
  const needed = new Set<string>();
  const add = (name: string) => {
    if (needed.has(name)) return;
    const helper = HELPERS.find((h) => h.name === name);
    if (helper === undefined) throw new Error(`unknown helper ${name}`);
    needed.add(name);
    for (const dependency of helper.requires) add(dependency);
  };
  for (const name of used) add(name);
  return HELPERS.filter((helper) => needed.has(helper.name)).map((helper) => helper.code);
}
