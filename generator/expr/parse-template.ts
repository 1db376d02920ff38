/**
 * Handler values (DESIGN.md §3): a YAML string is literal text with `${expression}` parts.
 * `${e}` alone yields e's value (keeping its type); mixed text and parts concatenate as text;
 * `$${` writes a literal `${`.
 */
import type { Expr } from "./nodes.js";
import { parseExpression } from "./parse-expression.js";
import { ExprSyntaxError } from "./tokenize.js";

/** Parses a template string into one expression. Throws ExprSyntaxError. */
export function parseTemplate(source: string): Expr {
  const parts: Expr[] = [];
  let text = "";
  let textStart = 0;
  let i = 0;
  const flushText = () => {
    if (text !== "") parts.push({ kind: "literal", offset: textStart, type: "text", value: text });
    text = "";
  };
  while (i < source.length) {
    if (source.startsWith("$${", i)) {
      if (text === "") textStart = i;
      text += "${";
      i += 3;
    } else if (source.startsWith("${", i)) {
      flushText();
      const end = findClosingBrace(source, i + 2);
      parts.push(parseExpression(source.slice(i + 2, end), i + 2));
      i = end + 1;
      textStart = i;
    } else {
      if (text === "") textStart = i;
      text += source[i];
      i++;
    }
  }
  flushText();
  if (parts.length === 0) return { kind: "literal", offset: 0, type: "text", value: "" };
  if (parts.length === 1) return parts[0];
  return { kind: "call", offset: 0, fn: "concat", args: parts };
}

/** The index of the `}` closing an expression that starts at `from`, skipping quoted strings. */
function findClosingBrace(source: string, from: number): number {
  let quote: string | null = null;
  for (let i = from; i < source.length; i++) {
    const ch = source[i];
    if (quote !== null) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === "}") {
      return i;
    }
  }
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the message quotes the spec syntax
  throw new ExprSyntaxError(from - 2, 'unterminated "${" (expected a closing "}")');
}
