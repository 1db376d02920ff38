/**
 * Expression nodes of the handler language (DESIGN.md §3 "Expressions"): immutable, discriminated
 * by `kind`, each with the offset of its first character in the spec string (for error columns).
 */

export const FUNCTION_NAMES = [
  "concat",
  "lower",
  "upper",
  "coalesce",
  "buff_to_utf8",
  "split_part",
  "to_string",
  "to_timestamp",
  "add",
] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

export const PATH_ROOTS = ["event", "tx", "block", "config"] as const;
export type PathRoot = (typeof PATH_ROOTS)[number];

export type CompareOperator = "==" | "!=" | "<" | "<=" | ">" | ">=";

/** A literal. Numbers keep their source text so they stay lossless decimal strings. */
export interface LiteralExpr {
  readonly kind: "literal";
  readonly offset: number;
  readonly type: "text" | "number" | "boolean" | "null";
  readonly value: string | boolean | null;
}

/** `event.payload.name.namespace`: a root and the segments after it. */
export interface PathExpr {
  readonly kind: "path";
  readonly offset: number;
  readonly root: string;
  readonly segments: readonly string[];
}

/** Unary minus on a decimal. */
export interface NegExpr {
  readonly kind: "neg";
  readonly offset: number;
  readonly operand: Expr;
}

export interface CallExpr {
  readonly kind: "call";
  readonly offset: number;
  readonly fn: string;
  readonly args: readonly Expr[];
}

export interface CompareExpr {
  readonly kind: "compare";
  readonly offset: number;
  readonly op: CompareOperator;
  readonly left: Expr;
  readonly right: Expr;
}

export interface LogicalExpr {
  readonly kind: "and" | "or";
  readonly offset: number;
  readonly left: Expr;
  readonly right: Expr;
}

export interface NotExpr {
  readonly kind: "not";
  readonly offset: number;
  readonly operand: Expr;
}

export type Expr = LiteralExpr | PathExpr | NegExpr | CallExpr | CompareExpr | LogicalExpr | NotExpr;

/** A problem inside one expression string; `offset` is relative to that string. */
export interface ExprIssue {
  readonly offset: number;
  readonly message: string;
}
