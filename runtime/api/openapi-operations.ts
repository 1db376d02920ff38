/**
 * What each route of the route table (routes.ts) takes and answers, for the service's OpenAPI
 * document (openapi-document.ts). Keyed `METHOD /express/path` like the table; the parameter
 * lists and ranges are the constants the routes' parsers enforce (events/query.ts,
 * subgraphs/query/parse.ts, webhooks/fields.ts), so the document cannot promise another set.
 * test/clients/openapi.test.ts fails when a route of the table has no entry here (or the reverse).
 */
import { MAX_REPLAY_BLOCKS } from "../dispatcher/replay.js";
import {
  INDEX_DEFAULT_LIMIT,
  INDEX_EVENTS_PARAMS,
  MAX_LIMIT as EVENTS_MAX_LIMIT,
  STREAM_EVENTS_PARAMS,
  STREAM_SSE_PARAMS,
  STREAMS_DEFAULT_LIMIT,
} from "./events/query.js";
import type { Surface } from "./http/auth.js";
import type { HttpMethod } from "./http/route-table.js";
import {
  errors,
  intRange,
  json,
  noContent,
  type Parameter,
  query,
  type ResponseDoc,
  ref,
  type Schema,
} from "./openapi-schemas.js";
import { SPEC_BODY } from "./subgraphs/management-routes.js";
import {
  AGGREGATE_PARAMS,
  DEFAULT_LIMIT as ROWS_DEFAULT_LIMIT,
  LIST_PARAMS,
  MAX_AGGREGATE_COLUMNS,
  MAX_LIMIT as ROWS_MAX_LIMIT,
  STREAM_PARAMS,
} from "./subgraphs/query/parse.js";
import { DEFAULT_GRACE_SECONDS, LIST_LIMIT, MAX_GRACE_SECONDS, MAX_TEST_MESSAGE } from "./webhooks/fields.js";

export interface OperationDoc {
  operationId: string;
  summary: string;
  /** Longer text (Markdown) under the summary. */
  description?: string;
  tag: string;
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, ResponseDoc>;
  deprecated?: boolean;
}

export interface DocumentedRoute {
  method: HttpMethod;
  /** Express path, as in the route table. */
  path: string;
  /** The access rule the table gives the route (the document's `security`). */
  auth: Surface;
  doc: OperationDoc;
}

/** Schemas and descriptions of the path parameters, by name. */
export const PATH_PARAMS: Record<string, { description: string; schema: Schema }> = {
  name: { description: "subgraph name", schema: { type: "string" } },
  table: { description: "table of the subgraph", schema: { type: "string" } },
  id: { description: "row `_id` (a positive integer)", schema: { type: "string", pattern: "^[0-9]+$" } },
  contract_id: { description: "`<address>.<contract-name>`", schema: { type: "string" } },
  tx_id: { description: "`0x` and 64 hex digits", schema: { type: "string", pattern: "^0x[0-9a-fA-F]{64}$" } },
  webhook: { description: "webhook id (`wh_…`) or name", schema: { type: "string" } },
  delivery_id: { description: "delivery id", schema: { type: "string" } },
  asset: { description: "file of the bundle", schema: { type: "string" } },
};

const str: Schema = { type: "string" };
const height: Schema = { type: "integer", minimum: 0 };
const anyObject: Schema = { type: "object", additionalProperties: true };
const sse = (description: string): ResponseDoc => ({
  description: `${description}; frames carry \`id\` (resume with Last-Event-ID), \`event\` and JSON \`data\``,
  content: { "text/event-stream": { schema: { type: "string" } } },
});
const text = (description: string, ...types: string[]): ResponseDoc => ({
  description,
  content: Object.fromEntries(types.map((t) => [t, { schema: { type: "string" } }])),
});
const lastEventId: Parameter = {
  name: "Last-Event-ID",
  in: "header",
  description: "the id of the last frame received: the stream resumes after it",
  schema: str,
};
const jsonBody = (schema: Schema, required = true) => ({
  required,
  content: { "application/json": { schema } },
});

