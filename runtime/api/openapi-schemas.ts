/**
 * Shared pieces of the service's OpenAPI 3.1 document (openapi-document.ts): the component
 * schemas (error body, envelopes, webhook record, progress) and small builders for parameters and
 * responses. Pure data; field ranges come from the modules whose parsers enforce them.
 */
import { FORMATS } from "../dispatcher/formats.js";
import { LIMIT_RULES } from "../dispatcher/limits.js";
import { MAX_TRIGGERS, TRAITS, TRIGGER_FIELDS, TRIGGER_TYPES } from "../dispatcher/triggers.js";
import { CREATE_FIELDS, NAME_PATTERN, UPDATE_FIELDS } from "./webhooks/fields.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = { [key: string]: Json };

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: "null" }] });
const str: Schema = { type: "string" };
const int: Schema = { type: "integer" };
const bool: Schema = { type: "boolean" };
const dateTime: Schema = { type: "string", format: "date-time" };
const anyObject: Schema = { type: "object", additionalProperties: true };

/** Every field the trigger types accept (each type takes its own subset; the service checks which). */
const TRIGGER_FIELD_NAMES = [...new Set(Object.values(TRIGGER_FIELDS).flat())].sort();

function limitsSchema(): Record<string, Schema> {
  return Object.fromEntries(
    Object.entries(LIMIT_RULES).map(([key, rule]) => [
      key,
      { type: "integer", minimum: rule.min, maximum: rule.max, default: rule.default },
    ]),
  );
}

/** Body fields of webhook create/update: the same list crud.ts accepts. */
function webhookBodyFields(fields: readonly string[]): Record<string, Schema> {
  const all: Record<string, Schema> = {
    name: { type: "string", pattern: NAME_PATTERN },
    url: { type: "string", format: "uri", description: "http(s) URL without credentials" },
    format: { type: "string", enum: [...FORMATS], default: "standard-webhooks" },
    triggers: { type: "array", items: ref("Trigger"), minItems: 1, maxItems: MAX_TRIGGERS },
    subgraphName: str,
    tableName: str,
    filter: { ...anyObject, description: "row filter of a subgraph webhook: column → value" },
    ...limitsSchema(),
    ordered: { type: "boolean", description: "deliver one at a time, in order (concurrency 1)" },
  };
  return Object.fromEntries(fields.map((f) => [f, all[f]]));
}

const tipChain: Schema = {
  type: "object",
  required: ["block_height", "finalized_height"],
  properties: { block_height: nullable(int), finalized_height: nullable(int) },
};

