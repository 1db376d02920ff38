/**
 * Exact decimal text arithmetic for NUMERIC columns (DESIGN.md §2: amounts are lossless strings):
 * canonical form and addition, never through floating point. PostgreSQL renders a NUMERIC sum with
 * the larger scale of its operands; `addDecimals` does the same so synthesized rows match stored ones.
 */

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

function parse(text: string): { value: bigint; scale: number } {
  const m = DECIMAL.exec(text.trim());
  if (m === null) throw new Error(`not a decimal: ${text}`);
  const fraction = m[3] ?? "";
  const magnitude = BigInt(m[2] + fraction);
  return { value: m[1] ? -magnitude : magnitude, scale: fraction.length };
}

function format(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, "0");
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

/** `a + b` with the larger scale of the two (PostgreSQL NUMERIC addition). */
export function addDecimals(a: string, b: string): string {
  const sum = decimalSum(a);
  addToSum(sum, b);
  return formatSum(sum);
}

/** The text PostgreSQL prints for a NUMERIC input (leading zeros dropped, scale kept, no "-0"). */
export function canonicalDecimal(text: string): string {
  const x = parse(text);
  return format(x.value, x.scale);
}

/** True for a decimal number's text. */
export function isDecimal(text: unknown): text is string {
  return typeof text === "string" && DECIMAL.test(text);
}

/** A running NUMERIC sum: the exact value at the largest scale seen so far. */
export interface DecimalSum {
  value: bigint;
  scale: number;
}

/** A sum starting at `text`. */
export function decimalSum(text: string): DecimalSum {
  return parse(text);
}

/** Adds `text` to `sum` in place (the scale grows to the larger of the two, as NUMERIC addition). */
export function addToSum(sum: DecimalSum, text: string): void {
  const y = parse(text);
  if (y.scale > sum.scale) {
    sum.value *= 10n ** BigInt(y.scale - sum.scale);
    sum.scale = y.scale;
  }
  sum.value += y.scale === sum.scale ? y.value : y.value * 10n ** BigInt(sum.scale - y.scale);
}

/** The canonical text of a sum. */
export function formatSum(sum: DecimalSum): string {
  return format(sum.value, sum.scale);
}