/** Descriptions of the event route parameters (events/query.ts). */
const EVENT_PARAMS: Record<string, Parameter> = {
  cursor: query("cursor", str, "the previous `next_cursor` (`<block_height>:<event_index>`); read after it"),
  from_cursor: query("from_cursor", str, "exclusive-start alias of `cursor` (not both)"),
  from_height: query("from_height", height, "start at this block height"),
  to_height: query("to_height", height, "stop at this block height (inclusive)"),
  types: query("types", str, "comma-separated event types to include"),
  not_types: query("not_types", str, "comma-separated event types to leave out"),
  contract_id: query("contract_id", str, "printing contract, or the asset's contract"),
  sender: query("sender", str),
  recipient: query("recipient", str),
  asset_identifier: query("asset_identifier", str, "`<contract>::<asset>`, or `STX`"),
};

function eventParams(names: readonly string[], defaultLimit?: number): Parameter[] {
  return names.map((n) =>
    n === "limit"
      ? query("limit", intRange({ min: 1, max: EVENTS_MAX_LIMIT, default: defaultLimit }), "events per page")
      : EVENT_PARAMS[n],
  );
}

const ROW_PARAMS: Record<string, Parameter> = {
  _limit: query("_limit", intRange({ min: 1, max: ROWS_MAX_LIMIT, default: ROWS_DEFAULT_LIMIT }), "rows per page"),
  cursor: query("cursor", str, "the previous `next_cursor` (opaque)"),
  _order: query("_order", { type: "string", enum: ["asc", "desc"], default: "asc" }),
  _sort: query("_sort", str, "one sortable column (see the subgraph's own document)"),
  _fields: query("_fields", str, "comma-separated columns to include"),
  _search: query("_search", str, "search across the searchable columns"),
  _count: query("_count", { type: "boolean" }),
  _countDistinct: query("_countDistinct", str, "comma-separated columns"),
  _sum: query("_sum", str, "comma-separated numeric columns"),
  _min: query("_min", str, "comma-separated numeric columns"),
  _max: query("_max", str, "comma-separated numeric columns"),
  since: query("since", height, "replay rows from this block height, then tail"),
};

const COLUMN_FILTERS =
  "Column filters (`<col>`, `<col>.neq`, `.like`, `.gt`, `.gte`, `.lt`, `.lte`) depend on the table: " +
  "see `/v1/subgraphs/{name}/openapi.json`.";

const rowParams = (names: readonly string[]) => names.map((n) => ROW_PARAMS[n]);

const READ_ERRORS = ["400", "401"];

