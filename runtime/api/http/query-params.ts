/**
 * Query-string validation shared by the read routes (SPEC.md "List and count query parameters",
 * "Errors"): unknown parameters are a 400 naming the closest valid one, the bare list aliases
 * (`limit`, `order`, `sort`) and `_offset` are refused with a pointer to the right name, repeated
 * parameters are a 400, and integers are range-checked, never clamped. All functions are pure.
 */
import { badRequest } from "../../internal/errors.js";

/** `req.query` under Express's simple parser: string or string[] values (objects tolerated). */
export type QueryInput = Readonly<Record<string, unknown>>;

/**
 * The closest name in `valid`, or undefined when none is close enough. Comparison ignores case
 * and leading underscores (so `limit` finds `_limit`), counts an adjacent swap as one edit, and
 * allows about one edit per three characters.
 */
export function didYouMean(unknown: string, valid: readonly string[]): string | undefined {
  const needle = unknown.toLowerCase();
  const bare = stripUnderscores(needle);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of valid) {
    const lower = candidate.toLowerCase();
    const candidateBare = stripUnderscores(lower);
    const longest = Math.max(bare.length, candidateBare.length);
    const threshold = Math.max(1, Math.floor(longest / 3));
    const distance = Math.min(editDistance(needle, lower, threshold), editDistance(bare, candidateBare, threshold));
    // `distance < longest`: replacing every character is not a suggestion ("a" is not "b").
    if (distance <= threshold && distance < longest && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

const stripUnderscores = (s: string) => s.replace(/^_+/, "");

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions). Returns
 * `limit + 1` early when the lengths alone rule a match out, so long inputs stay cheap.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1);
      rows[i][j] = d;
    }
  }
  return rows[a.length][b.length];
}

/**
 * SPEC.md: "Rejected with 400: `_offset`; bare `limit`, `order`, `sort`" on subgraph table list,
 * count and aggregate routes. Maps the refused name to the one to use instead. (Index and Streams
 * routes do take a bare `limit`; they do not use this map.)
 */
export const LIST_PARAM_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  limit: "_limit",
  order: "_order",
  sort: "_sort",
  _offset: "cursor",
  offset: "cursor",
});

