/**
 * Tokens of the handler expression language (DESIGN.md §3). Names may contain `-` after their
 * first character (Clarity keys such as `request-id`); there is no binary minus, so this is
 * unambiguous.
 */

export type TokenKind = "name" | "number" | "string" | "punct" | "end";

export interface Token {
  readonly kind: TokenKind;
  /** For strings: the unescaped value; otherwise the source text. */
  readonly text: string;
  readonly offset: number;
}

const PUNCTUATION = ["==", "!=", "<=", ">=", "<", ">", "(", ")", ",", ".", "-"];
const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_-]/;
const DIGIT = /[0-9]/;

/** Splits `source` into tokens; `base` is added to every offset. Throws ExprSyntaxError. */
export function tokenize(source: string, base = 0): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (/\s/.test(ch)) {
      i++;
    } else if (NAME_START.test(ch)) {
      const start = i;
      while (i < source.length && NAME_PART.test(source[i])) i++;
      tokens.push({ kind: "name", text: source.slice(start, i), offset: base + start });
    } else if (DIGIT.test(ch)) {
      const match = /^[0-9]+(\.[0-9]+)?/.exec(source.slice(i)) as RegExpExecArray;
      tokens.push({ kind: "number", text: match[0], offset: base + i });
      i += match[0].length;
    } else if (ch === "'" || ch === '"') {
      const { value, end } = readString(source, i, base);
      tokens.push({ kind: "string", text: value, offset: base + i });
      i = end;
    } else {
      const punct = PUNCTUATION.find((p) => source.startsWith(p, i));
      if (punct === undefined) throw issue(base + i, `unexpected character "${ch}"`);
      tokens.push({ kind: "punct", text: punct, offset: base + i });
      i += punct.length;
    }
  }
  tokens.push({ kind: "end", text: "", offset: base + source.length });
  return tokens;
}

function readString(source: string, start: number, base: number): { value: string; end: number } {
  const quote = source[start];
  let value = "";
  let i = start + 1;
  while (i < source.length) {
    const ch = source[i];
    if (ch === quote) return { value, end: i + 1 };
    if (ch === "\\" && i + 1 < source.length) {
      value += source[i + 1];
      i += 2;
    } else {
      value += ch;
      i++;
    }
  }
  throw issue(base + start, `unterminated string (expected a closing ${quote})`);
}

/** A syntax error at `offset` (relative to the expression string). */
export class ExprSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
    this.name = "ExprSyntaxError";
  }
}

function issue(offset: number, message: string): ExprSyntaxError {
  return new ExprSyntaxError(offset, message);
}
