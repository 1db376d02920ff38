/**
 * Static checks of a parsed expression (DESIGN.md §3: "a bad path or type is a generation
 * error"): paths against the known view fields, function names and arities, operand types.
 * Returns the expression's value type and collects issues (offsets relative to the spec string).
 */
import { didYouMean } from "../suggest.js";
import { type Expr, type ExprIssue, FUNCTION_NAMES, PATH_ROOTS } from "./nodes.js";
import { VIEW_FIELDS, type ValueType } from "./view-fields.js";

interface FunctionSignature {
  readonly minArgs: number;
  readonly maxArgs: number;
  /** Types each argument accepts (the last entry repeats); json and null are always accepted. */
  readonly accepts: readonly (readonly ValueType[])[];
}

const ANY: readonly ValueType[] = ["text", "number", "boolean"];
const TEXT: readonly ValueType[] = ["text"];
const NUMBER: readonly ValueType[] = ["number"];

const SIGNATURES: Readonly<Record<string, FunctionSignature>> = {
  concat: { minArgs: 1, maxArgs: Number.POSITIVE_INFINITY, accepts: [ANY] },
  lower: { minArgs: 1, maxArgs: 1, accepts: [TEXT] },
  upper: { minArgs: 1, maxArgs: 1, accepts: [TEXT] },
  coalesce: { minArgs: 1, maxArgs: Number.POSITIVE_INFINITY, accepts: [ANY] },
  buff_to_utf8: { minArgs: 1, maxArgs: 1, accepts: [TEXT] },
  split_part: { minArgs: 3, maxArgs: 3, accepts: [TEXT, TEXT, NUMBER] },
  to_string: { minArgs: 1, maxArgs: 1, accepts: [ANY] },
  to_timestamp: { minArgs: 1, maxArgs: 1, accepts: [NUMBER] },
  add: { minArgs: 2, maxArgs: 2, accepts: [NUMBER] },
};

/** Checks `expr`, pushing problems into `issues`; returns its static type. */
export function checkExpression(expr: Expr, issues: ExprIssue[]): ValueType {
  switch (expr.kind) {
    case "literal":
      return expr.type;
    case "path":
      return checkPath(expr.root, expr.segments, expr.offset, issues);
    case "neg": {
      const type = checkExpression(expr.operand, issues);
      if (type !== "number" && type !== "json") {
        issues.push({ offset: expr.offset, message: `unary minus needs a number, got ${describe(type)}` });
      }
      return "number";
    }
    case "call":
      return checkCall(expr.fn, expr.args, expr.offset, issues);
    case "compare": {
      const left = checkExpression(expr.left, issues);
      const right = checkExpression(expr.right, issues);
      const ordering = expr.op !== "==" && expr.op !== "!=";
      if (ordering && (left === "boolean" || right === "boolean")) {
        issues.push({ offset: expr.offset, message: `"${expr.op}" cannot order booleans` });
      }
      return "boolean";
    }
    case "and":
    case "or":
      expectCondition(expr.left, issues, `"${expr.kind}"`);
      expectCondition(expr.right, issues, `"${expr.kind}"`);
      return "boolean";
    case "not":
      expectCondition(expr.operand, issues, `"not"`);
      return "boolean";
  }
}

/** Checks a `when:` condition (or an and/or/not operand): boolean, or json decided at run time. */
export function expectCondition(expr: Expr, issues: ExprIssue[], what = "a when: condition"): void {
  const type = checkExpression(expr, issues);
  if (type !== "boolean" && type !== "json") {
    issues.push({ offset: expr.offset, message: `${what} needs a boolean (e.g. a comparison), got ${describe(type)}` });
  }
}

function checkPath(root: string, segments: readonly string[], offset: number, issues: ExprIssue[]): ValueType {
  const fields = VIEW_FIELDS[root];
  if (fields === undefined) {
    const known = [...PATH_ROOTS, ...FUNCTION_NAMES];
    issues.push({
      offset,
      message: `unknown name "${root}"${didYouMean(root, known)}; paths start with event, tx, block or config`,
    });
    return "json";
  }
  if (segments.length === 0) {
    const example = Object.keys(fields)[0];
    issues.push({ offset, message: `"${root}" is not a value; name one of its fields, e.g. ${root}.${example}` });
    return "json";
  }
  const field = fields[segments[0]];
  if (field === undefined) {
    const names = Object.keys(fields);
    issues.push({
      offset,
      message: `unknown field "${root}.${segments[0]}"${didYouMean(segments[0], names)}; ${root} has ${names.join(", ")}`,
    });
    return "json";
  }
  if (segments.length > 1 && field.open !== true) {
    issues.push({ offset, message: `"${root}.${segments[0]}" has no fields (only event.payload and event.value do)` });
    return "json";
  }
  return field.type;
}

function checkCall(fn: string, args: readonly Expr[], offset: number, issues: ExprIssue[]): ValueType {
  const argTypes = args.map((arg) => checkExpression(arg, issues));
  const signature = SIGNATURES[fn];
  if (signature === undefined) {
    issues.push({
      offset,
      message: `unknown function "${fn}"${didYouMean(fn, FUNCTION_NAMES)}; functions are ${FUNCTION_NAMES.join(", ")}`,
    });
    return "json";
  }
  if (args.length < signature.minArgs || args.length > signature.maxArgs) {
    issues.push({ offset, message: `${fn}() takes ${arity(signature)}, got ${args.length}` });
  }
  argTypes.forEach((type, index) => {
    const accepts = signature.accepts[Math.min(index, signature.accepts.length - 1)];
    if (type !== "json" && type !== "null" && !accepts.includes(type)) {
      issues.push({
        offset: args[index].offset,
        message: `argument ${index + 1} of ${fn}() must be ${accepts.map(describe).join(" or ")}, got ${describe(type)}`,
      });
    }
  });
  if (fn === "coalesce") return commonType(argTypes);
  if (fn === "add") return "number";
  return "text";
}

function commonType(types: readonly ValueType[]): ValueType {
  const known = types.filter((type) => type !== "null");
  if (known.length === 0) return "null";
  return known.every((type) => type === known[0]) ? known[0] : "json";
}

function arity(signature: FunctionSignature): string {
  if (signature.maxArgs === Number.POSITIVE_INFINITY) return `at least ${signature.minArgs} argument(s)`;
  const noun = signature.maxArgs === 1 ? "argument" : "arguments";
  return `${signature.maxArgs} ${noun}`;
}

/** "text", "a number", … for messages. */
export function describe(type: ValueType): string {
  switch (type) {
    case "text":
      return "text";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "null":
      return "null";
    case "json":
      return "decoded data";
  }
}
