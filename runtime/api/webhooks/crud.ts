/**
 * Webhook resources (SPEC.md "Webhook (resource)"): create, list, get, update, delete, pause,
 * resume, rotate-secret and test. Handlers validate the request and call the dispatcher's
 * management service. Records are camelCase (like the creation fields); the `whsec_` secret
 * appears only in the answers of create and rotate-secret, never in a later read.
 */
import type { Request, Response } from "express";
import { TEST_TYPE } from "../../dispatcher/chain-payload.js";
import { DEFAULT_FORMAT } from "../../dispatcher/formats.js";
import type { WebhookPatch } from "../../dispatcher/index.js";
import { DEFAULT_LIMITS, parseLimits } from "../../dispatcher/limits.js";
import { parseRowFilter } from "../../dispatcher/subgraph-filter.js";
import { parseTriggers } from "../../dispatcher/triggers.js";
import { conflict, notFound } from "../../internal/errors.js";
import { parseEnumParam, rejectUnknownParams, singleParam } from "../http/query-params.js";
import type { WebhooksContext, WebhooksHandler } from "./context.js";
import {
  bodyObject,
  findTable,
  invalid,
  loadWebhook,
  parseFormat,
  parseName,
  parseUrl,
  rejectUnknownFields,
  service,
} from "./request.js";
import { CREATE_FIELDS, DEFAULT_GRACE_SECONDS, MAX_GRACE_SECONDS, MAX_TEST_MESSAGE, UPDATE_FIELDS } from "./fields.js";

/**
 * `ordered`: a boolean; an ordered webhook delivers one at a time (concurrency 1), so a
 * concurrency above 1 alongside it (given, or kept from before) is refused.
 */
function parseOrdered(body: Record<string, unknown>, concurrency: number | undefined): boolean | undefined {
  const v = body.ordered;
  if (v === undefined) return undefined;
  if (typeof v !== "boolean") throw invalid("ordered", "ordered must be true or false");
  if (v && concurrency !== undefined && concurrency !== 1)
    throw invalid("concurrency", "an ordered webhook delivers one at a time: concurrency must be 1 (or left out)");
  return v;
}

/** POST /api/webhooks */
export const createWebhook: WebhooksHandler = async (req, res, ctx) => {
  const svc = service(ctx);
  const body = bodyObject(req, true);
  rejectUnknownFields(body, CREATE_FIELDS, "a webhook");
  const name = parseName(body.name);
  const url = await parseUrl(body.url, svc);
  const format = body.format === undefined ? DEFAULT_FORMAT : parseFormat(body.format);
  const given = parseLimits(body);
  const ordered = parseOrdered(body, given.concurrency) ?? false;
  const limits = { ...DEFAULT_LIMITS, ...given, ...(ordered ? { concurrency: 1 } : {}) };
  const isChain = body.triggers !== undefined;
  const isSubgraph = body.subgraphName !== undefined || body.tableName !== undefined;
  if (isChain && isSubgraph)
    throw invalid(
      "triggers",
      "a webhook takes either triggers (chain) or subgraphName and tableName (subgraph), not both",
    );
  if (!isChain && !isSubgraph)
    throw invalid("triggers", "a webhook needs triggers (chain) or subgraphName and tableName (subgraph)");
  let kind: "chain" | "subgraph";
  let triggers = null;
  let subgraphName = null;
  let tableName = null;
  let filter = null;
  if (isChain) {
    if (body.filter !== undefined)
      throw invalid("filter", "filter applies to subgraph webhooks; chain webhooks filter with their triggers");
    kind = "chain";
    triggers = parseTriggers(body.triggers);
  } else {
    kind = "subgraph";
    const { module, table } = findTable(svc, body.subgraphName, body.tableName);
    subgraphName = module.name;
    tableName = table.name;
    filter = parseRowFilter(body.filter, table);
  }
  const created = await svc.create({
    name,
    kind,
    url,
    format,
    triggers,
    subgraphName,
    tableName,
    filter,
    ordered,
    ...limits,
  });
  if (!created) throw conflict("WEBHOOK_NAME_TAKEN", `a webhook named ${JSON.stringify(name)} exists`, { name });
  ctx.log.info({ msg: "webhook created", webhook_id: created.webhook.id, kind, url });
  res.status(201).json({ ...svc.record(created.webhook), secret: created.secret });
};

/** GET /api/webhooks */
export const listWebhooks: WebhooksHandler = async (req, res, ctx) => {
  rejectUnknownParams(req.query, ["kind"]);
  const svc = service(ctx);
  const raw = singleParam("kind", req.query.kind);
  const kind = raw === undefined ? undefined : parseEnumParam("kind", raw, ["chain", "subgraph"] as const, "chain");
  const rows = await svc.list({ kind });
  res.json({ webhooks: rows.map((w) => svc.record(w)) });
};

/** GET /api/webhooks/:webhook — the webhook and its backlog (outstanding and held deliveries). */
export const getWebhook: WebhooksHandler = async (req, res, ctx) => {
  rejectUnknownParams(req.query, []);
  const svc = service(ctx);
  const webhook = await loadWebhook(req, ctx);
  res.json({ ...svc.record(webhook), backlog: await svc.backlog(webhook.id) });
};

