/**
 * A small recursive-descent parser for handler expressions (DESIGN.md §3; grammar in
 * specs/README.md):
 *
 *   expr    := and ("or" and)*
 *   and     := not ("and" not)*
 *   not     := "not" not | compare
 *   compare := unary (("==" | "!=" | "<" | "<=" | ">" | ">=") unary)?
 *   unary   := "-" unary | primary
 *   primary := literal | name "(" args ")" | name ("." name)* | "(" expr ")"
 */
import type { CompareOperator, Expr } from "./nodes.js";
import { ExprSyntaxError, type Token, tokenize } from "./tokenize.js";

const COMPARE_OPERATORS: readonly string[] = ["==", "!=", "<", "<=", ">", ">="];
const KEYWORDS = new Set(["and", "or", "not", "true", "false", "null"]);

/** Parses one expression; offsets are relative to `source` plus `base`. Throws ExprSyntaxError. */
export function parseExpression(source: string, base = 0): Expr {
  const parser = new Parser(tokenize(source, base));
  const expr = parser.parseOr();
  parser.expectEnd();
  return expr;
}

class Parser {
  private position = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  private peek(): Token {
    return this.tokens[this.position];
  }

  private next(): Token {
    const token = this.tokens[this.position];
    if (token.kind !== "end") this.position++;
    return token;
  }

  private isPunct(text: string): boolean {
    const token = this.peek();
    return token.kind === "punct" && token.text === text;
  }

  private isKeyword(word: string): boolean {
    const token = this.peek();
    return token.kind === "name" && token.text === word;
  }

  private expectPunct(text: string): void {
    if (!this.isPunct(text)) throw unexpected(this.peek(), `"${text}"`);
    this.next();
  }

  expectEnd(): void {
    const token = this.peek();
    if (token.kind !== "end") throw unexpected(token, "the end of the expression");
  }

  parseOr(): Expr {
    let left = this.parseAnd();
    while (this.isKeyword("or")) {
      this.next();
      left = { kind: "or", offset: left.offset, left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseNot();
    while (this.isKeyword("and")) {
      this.next();
      left = { kind: "and", offset: left.offset, left, right: this.parseNot() };
    }
    return left;
  }

  private parseNot(): Expr {
    if (this.isKeyword("not")) {
      const token = this.next();
      return { kind: "not", offset: token.offset, operand: this.parseNot() };
    }
    return this.parseCompare();
  }

  private parseCompare(): Expr {
    const left = this.parseUnary();
    const token = this.peek();
    if (token.kind === "punct" && COMPARE_OPERATORS.includes(token.text)) {
      this.next();
      const right = this.parseUnary();
      return { kind: "compare", offset: left.offset, op: token.text as CompareOperator, left, right };
    }
    return left;
  }

  private parseUnary(): Expr {
    if (this.isPunct("-")) {
      const token = this.next();
      const operand = this.parseUnary();
      // A negative number literal stays a literal: `-1` is the decimal "-1".
      if (operand.kind === "literal" && operand.type === "number" && !String(operand.value).startsWith("-")) {
        return { kind: "literal", offset: token.offset, type: "number", value: `-${operand.value}` };
      }
      return { kind: "neg", offset: token.offset, operand };
    }
    return this.parsePrimary();
  }

  private parsePrimary(): Expr {
    const token = this.next();
    switch (token.kind) {
      case "number":
        return { kind: "literal", offset: token.offset, type: "number", value: token.text };
      case "string":
        return { kind: "literal", offset: token.offset, type: "text", value: token.text };
      case "punct":
        if (token.text === "(") {
          const inner = this.parseOr();
          this.expectPunct(")");
          return inner;
        }
        throw unexpected(token, "a value");
      case "end":
        throw unexpected(token, "a value");
      case "name":
        return this.parseName(token);
    }
  }

  private parseName(token: Token): Expr {
    if (token.text === "true" || token.text === "false") {
      return { kind: "literal", offset: token.offset, type: "boolean", value: token.text === "true" };
    }
    if (token.text === "null") return { kind: "literal", offset: token.offset, type: "null", value: null };
    if (KEYWORDS.has(token.text)) throw unexpected(token, "a value");
    if (this.isPunct("(")) {
      this.next();
      const args: Expr[] = [];
      if (!this.isPunct(")")) {
        args.push(this.parseOr());
        while (this.isPunct(",")) {
          this.next();
          args.push(this.parseOr());
        }
      }
      this.expectPunct(")");
      return { kind: "call", offset: token.offset, fn: token.text, args };
    }
    const segments: string[] = [];
    while (this.isPunct(".")) {
      this.next();
      const segment = this.next();
      if (segment.kind !== "name") throw unexpected(segment, 'a field name after "."');
      segments.push(segment.text);
    }
    return { kind: "path", offset: token.offset, root: token.text, segments };
  }
}

function unexpected(token: Token, expected: string): ExprSyntaxError {
  const found = token.kind === "end" ? "the end of the expression" : `"${token.text}"`;
  return new ExprSyntaxError(token.offset, `expected ${expected}, found ${found}`);
}