/** The routes outside /api/webhooks, in the route table's order. */
const OPERATIONS: readonly DocumentedRoute[] = [
  {
    method: "GET",
    path: "/health",
    auth: "public",
    doc: {
      operationId: "getHealth",
      tag: "operations",
      summary: "Liveness: 200 once migrations ran, 503 before",
      responses: { "200": json("ready", ref("Health")), "503": json("starting", ref("Health")) },
    },
  },
  {
    method: "GET",
    path: "/status",
    auth: "status",
    doc: {
      operationId: "getStatus",
      tag: "operations",
      summary: "Tip, finalized height, lag and counts",
      responses: { "200": json("the instance's status", ref("Status")), ...errors("401") },
    },
  },
  {
    method: "GET",
    path: "/metrics",
    auth: "status",
    doc: {
      operationId: "getMetrics",
      tag: "operations",
      summary: "Prometheus text exposition",
      responses: { "200": text("metrics", "text/plain"), ...errors("401", "503") },
    },
  },
  {
    method: "GET",
    path: "/api/node",
    auth: "write",
    doc: {
      operationId: "getNode",
      tag: "operations",
      summary: "The stacks-node feeding the instance: observer activity and the node's own report",
      responses: { "200": json("node report", anyObject), ...errors("401", "503") },
    },
  },
  {
    method: "GET",
    path: "/v1/index/events",
    auth: "read",
    doc: {
      operationId: "listIndexEvents",
      tag: "index",
      summary: "Canonical chain events in cursor order",
      parameters: eventParams(INDEX_EVENTS_PARAMS, INDEX_DEFAULT_LIMIT),
      responses: { "200": json("one page", ref("EventsPage")), ...errors("304", ...READ_ERRORS) },
    },
  },
  {
    method: "GET",
    path: "/v1/index/contracts/:contract_id/print-schema",
    auth: "read",
    doc: {
      operationId: "getPrintSchema",
      tag: "index",
      summary: "Per-topic schemas of a contract's print payloads, inferred from indexed history",
      responses: {
        "200": json("schemas by topic", anyObject),
        ...errors("304", ...READ_ERRORS, "404"),
      },
    },
  },
  {
    method: "GET",
    path: "/v1/index/transactions/:tx_id/proof",
    auth: "read",
    doc: {
      operationId: "getTransactionProof",
      tag: "index",
      summary: "Merkle inclusion proof of a transaction",
      responses: { "200": json("the proof", anyObject), ...errors("304", ...READ_ERRORS, "404") },
    },
  },
  {
    method: "GET",
    path: "/v1/streams/events",
    auth: "read",
    doc: {
      operationId: "listStreamEvents",
      tag: "streams",
      summary: "Filtered chain events (same envelope and cursor as the Index list)",
      parameters: eventParams(STREAM_EVENTS_PARAMS, STREAMS_DEFAULT_LIMIT),
      responses: { "200": json("one page", ref("EventsPage")), ...errors("304", ...READ_ERRORS) },
    },
  },
  {
    method: "GET",
    path: "/v1/streams/events/stream",
    auth: "read",
    doc: {
      operationId: "streamEvents",
      tag: "streams",
      summary: "The filtered events as Server-Sent Events (live tail without a start)",
      parameters: [...eventParams(STREAM_SSE_PARAMS), lastEventId],
      responses: { "200": sse("event stream"), ...errors(...READ_ERRORS, "503") },
    },
  },
  {
    method: "GET",
    path: "/public/streams/signing-key",
    auth: "public",
    doc: {
      operationId: "getSigningKey",
      tag: "public",
      summary: "The ed25519 key deliveries are signed with (SPKI PEM; JSON with Accept: application/json)",
      responses: {
        "200": {
          description: "the key; its id in `x-service-signature-keyid`",
          content: {
            "text/plain": { schema: str },
            "application/json": { schema: ref("SigningKey") },
          },
          headers: { "x-service-signature-keyid": { description: "key id", schema: str } },
        },
        ...errors("304", "400", "503"),
      },
    },
  },
  {
    method: "GET",
    path: "/console",
    auth: "public",
    doc: {
      operationId: "getConsolePage",
      tag: "console",
      summary: "The operators' web console",
      responses: { "200": text("page", "text/html"), ...errors("400") },
    },
  },
  {
    method: "GET",
    path: "/console/:asset",
    auth: "public",
    doc: {
      operationId: "getConsoleAsset",
      tag: "console",
      summary: "A file of the console bundle",
      responses: { "200": text("asset", "text/javascript", "text/css"), ...errors("400", "404", "503") },
    },
  },
  {
    method: "GET",
    path: "/openapi.json",
    auth: "public",
    doc: {
      operationId: "getOpenApi",
      tag: "docs",
      summary: "This document",
      responses: { "200": json("OpenAPI 3.1 document", anyObject), ...errors("400") },
    },
  },
  {
    method: "GET",
    path: "/docs",
    auth: "public",
    doc: {
      operationId: "getDocsPage",
      tag: "docs",
      summary: "The API reference page rendering this document",
      responses: { "200": text("page", "text/html"), ...errors("400") },
    },
  },
  {
    method: "GET",
    path: "/docs/:asset",
    auth: "public",
    doc: {
      operationId: "getDocsAsset",
      tag: "docs",
      summary: "A file of the reference page",
      responses: { "200": text("asset", "text/javascript", "text/css"), ...errors("400", "404", "503") },
    },
  },
  {
    method: "GET",
    path: "/v1/subgraphs",
    auth: "read",
    doc: {
      operationId: "listSubgraphs",
      tag: "subgraphs",
      summary: "The instance's subgraphs",
      responses: { "200": json("subgraphs", ref("SubgraphList")), ...errors(...READ_ERRORS) },
    },
  },
  {
    method: "GET",
    path: "/v1/subgraphs/:name",
    auth: "read",
    doc: {
      operationId: "getSubgraph",
      tag: "subgraphs",
      summary: "A subgraph: tables, columns, filters, indexing tip and progress",
      responses: { "200": json("the subgraph", anyObject), ...errors(...READ_ERRORS, "404") },
    },
  },
  {
    method: "GET",
    path: "/v1/subgraphs/:name/openapi.json",
    auth: "read",
    doc: {
      operationId: "getSubgraphOpenApi",
      tag: "subgraphs",
      summary: "The subgraph's own OpenAPI 3.1 document (its tables' columns and filters)",
      responses: { "200": json("OpenAPI document", anyObject), ...errors(...READ_ERRORS, "404") },
    },
  },
  {
    method: "GET",
    path: "/v1/subgraphs/:name/descriptor.json",
    auth: "read",
    doc: {
      operationId: "getSubgraphDescriptor",
      tag: "subgraphs",
      summary: "The subgraph's machine-readable descriptor",
      responses: { "200": json("descriptor", anyObject), ...errors(...READ_ERRORS, "404") },
    },
  },
  {
    method: "GET",
    path: "/v1/subgraphs/:name/:table",
    auth: "read",
    doc: {
      operationId: "listTableRows",
      tag: "subgraphs",
      summary: "Rows of a table, keyset-paginated",
      description: COLUMN_FILTERS,
      parameters: rowParams(LIST_PARAMS),
      responses: { "200": json("one page", ref("RowsPage")), ...errors("304", ...READ_ERRORS, "404") },
    },
  },
  {
    method: "GET",
    path: "/v1/subgraphs/:name/:table/count",
    auth: "read",
    doc: {
      operationId: "countTableRows",
      tag: "subgraphs",
      summary: "Row count over the filtered set",
      description: COLUMN_FILTERS,
      parameters: rowParams(LIST_PARAMS),
      responses: { "200": json("the count", ref("Count")), ...errors(...READ_ERRORS, "404") },
    },
  },
  {
    method: "GET",
    path: "/v1/subgraphs/:name/:table/aggregate",
    auth: "read",
    doc: {
      operationId: "aggregateTableRows",
      tag: "subgraphs",
      summary: `Aggregates over the filtered set (at most ${MAX_AGGREGATE_COLUMNS} columns)`,
      description: COLUMN_FILTERS,
      parameters: rowParams(AGGREGATE_PARAMS),
      responses: { "200": json("aggregates", ref("Aggregate")), ...errors(...READ_ERRORS, "404") },
    },
  },
  {
    method: "GET",
    path: "/v1/subgraphs/:name/:table/stream",
    auth: "read",
    doc: {
      operationId: "streamTableRows",
      tag: "subgraphs",
      summary: "New rows as Server-Sent Events",
      description: COLUMN_FILTERS,
      parameters: [...rowParams(STREAM_PARAMS), lastEventId],
      responses: { "200": sse("row stream"), ...errors(...READ_ERRORS, "404", "503") },
    },
  },
  {
    method: "GET",
    path: "/v1/subgraphs/:name/:table/:id",
    auth: "read",
    doc: {
      operationId: "getTableRow",
      tag: "subgraphs",
      summary: "One row by `_id`",
      responses: { "200": json("the row", anyObject), ...errors(...READ_ERRORS, "404") },
    },
  },
  {
    method: "POST",
    path: "/api/subgraphs",
    auth: "write",
    doc: {
      operationId: "deploySubgraph",
      tag: "subgraphs",
      summary: "Deploy a subgraph spec (YAML or JSON); 202 when a backfill started",
      parameters: [query("replace", { type: "boolean" }, "rebuild on a breaking change")],
      requestBody: {
        required: true,
        content: Object.fromEntries(
          (SPEC_BODY.types ?? []).map((t) => [t, { schema: t === "application/json" ? anyObject : str }]),
        ),
      },
      responses: {
        "200": json("unchanged, or migrated in place", ref("DeployResult")),
        "202": json("deployed; backfill started", ref("DeployResult")),
        ...errors("400", "401", "409", "413", "415", "503"),
      },
    },
  },
  {
    method: "POST",
    path: "/api/subgraphs/:name/reindex",
    auth: "write",
    doc: {
      operationId: "reindexSubgraph",
      tag: "subgraphs",
      summary: "Rebuild a subgraph from stored blocks",
      responses: {
        "202": json("started; progress", ref("ReindexResult")),
        ...errors("400", "401", "404", "409", "415", "503"),
      },
    },
  },
  {
    method: "DELETE",
    path: "/api/subgraphs/:name",
    auth: "write",
    doc: {
      operationId: "deleteSubgraph",
      tag: "subgraphs",
      summary: "Remove a deployed subgraph and its tables",
      responses: { "204": noContent("removed"), ...errors("400", "401", "404", "409", "415", "503") },
    },
  },
];