/** PATCH /api/webhooks/:webhook — url, format, filter, limits, triggers, name. */
export const updateWebhook: WebhooksHandler = async (req, res, ctx) => {
  const svc = service(ctx);
  const w = await loadWebhook(req, ctx);
  const body = bodyObject(req, true);
  for (const key of Object.keys(body)) {
    if (["kind", "subgraphName", "tableName", "id", "secret", "status"].includes(key)) {
      throw invalid(
        key,
        `${key} cannot be changed${key === "status" ? "; use pause and resume" : key === "secret" ? "; use rotate-secret" : ""}`,
      );
    }
  }
  rejectUnknownFields(body, UPDATE_FIELDS, "a webhook update");
  if (!Object.keys(body).length) throw invalid("body", `nothing to update; accepted: ${UPDATE_FIELDS.join(", ")}`);
  const patch: WebhookPatch = { ...parseLimits(body) };
  const ordered = parseOrdered(body, patch.concurrency);
  if (ordered !== undefined) patch.ordered = ordered;
  if (ordered) patch.concurrency = 1;
  else if (ordered === undefined && w.ordered && patch.concurrency !== undefined && patch.concurrency !== 1)
    throw invalid("concurrency", "an ordered webhook delivers one at a time: set ordered to false first");
  if (body.name !== undefined) patch.name = parseName(body.name);
  if (body.url !== undefined) patch.url = await parseUrl(body.url, svc);
  if (body.format !== undefined) patch.format = parseFormat(body.format);
  if (body.triggers !== undefined) {
    if (w.kind !== "chain") throw invalid("triggers", "triggers apply to chain webhooks");
    patch.triggers = parseTriggers(body.triggers);
  }
  if (body.filter !== undefined) {
    if (w.kind !== "subgraph") throw invalid("filter", "filter applies to subgraph webhooks");
    patch.filter = parseRowFilter(body.filter, findTable(svc, w.subgraphName, w.tableName).table);
  }
  const updated = await svc.update(w.id, patch);
  if (updated === "name_taken")
    throw conflict("WEBHOOK_NAME_TAKEN", `a webhook named ${JSON.stringify(patch.name)} exists`, { name: patch.name });
  if (!updated) throw notFound("WEBHOOK_NOT_FOUND", `webhook ${w.id} was deleted`, { webhook: w.id });
  res.json(svc.record(updated));
};

/** DELETE /api/webhooks/:webhook — its outbox, log and replays go with it. */
export const deleteWebhook: WebhooksHandler = async (req, res, ctx) => {
  const svc = service(ctx);
  const w = await loadWebhook(req, ctx);
  await svc.remove(w.id);
  ctx.log.info({ msg: "webhook deleted", webhook_id: w.id });
  res.status(204).end();
};

async function setStatus(
  req: Request,
  res: Response,
  ctx: WebhooksContext,
  status: "active" | "paused",
): Promise<void> {
  const svc = service(ctx);
  const w = await loadWebhook(req, ctx);
  const updated = await svc.update(w.id, { status });
  if (!updated || updated === "name_taken")
    throw notFound("WEBHOOK_NOT_FOUND", `webhook ${w.id} was deleted`, { webhook: w.id });
  res.json(svc.record(updated));
}

/** POST /api/webhooks/:webhook/pause — deliveries wait (events are still recorded). */
export const pauseWebhook: WebhooksHandler = (req, res, ctx) => setStatus(req, res, ctx, "paused");

/** POST /api/webhooks/:webhook/resume */
export const resumeWebhook: WebhooksHandler = (req, res, ctx) => setStatus(req, res, ctx, "active");

/**
 * POST /api/webhooks/:webhook/rotate-secret `{ gracePeriodSeconds? }` (default one day, at most
 * seven): a new secret signs from now on; the old one keeps signing too until the grace period ends.
 */
export const rotateWebhookSecret: WebhooksHandler = async (req, res, ctx) => {
  const svc = service(ctx);
  const w = await loadWebhook(req, ctx);
  const body = bodyObject(req, false);
  rejectUnknownFields(body, ["gracePeriodSeconds"], "rotate-secret");
  const grace = body.gracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
  if (typeof grace !== "number" || !Number.isInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS) {
    throw invalid("gracePeriodSeconds", `gracePeriodSeconds must be an integer from 0 to ${MAX_GRACE_SECONDS}`);
  }
  const rotated = await svc.rotateSecret(w, grace);
  if (!rotated) throw notFound("WEBHOOK_NOT_FOUND", `webhook ${w.id} was deleted`, { webhook: w.id });
  ctx.log.info({ msg: "webhook secret rotated", webhook_id: w.id, grace_seconds: grace });
  res.json({ ...svc.record(rotated.webhook), secret: rotated.secret });
};

/**
 * POST /api/webhooks/:webhook/test `{ message? }` — sends a `chain.test.apply` now (even while
 * paused or with an open circuit), records it in the delivery log, and answers with the outcome.
 * A failed test is not retried; it is listed with the dead letters.
 */
export const testWebhook: WebhooksHandler = async (req, res, ctx) => {
  const svc = service(ctx);
  const w = await loadWebhook(req, ctx);
  const body = bodyObject(req, false);
  rejectUnknownFields(body, ["message"], "a test delivery");
  if (body.message !== undefined && (typeof body.message !== "string" || body.message.length > MAX_TEST_MESSAGE)) {
    throw invalid("message", `message must be a string of at most ${MAX_TEST_MESSAGE} characters`);
  }
  const { deliveryId, result } = await svc.sendTest(w, body.message as string | undefined);
  res.json({
    deliveryId,
    type: TEST_TYPE,
    success: result.success,
    responseStatus: result.responseStatus,
    durationMs: result.durationMs,
    responseExcerpt: result.responseExcerpt,
    error: result.error,
  });
};