export interface ParamRules {
  /** Accepts names computed per request (e.g. `<column>.gte` filters) besides `valid`. */
  accept?: (name: string) => boolean;
  /** Names refused with a pointer to the right one (400 INVALID_PARAMETER), e.g. LIST_PARAM_ALIASES. */
  aliases?: Readonly<Record<string, string>>;
  /** Further names offered as suggestions, e.g. every filter key of the table. */
  suggestions?: readonly string[];
  /** Names that may be repeated (`?a=1&a=2`); any other repeated name is a 400. */
  repeatable?: readonly string[];
  /** Names this route does not take but a sibling route does: name → the routes that take it. */
  otherRoutes?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Throws a 400 for the first parameter that is an alias (INVALID_PARAMETER), unknown
 * (UNKNOWN_PARAMETER, with a suggestion when one is close) or repeated (INVALID_PARAMETER).
 */
export function rejectUnknownParams(query: QueryInput, valid: readonly string[], rules: ParamRules = {}): void {
  for (const [name, value] of Object.entries(query)) {
    if (rules.aliases) rejectAlias(name, rules.aliases);
    if (!valid.includes(name) && !rules.accept?.(name)) {
      const routes = rules.otherRoutes && Object.hasOwn(rules.otherRoutes, name) ? rules.otherRoutes[name] : undefined;
      if (routes) {
        throw badRequest(
          "UNKNOWN_PARAMETER",
          `query parameter ${JSON.stringify(name)} is not taken by this route; ${routes.join(" and ")} ${routes.length > 1 ? "take" : "takes"} it`,
          { parameter: name, suggestion: null, acceptedBy: [...routes] },
        );
      }
      const suggestion = didYouMean(name, rules.suggestions ? [...valid, ...rules.suggestions] : valid);
      throw badRequest(
        "UNKNOWN_PARAMETER",
        `unknown query parameter ${JSON.stringify(name)}${suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : ""}`,
        { parameter: name, suggestion: suggestion ?? null },
      );
    }
    if (!rules.repeatable?.includes(name)) singleParam(name, value);
  }
}

/** Only the list rule: refuses `_offset` and bare `limit`/`order`/`sort`, naming the right one. */
export function rejectListAliases(query: QueryInput): void {
  for (const name of Object.keys(query)) rejectAlias(name, LIST_PARAM_ALIASES);
}

/** Throws when `name` is a refused alias (`_offset`, bare `limit`/`order`/`sort`), naming the right one. */
export function rejectAlias(name: string, aliases: Readonly<Record<string, string>> = LIST_PARAM_ALIASES): void {
  if (!Object.hasOwn(aliases, name)) return;
  const use = aliases[name];
  const why = use === "cursor" ? "pagination is by keyset: pass back next_cursor as" : "use";
  throw badRequest(
    "INVALID_PARAMETER",
    `query parameter ${JSON.stringify(name)} is not accepted here; ${why} ${JSON.stringify(use)}`,
    {
      parameter: name,
      use,
    },
  );
}

/** The one string value of a parameter; undefined when absent; 400 when repeated or structured. */
export function singleParam(name: string, raw: unknown): string | undefined {
  if (raw === undefined || typeof raw === "string") return raw;
  const message = Array.isArray(raw)
    ? `query parameter ${JSON.stringify(name)} was given more than once`
    : `query parameter ${JSON.stringify(name)} must be a single value`;
  throw badRequest("INVALID_PARAMETER", message, { parameter: name });
}

export interface IntegerRange {
  min?: number;
  max?: number;
}

/**
 * Parses a decimal integer parameter. Absent → `default`; anything else that is not an integer
 * within [min, max] (including "", "1.5", "1e3", "+3") → 400 INVALID_PARAMETER. Never clamps.
 */
export function parseIntegerParam(name: string, raw: unknown, options: IntegerRange & { default: number }): number;
export function parseIntegerParam(
  name: string,
  raw: unknown,
  options?: IntegerRange & { default?: number },
): number | undefined;
export function parseIntegerParam(
  name: string,
  raw: unknown,
  options: IntegerRange & { default?: number } = {},
): number | undefined {
  const value = singleParam(name, raw);
  if (value === undefined) return options.default;
  const min = options.min ?? Number.MIN_SAFE_INTEGER;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const n = /^-?\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isSafeInteger(n) && n >= min && n <= max) return n === 0 ? 0 : n; // "-0" → 0
  throw badRequest(
    "INVALID_PARAMETER",
    `query parameter ${JSON.stringify(name)} must be ${describeRange(options)}; got ${JSON.stringify(value)}`,
    {
      parameter: name,
      value,
      ...(options.min !== undefined ? { min: options.min } : {}),
      ...(options.max !== undefined ? { max: options.max } : {}),
    },
  );
}

function describeRange({ min, max }: IntegerRange): string {
  if (min !== undefined && max !== undefined) return `an integer from ${min} to ${max}`;
  if (min !== undefined) return `an integer of at least ${min}`;
  if (max !== undefined) return `an integer of at most ${max}`;
  return "an integer";
}

/** Parses a parameter restricted to a fixed set (e.g. `_order` asc|desc); 400 INVALID_PARAMETER otherwise. */
export function parseEnumParam<T extends string>(name: string, raw: unknown, allowed: readonly T[], fallback: T): T {
  const value = singleParam(name, raw);
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw badRequest(
    "INVALID_PARAMETER",
    `query parameter ${JSON.stringify(name)} must be one of: ${allowed.join(", ")}; got ${JSON.stringify(value)}`,
    {
      parameter: name,
      value,
      allowed: [...allowed],
    },
  );
}