/** The webhook routes under `prefix` (webhooks/routes.ts mounts the same list). */
function webhookOperations(prefix: string, deprecated: boolean): DocumentedRoute[] {
  const body = ["413", "415"];
  const common = ["400", "401", "404", "503"];
  const rows: [HttpMethod, string, Omit<OperationDoc, "tag">][] = [
    [
      "POST",
      "",
      {
        operationId: "createWebhook",
        summary: "Create a webhook; the `whsec_` secret is shown in this answer only",
        requestBody: jsonBody(ref("WebhookCreate")),
        responses: {
          "201": json("created", ref("WebhookWithSecret")),
          ...errors("400", "401", "409", ...body, "503"),
        },
      },
    ],
    [
      "GET",
      "",
      {
        operationId: "listWebhooks",
        summary: "Every webhook",
        parameters: [query("kind", { type: "string", enum: ["chain", "subgraph"] })],
        responses: { "200": json("webhooks", ref("WebhookList")), ...errors("400", "401", "503") },
      },
    ],
    [
      "GET",
      "/:webhook",
      {
        operationId: "getWebhook",
        summary: "A webhook and its backlog",
        responses: { "200": json("the webhook", ref("Webhook")), ...errors(...common) },
      },
    ],
    [
      "PATCH",
      "/:webhook",
      {
        operationId: "updateWebhook",
        summary: "Change url, format, filter, triggers, limits or name",
        requestBody: jsonBody(ref("WebhookUpdate")),
        responses: { "200": json("updated", ref("Webhook")), ...errors(...common, "409", ...body) },
      },
    ],
    [
      "DELETE",
      "/:webhook",
      {
        operationId: "deleteWebhook",
        summary: "Delete a webhook with its outbox and log",
        responses: { "204": noContent("deleted"), ...errors(...common, ...body) },
      },
    ],
    [
      "POST",
      "/:webhook/pause",
      {
        operationId: "pauseWebhook",
        summary: "Hold deliveries (events are still recorded)",
        responses: { "200": json("paused", ref("Webhook")), ...errors(...common, ...body) },
      },
    ],
    [
      "POST",
      "/:webhook/resume",
      {
        operationId: "resumeWebhook",
        summary: "Deliver again",
        responses: { "200": json("active", ref("Webhook")), ...errors(...common, ...body) },
      },
    ],
    [
      "POST",
      "/:webhook/rotate-secret",
      {
        operationId: "rotateWebhookSecret",
        summary: "New signing secret; the old one signs too until the grace period ends",
        requestBody: jsonBody(
          {
            type: "object",
            properties: {
              gracePeriodSeconds: intRange({ min: 0, max: MAX_GRACE_SECONDS, default: DEFAULT_GRACE_SECONDS }),
            },
            additionalProperties: false,
          },
          false,
        ),
        responses: { "200": json("the new secret", ref("WebhookWithSecret")), ...errors(...common, ...body) },
      },
    ],
    [
      "POST",
      "/:webhook/test",
      {
        operationId: "testWebhook",
        summary: "Send a `chain.test.apply` delivery now and report the outcome",
        requestBody: jsonBody(
          {
            type: "object",
            properties: { message: { type: "string", maxLength: MAX_TEST_MESSAGE } },
            additionalProperties: false,
          },
          false,
        ),
        responses: { "200": json("outcome", ref("TestDelivery")), ...errors(...common, ...body) },
      },
    ],
    [
      "GET",
      "/:webhook/deliveries",
      {
        operationId: "listWebhookDeliveries",
        summary: "Delivery attempts, newest first",
        parameters: [
          query("limit", intRange(LIST_LIMIT)),
          query("cursor", str, "the previous `nextCursor`"),
          query("deliveryId", str, "attempts of one delivery"),
        ],
        responses: { "200": json("attempts", ref("DeliveryAttempts")), ...errors(...common) },
      },
    ],
    [
      "GET",
      "/:webhook/dead-letters",
      {
        operationId: "listDeadLetters",
        summary: "Deliveries that exhausted their attempts, newest first",
        parameters: [query("limit", intRange(LIST_LIMIT)), query("cursor", str, "the previous `nextCursor`")],
        responses: { "200": json("dead letters", ref("DeadLetters")), ...errors(...common) },
      },
    ],
    [
      "POST",
      "/:webhook/dead-letters/requeue",
      {
        operationId: "requeueDeadLetters",
        summary: "Requeue every dead delivery of the webhook",
        responses: { "200": json("requeued", ref("RequeuedCount")), ...errors(...common, ...body) },
      },
    ],
    [
      "POST",
      "/:webhook/dead-letters/:delivery_id/requeue",
      {
        operationId: "requeueDeadLetter",
        summary: "Requeue one dead delivery",
        responses: { "200": json("requeued", ref("Requeued")), ...errors(...common, ...body) },
      },
    ],
    [
      "POST",
      "/:webhook/replay",
      {
        operationId: "replayWebhook",
        summary: `Replay historical rows or events of a block range (at most ${MAX_REPLAY_BLOCKS} blocks)`,
        requestBody: jsonBody(ref("ReplayRequest")),
        responses: { "200": json("replay", ref("ReplayResult")), ...errors(...common, ...body) },
      },
    ],
  ];
  return rows.map(([method, path, doc]) => ({
    method,
    path: prefix + path,
    auth: "write",
    doc: {
      ...doc,
      tag: "webhooks",
      ...(deprecated
        ? {
            operationId: `${doc.operationId}ViaSubscriptions`,
            deprecated: true,
            summary: `${doc.summary} (deprecated alias)`,
          }
        : {}),
    },
  }));
}

/** Every documented route. */
export const DOCUMENTED_ROUTES: readonly DocumentedRoute[] = [
  ...OPERATIONS,
  ...webhookOperations("/api/webhooks", false),
  ...webhookOperations("/api/subscriptions", true),
];
