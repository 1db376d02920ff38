/**
 * The generator's one error value (STYLE.md "Generator"): a spec mistake with its file, line,
 * column, spec path (`tables.holdings.columns.amount`) and a message saying what is expected.
 */
export interface SpecError {
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  col: number;
  /** Dotted spec path, e.g. `tables.holdings.columns.amount`; "" for the document. */
  path: string;
  message: string;
}

/** `file:line:col: message`, the printed form (also the golden `error.txt` lines). */
export function formatSpecError(error: SpecError): string {
  return `${error.file}:${error.line}:${error.col}: ${error.message}`;
}

/** Errors in reading order (line, column, then message) so output is stable. */
export function sortSpecErrors(errors: readonly SpecError[]): SpecError[] {
  return [...errors].sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.message.localeCompare(b.message),
  );
}

/** Thrown at the CLI/API edge when a spec does not validate; carries every error. */
export class SpecValidationError extends Error {
  constructor(readonly errors: readonly SpecError[]) {
    super(errors.map(formatSpecError).join("\n"));
    this.name = "SpecValidationError";
  }
}

export function dottedPath(path: readonly (string | number)[]): string {
  return path.map(String).join(".");
}
