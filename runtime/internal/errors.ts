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

/** A payload the node sent that cannot be decoded: journaled, counted, never retried. */
export class MalformedPayloadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MalformedPayloadError";
  }
}

/** Bad configuration: every problem listed, one per line. */
export class ConfigError extends Error {
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
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StartupError";
  }
}