export const COMPONENT_SCHEMAS: Record<string, Schema> = {
  Error: {
    type: "object",
    required: ["error", "code"],
    properties: { error: str, code: str, details: anyObject },
  },
  ChainTip: tipChain,
  Reorg: {
    type: "object",
    properties: {
      id: int,
      detected_at: dateTime,
      fork_point_height: int,
      orphaned_from_height: int,
      orphaned_to_height: int,
      resume_cursor: str,
      below_finality: bool,
    },
    additionalProperties: true,
  },
  IndexEvent: {
    type: "object",
    required: ["block_height", "event_index"],
    properties: { block_height: int, event_index: int, event_type: str, tx_id: str, cursor: str },
    additionalProperties: true,
  },
  EventsPage: {
    type: "object",
    required: ["events", "next_cursor", "tip", "reorgs"],
    properties: {
      events: { type: "array", items: ref("IndexEvent") },
      next_cursor: { type: "string", description: "`<block_height>:<event_index>`; pass back as `cursor`" },
      tip: ref("ChainTip"),
      reorgs: { type: "array", items: ref("Reorg") },
    },
  },
  SubgraphTip: {
    type: "object",
    properties: { block_height: nullable(int), subgraph_height: nullable(int), blocks_behind: nullable(int) },
    additionalProperties: true,
  },
  Progress: {
    type: "object",
    properties: {
      status: str,
      subgraph_height: nullable(int),
      blocks_done: nullable(int),
      blocks_total: nullable(int),
      started_at: nullable(str),
      finished_at: nullable(str),
      error: nullable(str),
      reason: nullable(str),
    },
    additionalProperties: true,
  },
  SubgraphSummary: {
    type: "object",
    required: ["name", "version", "schemaHash", "tables"],
    properties: {
      name: str,
      version: str,
      description: nullable(str),
      schemaHash: str,
      tables: { type: "object", additionalProperties: anyObject },
      tip: ref("SubgraphTip"),
      progress: nullable(ref("Progress")),
      links: anyObject,
    },
    additionalProperties: true,
  },
  SubgraphList: {
    type: "object",
    required: ["subgraphs"],
    properties: { subgraphs: { type: "array", items: ref("SubgraphSummary") } },
  },
  RowsPage: {
    type: "object",
    required: ["rows", "next_cursor", "tip"],
    properties: {
      rows: { type: "array", items: anyObject },
      next_cursor: nullable(str),
      tip: ref("SubgraphTip"),
    },
  },
  Count: { type: "object", required: ["count"], properties: { count: int } },
  Aggregate: {
    type: "object",
    properties: {
      count: int,
      countDistinct: { type: "object", additionalProperties: int },
      sum: { type: "object", additionalProperties: str },
      min: { type: "object", additionalProperties: nullable(str) },
      max: { type: "object", additionalProperties: nullable(str) },
    },
  },
  DeployResult: {
    allOf: [
      {
        type: "object",
        required: ["name", "version", "schemaHash", "action"],
        properties: { name: str, version: str, schemaHash: str, action: str },
      },
      ref("Progress"),
    ],
  },
  ReindexResult: {
    allOf: [{ type: "object", required: ["name"], properties: { name: str } }, ref("Progress")],
  },
  Trigger: {
    type: "object",
    required: ["type"],
    properties: {
      type: { type: "string", enum: [...TRIGGER_TYPES] },
      trait: { type: "string", enum: [...TRAITS] },
      ...Object.fromEntries(TRIGGER_FIELD_NAMES.filter((f) => f !== "trait").map((f) => [f, str])),
    },
    additionalProperties: false,
  },
  WebhookCreate: {
    type: "object",
    required: ["name", "url"],
    properties: webhookBodyFields(CREATE_FIELDS),
    additionalProperties: false,
    description: "a chain webhook takes `triggers`; a subgraph webhook takes `subgraphName` and `tableName`",
  },
  WebhookUpdate: {
    type: "object",
    properties: webhookBodyFields(UPDATE_FIELDS),
    additionalProperties: false,
    minProperties: 1,
  },
  Webhook: {
    type: "object",
    required: ["id", "name", "kind", "url", "format", "status"],
    properties: {
      id: { type: "string", pattern: "^wh_" },
      name: str,
      kind: { type: "string", enum: ["chain", "subgraph"] },
      url: str,
      format: { type: "string", enum: [...FORMATS] },
      status: { type: "string", enum: ["active", "paused"] },
      triggers: { type: "array", items: ref("Trigger") },
      startHeight: int,
      subgraphName: str,
      tableName: str,
      filter: anyObject,
      ...limitsSchema(),
      ordered: bool,
      circuit: {
        type: "object",
        properties: { state: str, consecutiveFailures: int, openedAt: nullable(str), retryAt: nullable(str) },
      },
      previousSecretExpiresAt: nullable(str),
      createdAt: dateTime,
      updatedAt: dateTime,
      backlog: anyObject,
    },
    additionalProperties: true,
  },
  WebhookWithSecret: {
    allOf: [
      ref("Webhook"),
      {
        type: "object",
        required: ["secret"],
        properties: { secret: { type: "string", pattern: "^whsec_", description: "shown once" } },
      },
    ],
  },
  WebhookList: {
    type: "object",
    required: ["webhooks"],
    properties: { webhooks: { type: "array", items: ref("Webhook") } },
  },
  TestDelivery: {
    type: "object",
    required: ["deliveryId", "type", "success"],
    properties: {
      deliveryId: str,
      type: str,
      success: bool,
      responseStatus: nullable(int),
      durationMs: nullable(int),
      responseExcerpt: nullable(str),
      error: nullable(str),
    },
  },
  DeliveryAttempts: {
    type: "object",
    required: ["deliveries", "nextCursor"],
    properties: {
      deliveries: {
        type: "array",
        items: {
          type: "object",
          properties: {
            attemptId: str,
            deliveryId: str,
            type: str,
            attempt: int,
            attemptedAt: dateTime,
            success: bool,
            responseStatus: nullable(int),
            latencyMs: nullable(int),
            responseExcerpt: nullable(str),
            error: nullable(str),
            deliveryStatus: nullable(str),
          },
        },
      },
      nextCursor: nullable(str),
    },
  },
  DeadLetters: {
    type: "object",
    required: ["deadLetters", "nextCursor"],
    properties: {
      deadLetters: {
        type: "array",
        items: {
          type: "object",
          properties: {
            deliveryId: str,
            type: str,
            attempts: int,
            lastStatus: nullable(int),
            lastError: nullable(str),
            createdAt: nullable(str),
            diedAt: nullable(str),
            data: {},
          },
        },
      },
      nextCursor: nullable(str),
    },
  },
  Requeued: { type: "object", required: ["deliveryId", "status"], properties: { deliveryId: str, status: str } },
  RequeuedCount: { type: "object", required: ["requeuedCount"], properties: { requeuedCount: int } },
  ReplayRequest: {
    type: "object",
    required: ["fromBlock", "toBlock"],
    properties: { fromBlock: { type: "integer", minimum: 0 }, toBlock: { type: "integer", minimum: 0 } },
  },
  ReplayResult: {
    type: "object",
    required: ["replayId", "enqueuedCount", "scannedCount"],
    properties: { replayId: str, enqueuedCount: int, scannedCount: int },
  },
  Status: { type: "object", additionalProperties: true, description: "tip, finality, lag and counts" },
  Health: {
    type: "object",
    required: ["status"],
    properties: { status: { type: "string", enum: ["ok", "starting"] } },
  },
  SigningKey: {
    type: "object",
    required: ["key_id", "algorithm", "public_key_pem"],
    properties: { key_id: str, algorithm: { const: "ed25519" }, public_key_pem: str },
  },
};

