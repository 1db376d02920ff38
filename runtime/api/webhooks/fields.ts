/**
 * The accepted request fields and ranges of the webhook routes, shared by their parsers
 * (crud.ts, request.ts) and the service's OpenAPI document (../openapi-operations.ts), so the
 * document states exactly what the handlers accept.
 */

/** Body fields of POST /api/webhooks. */
export const CREATE_FIELDS = [
  "name",
  "url",
  "format",
  "triggers",
  "subgraphName",
  "tableName",
  "filter",
  "timeoutMs",
  "maxAttempts",
  "concurrency",
  "ordered",
] as const;

/** Body fields of PATCH /api/webhooks/:webhook. */
export const UPDATE_FIELDS = [
  "name",
  "url",
  "format",
  "triggers",
  "filter",
  "timeoutMs",
  "maxAttempts",
  "concurrency",
  "ordered",
] as const;

/** `name`: 1 to 100 characters, letters, digits, '.', '_' or '-', starting with a letter or digit. */
export const NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$";

/** `limit` of the delivery-log lists. */
export const LIST_LIMIT = { min: 1, max: 1000, default: 100 } as const;

/** rotate-secret `gracePeriodSeconds`: default one day, at most seven. */
export const DEFAULT_GRACE_SECONDS = 24 * 60 * 60;
export const MAX_GRACE_SECONDS = 7 * 24 * 60 * 60;

/** A test delivery's `message`: at most this many characters. */
export const MAX_TEST_MESSAGE = 1000;
