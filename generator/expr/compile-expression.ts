/**
 * Expression nodes → TypeScript source for compiled handlers (DESIGN.md §3). Paths read the
 * HandlerContext `ctx`; decoded data is walked null-safely; numbers stay decimal strings.
 * Records every runtime helper it calls in `helpers`.
 */
import { tsString } from "../naming.js";
import { checkExpression } from "./check-expression.js";
import type { Expr } from "./nodes.js";

const FUNCTION_HELPERS: Readonly<Record<string, string>> = {
  concat: "concatText",
  lower: "lowerText",
  upper: "upperText",
  coalesce: "coalesceValues",
  buff_to_utf8: "buffToUtf8",
  split_part: "splitPart",
  to_string: "toText",
  to_timestamp: "toTimestamp",
  add: "addValues",
};

/** TypeScript for the value of `expr`. */
export function compileExpression(expr: Expr, helpers: Set<string>): string {
  switch (expr.kind) {
    case "literal":
      if (expr.type === "text" || expr.type === "number") return tsString(String(expr.value));
      return String(expr.value);
    case "path":
      return compilePath(expr.root, expr.segments, helpers);
    case "neg":
      return useHelper("negate", [compileExpression(expr.operand, helpers)], helpers);
    case "call": {
      const helper = FUNCTION_HELPERS[expr.fn];
      if (helper === undefined) throw new Error(`unchecked function ${expr.fn}`);
      return useHelper(
        helper,
        expr.args.map((arg) => compileExpression(arg, helpers)),
        helpers,
      );
    }
    case "compare": {
      const left = compileExpression(expr.left, helpers);
      const right = compileExpression(expr.right, helpers);
      if (expr.op === "==") return useHelper("equalValues", [left, right], helpers);
      if (expr.op === "!=") return `!${useHelper("equalValues", [left, right], helpers)}`;
      return useHelper("compareValues", [left, right, tsString(expr.op)], helpers);
    }
    case "and":
    case "or": {
      const joiner = expr.kind === "and" ? "&&" : "||";
      return `(${compileCondition(expr.left, helpers)} ${joiner} ${compileCondition(expr.right, helpers)})`;
    }
    case "not":
      return `!(${compileCondition(expr.operand, helpers)})`;
  }
}

/** TypeScript for a boolean: decoded data counts as true only when it is exactly `true`. */
export function compileCondition(expr: Expr, helpers: Set<string>): string {
  const code = compileExpression(expr, helpers);
  return checkExpression(expr, []) === "boolean" ? code : `(${code}) === true`;
}

/** TypeScript for an increment delta: always a decimal string. */
export function compileDelta(expr: Expr, helpers: Set<string>): string {
  if (expr.kind === "literal" && expr.type === "number") return tsString(String(expr.value));
  return useHelper("decimalDelta", [compileExpression(expr, helpers)], helpers);
}

function compilePath(root: string, segments: readonly string[], helpers: Set<string>): string {
  if (root === "config") return `(ctx.config[${tsString(segments[0])}] ?? null)`;
  const [field, ...rest] = segments;
  const base = `ctx.${root}.${field}`;
  if (rest.length === 0) return base;
  return useHelper("valueAt", [base, ...rest.map(tsString)], helpers);
}

function useHelper(name: string, args: readonly string[], helpers: Set<string>): string {
  helpers.add(name);
  return `${name}(${args.join(", ")})`;
}
