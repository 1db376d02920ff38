/**
 * Request parsing of the webhook routes: body shape, field rules (name, url, format, table),
 * list paging, and the webhook a `:webhook` path segment names. Throws 4xx ServiceErrors.
 */
import type { Request } from "express";
import { FORMATS, isFormat } from "../../dispatcher/formats.js";
import type { WebhookRow, WebhookService } from "../../dispatcher/index.js";
import { checkResolved, checkWebhookUrl } from "../../dispatcher/ssrf.js";
import { badRequest, notFound, ServiceError } from "../../internal/errors.js";
import { parseIntegerParam, singleParam } from "../http/query-params.js";
import type { WebhooksContext } from "./context.js";

import { LIST_LIMIT, NAME_PATTERN } from "./fields.js";

const NAME_RE = new RegExp(NAME_PATTERN);

export const invalid = (field: string, message: string, details: Record<string, unknown> = {}) =>
  badRequest("VALIDATION_ERROR", message, { field, ...details });

/** The webhook service, or 503 when this API process runs without a dispatcher. */
export function service(ctx: WebhooksContext): WebhookService {
  if (!ctx.webhooks) throw new ServiceError(503, "WEBHOOKS_UNAVAILABLE", "this API process has no webhook dispatcher");
  return ctx.webhooks;
}

export function bodyObject(req: Request, required: boolean): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null) {
    if (required) throw invalid("body", "a JSON object body is required");
    return {};
  }
  if (typeof body !== "object" || Array.isArray(body)) throw invalid("body", "the body must be a JSON object");
  return body as Record<string, unknown>;
}

export function rejectUnknownFields(body: Record<string, unknown>, allowed: readonly string[], what: string): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key))
      throw invalid(key, `unknown field ${JSON.stringify(key)} for ${what}; accepted: ${allowed.join(", ")}`);
  }
}

/** The webhook `:webhook` names (id `wh_…` or name), or 404 WEBHOOK_NOT_FOUND. */
export async function loadWebhook(req: Request, ctx: WebhooksContext): Promise<WebhookRow> {
  const key = String(req.params.webhook);
  const w = await service(ctx).find(key);
  if (!w) throw notFound("WEBHOOK_NOT_FOUND", `no webhook with id or name ${JSON.stringify(key)}`, { webhook: key });
  return w;
}

export function parseName(v: unknown): string {
  if (typeof v !== "string" || !NAME_RE.test(v)) {
    throw invalid(
      "name",
      "name must be 1 to 100 characters: letters, digits, '.', '_' or '-', starting with a letter or digit",
    );
  }
  return v;
}

/** URL rules: http(s), no credentials, no private target unless allowed (name resolved too). */
export async function parseUrl(v: unknown, svc: WebhookService): Promise<string> {
  const verdict = checkWebhookUrl(v, svc.allowPrivate);
  if (!verdict.ok) throw badRequest("URL_NOT_ALLOWED", verdict.reason, { field: "url" });
  if (!svc.allowPrivate) {
    const resolved = checkResolved(await svc.resolveHost(verdict.url.hostname), false);
    if (!resolved.ok) throw badRequest("URL_NOT_ALLOWED", resolved.reason, { field: "url" });
  }
  return verdict.url.toString();
}

export function parseFormat(v: unknown): (typeof FORMATS)[number] {
  if (!isFormat(v)) throw invalid("format", `format must be one of: ${FORMATS.join(", ")}`);
  return v;
}

/** The subgraph table a subgraph webhook watches, or 400 naming what is missing. */
export function findTable(svc: WebhookService, subgraphName: unknown, tableName: unknown) {
  if (typeof subgraphName !== "string" || !subgraphName)
    throw invalid("subgraphName", "subgraphName must name a subgraph");
  if (typeof tableName !== "string" || !tableName)
    throw invalid("tableName", "tableName must name a table of the subgraph");
  const module = svc.findSubgraph(subgraphName);
  if (!module) throw invalid("subgraphName", `no subgraph ${JSON.stringify(subgraphName)} is loaded`);
  const table = module.tables[tableName];
  if (!table) {
    throw invalid(
      "tableName",
      `subgraph ${subgraphName} has no table ${JSON.stringify(tableName)} (tables: ${Object.keys(module.tables).join(", ")})`,
    );
  }
  return { module, table };
}

/** `limit` and `cursor` of the delivery-log lists. */
export function parseListPage(query: Request["query"]): { limit: number; cursor?: string } {
  const limit = parseIntegerParam("limit", query.limit, LIST_LIMIT);
  const cursor = singleParam("cursor", query.cursor);
  if (cursor !== undefined && !/^\d{1,19}$/.test(cursor))
    throw badRequest("INVALID_PARAMETER", "cursor must be a nextCursor value from a previous page", {
      parameter: "cursor",
    });
  return { limit, cursor };
}