export interface Parameter {
  name: string;
  in: "query" | "path" | "header";
  required?: boolean;
  description?: string;
  schema: Schema;
}

export const query = (name: string, schema: Schema, description?: string): Parameter => ({
  name,
  in: "query",
  schema,
  ...(description ? { description } : {}),
});

export const intRange = (r: { min: number; max: number; default?: number }): Schema => ({
  type: "integer",
  minimum: r.min,
  maximum: r.max,
  ...(r.default === undefined ? {} : { default: r.default }),
});

export interface ResponseDoc {
  description: string;
  content?: Record<string, { schema: Schema }>;
  headers?: Record<string, { description: string; schema: Schema }>;
}

export const json = (description: string, schema: Schema): ResponseDoc => ({
  description,
  content: { "application/json": { schema } },
});

export const noContent = (description: string): ResponseDoc => ({ description });

const ERROR_TEXT: Record<string, string> = {
  "304": "not modified (If-None-Match matched the ETag)",
  "400": "invalid request (`code` names the rule)",
  "401": "the instance token is required and was missing or wrong",
  "404": "not found",
  "409": "conflict with the current state",
  "413": "body too large",
  "415": "unsupported media type",
  "503": "not available on this process (yet)",
};

/** Error responses with the shared body, keyed by status. */
export function errors(...statuses: string[]): Record<string, ResponseDoc> {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      s === "304" ? { description: ERROR_TEXT[s] } : json(ERROR_TEXT[s] ?? "error", ref("Error")),
    ]),
  );
}
