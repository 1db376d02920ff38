/**
 * The one HTTP-facing error type (STYLE.md "Errors"): a status, a stable SCREAMING_SNAKE code,
 * a message and optional details. Anything else reaching the API edge is a 500 INTERNAL.
 */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ServiceError";
  }
}

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) =>
  new ServiceError(400, code, message, details);

export const notFound = (code: string, message: string, details?: Record<string, unknown>) =>
  new ServiceError(404, code, message, details);

export const unauthorized = (message = "a valid instance token is required") =>
  new ServiceError(401, "UNAUTHORIZED", message);

export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new ServiceError(409, code, message, details);

/**
 * Base of the errors that know whether the work that failed can succeed when run again. Retry
 * loops ask `isRetryable`, never the concrete class.
 */
export abstract class SluiceError extends Error {
  abstract get retryable(): boolean;
}

/** A failure that may pass (a hook asking for its transaction to be redone): run the work again. */
export class RetryableError extends SluiceError {
  override get retryable(): boolean {
    return true;
  }
}

/** A failure that repeats on every run (bad input, bad configuration): do not run the work again. */
export class NonRetryableError extends SluiceError {
  override get retryable(): boolean {
    return false;
  }
}

/**
 * The one decision whether failed work may be run again. A SluiceError says so itself. A database
 * error of SQLSTATE class 22 (data exception: a value out of range, text invalid for its type) is
 * deterministic: the same data fails on every run. Anything else (a lost connection, class 08 or
 * ECONNRESET; a serialization failure, 40001; a deadlock, 40P01; a server shutting down, 57P01; an
 * error nobody classified) may pass, so acknowledged chain data is kept and tried again, never
 * dropped.
 */
export function isRetryable(err: unknown): boolean {
  if (err instanceof SluiceError) return err.retryable;
  const code = (err as { code?: unknown } | null)?.code;
  return !(typeof code === "string" && code.startsWith("22"));
}

/** A payload the node sent that cannot be decoded: journaled, counted, never retried. */
export class MalformedPayloadError extends NonRetryableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MalformedPayloadError";
  }
}

/** Bad configuration: every problem listed, one per line. */
export class ConfigError extends NonRetryableError {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * An expected start-up failure (port in use, database unreachable): the message names the
 * setting to change, so it is printed alone, without a stack.
 */
export class StartupError extends NonRetryableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StartupError";
  }
}
