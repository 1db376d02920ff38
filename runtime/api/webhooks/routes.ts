/**
 * Webhook management (SPEC.md "Webhook (resource)", "Write and management routes",
 * "Authentication" 7, "Versioning" 4). Handlers are named after their
 * operationIds; `webhookRoutes(prefix)` lists them for routes.ts, which mounts them under
 * `/api/webhooks` and under the deprecated alias `/api/subscriptions` (same answers, plus a
 * `Deprecation` header). `:webhook` is a webhook id (`wh_…`) or its name.
 *
 * Records are camelCase (like the creation fields); the `whsec_` secret appears only in the
 * answers of create and rotate-secret, never in a later read.
 */
import type { Request, Response } from "express";
import { readTip } from "../../chain/tip.js";
import { buildTestData, TEST_TYPE } from "../../dispatcher/chain-payload.js";
import { DEFAULT_FORMAT, FORMATS, isFormat } from "../../dispatcher/formats.js";
import type { WebhookService } from "../../dispatcher/index.js";
import { DEFAULT_LIMITS, parseLimits } from "../../dispatcher/limits.js";
import { type ClaimedRow, newDeliveryId, notifyWorkers, WEBHOOK_CHANNEL } from "../../dispatcher/outbox-store.js";
import { parseReplayRange, runReplay } from "../../dispatcher/replay.js";
import { generateSecret } from "../../dispatcher/signing.js";
import { checkResolved, checkWebhookUrl } from "../../dispatcher/ssrf.js";
import { parseRowFilter } from "../../dispatcher/subgraph-filter.js";
import { parseTriggers } from "../../dispatcher/triggers.js";
import {
  deleteWebhook as deleteWebhookRow,
  findWebhook,
  insertWebhook,
  listWebhooks as listWebhookRows,
  newWebhookId,
  toWebhookRecord,
  updateWebhook as updateWebhookRow,
  type WebhookPatch,
  type WebhookRow,
} from "../../dispatcher/webhook-store.js";
import { badRequest, conflict, notFound, ServiceError } from "../../internal/errors.js";
import { parseEnumParam, parseIntegerParam, rejectUnknownParams, singleParam } from "../http/query-params.js";
import type { RouteEntry } from "../http/route-table.js";
import type { ApiHandler, HandlerContext } from "../types.js";

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const DEFAULT_GRACE_SECONDS = 24 * 60 * 60;
const MAX_GRACE_SECONDS = 7 * 24 * 60 * 60;

const CREATE_FIELDS = [
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
];
const UPDATE_FIELDS = ["name", "url", "format", "triggers", "filter", "timeoutMs", "maxAttempts", "concurrency"];

const invalid = (field: string, message: string, details: Record<string, unknown> = {}) =>
  badRequest("VALIDATION_ERROR", message, { field, ...details });

function service(ctx: HandlerContext): WebhookService {
  if (!ctx.webhooks) throw new ServiceError(503, "WEBHOOKS_UNAVAILABLE", "this API process has no webhook dispatcher");
  return ctx.webhooks;
}

function bodyObject(req: Request, required: boolean): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null) {
    if (required) throw invalid("body", "a JSON object body is required");
    return {};
  }
  if (typeof body !== "object" || Array.isArray(body)) throw invalid("body", "the body must be a JSON object");
  return body as Record<string, unknown>;
}

function rejectUnknownFields(body: Record<string, unknown>, allowed: readonly string[], what: string): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key))
      throw invalid(key, `unknown field ${JSON.stringify(key)} for ${what}; accepted: ${allowed.join(", ")}`);
  }
}

async function loadWebhook(req: Request, ctx: HandlerContext): Promise<WebhookRow> {
  const key = String(req.params.webhook);
  const w = await findWebhook(ctx.db, key);
  if (!w) throw notFound("WEBHOOK_NOT_FOUND", `no webhook with id or name ${JSON.stringify(key)}`, { webhook: key });
  return w;
}

function record(w: WebhookRow, ctx: HandlerContext): Record<string, unknown> {
  const svc = service(ctx);
  return toWebhookRecord(w, { cooldownMs: svc.dispatcher.breakerPolicy.cooldownMs, nowMs: svc.now() });
}

function parseName(v: unknown): string {
  if (typeof v !== "string" || !NAME_RE.test(v)) {
    throw invalid(
      "name",
      "name must be 1 to 100 characters: letters, digits, '.', '_' or '-', starting with a letter or digit",
    );
  }
  return v;
}

/** URL rules : http(s), no credentials, no private target unless allowed (name resolved too). */
async function parseUrl(v: unknown, svc: WebhookService): Promise<string> {
  const verdict = checkWebhookUrl(v, svc.allowPrivate);
  if (!verdict.ok) throw badRequest("URL_NOT_ALLOWED", verdict.reason, { field: "url" });
  if (!svc.allowPrivate) {
    const resolved = checkResolved(await svc.resolveHost(verdict.url.hostname), false);
    if (!resolved.ok) throw badRequest("URL_NOT_ALLOWED", resolved.reason, { field: "url" });
  }
  return verdict.url.toString();
}

function parseFormat(v: unknown): (typeof FORMATS)[number] {
  if (!isFormat(v)) throw invalid("format", `format must be one of: ${FORMATS.join(", ")}`);
  return v;
}

function findTable(svc: WebhookService, subgraphName: unknown, tableName: unknown) {
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

async function tipHeight(ctx: HandlerContext): Promise<number | null> {
  const { rows } = await ctx.db.query<{ block_height: number | null }>("SELECT block_height FROM control.chain_tip");
  return rows[0]?.block_height ?? null;
}

async function announce(ctx: HandlerContext): Promise<void> {
  await ctx.db.notify(WEBHOOK_CHANNEL, "webhooks");
  service(ctx).dispatcher.wake();
}

/** POST /api/webhooks */
export const createWebhook: ApiHandler = async (req, res, ctx) => {
  const svc = service(ctx);
  const body = bodyObject(req, true);
  rejectUnknownFields(body, CREATE_FIELDS, "a webhook");
  const name = parseName(body.name);
  const url = await parseUrl(body.url, svc);
  const format = body.format === undefined ? DEFAULT_FORMAT : parseFormat(body.format);
  const limits = { ...DEFAULT_LIMITS, ...parseLimits(body) };
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
  const id = newWebhookId();
  const secret = generateSecret();
  const row = await ctx.db.transaction(async (q) => {
    // Webhooks start at the tip, no backfill (replay covers history). Locking the tip row waits
    // for a block being ingested: that block is then the start, never half seen.
    const { rows } = await q.query<{ block_height: number | null }>(
      "SELECT block_height FROM control.chain_tip FOR UPDATE",
    );
    return insertWebhook(q, {
      id,
      name,
      kind,
      url,
      format,
      triggers,
      subgraphName,
      tableName,
      filter,
      startHeight: rows[0]?.block_height ?? -1,
      ...limits,
      secretSealed: svc.secrets.seal(secret, id),
    });
  });
  if (!row) throw conflict("WEBHOOK_NAME_TAKEN", `a webhook named ${JSON.stringify(name)} exists`, { name });
  await announce(ctx);
  ctx.log.info({ msg: "webhook created", webhook_id: id, kind, url });
  res.status(201).json({ ...record(row, ctx), secret });
};

/** GET /api/webhooks */
export const listWebhooks: ApiHandler = async (req, res, ctx) => {
  rejectUnknownParams(req.query, ["kind"]);
  const raw = singleParam("kind", req.query.kind);
  const kind = raw === undefined ? undefined : parseEnumParam("kind", raw, ["chain", "subgraph"] as const, "chain");
  const rows = await listWebhookRows(ctx.db, { kind });
  res.json({ webhooks: rows.map((w) => record(w, ctx)) });
};

/** GET /api/webhooks/:webhook */
export const getWebhook: ApiHandler = async (req, res, ctx) => {
  rejectUnknownParams(req.query, []);
  res.json(record(await loadWebhook(req, ctx), ctx));
};

/** PATCH /api/webhooks/:webhook — url, format, filter, limits, triggers, name. */
export const updateWebhook: ApiHandler = async (req, res, ctx) => {
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
  const updated = await updateWebhookRow(ctx.db, w.id, patch);
  if (updated === "name_taken")
    throw conflict("WEBHOOK_NAME_TAKEN", `a webhook named ${JSON.stringify(patch.name)} exists`, { name: patch.name });
  if (!updated) throw notFound("WEBHOOK_NOT_FOUND", `webhook ${w.id} was deleted`, { webhook: w.id });
  await announce(ctx);
  res.json(record(updated, ctx));
};

/** DELETE /api/webhooks/:webhook — its outbox, log and replays go with it. */
export const deleteWebhook: ApiHandler = async (req, res, ctx) => {
  const w = await loadWebhook(req, ctx);
  await ctx.db.transaction(async (q) => {
    // A block transaction in flight may be writing outbox rows for this webhook (it reads the
    // webhook list once, holding the tip row lock): wait for it, as creation does.
    await readTip(q, true);
    await deleteWebhookRow(q, w.id);
  });
  await announce(ctx);
  ctx.log.info({ msg: "webhook deleted", webhook_id: w.id });
  res.status(204).end();
};

async function setStatus(req: Request, res: Response, ctx: HandlerContext, status: "active" | "paused"): Promise<void> {
  const w = await loadWebhook(req, ctx);
  const updated = await updateWebhookRow(ctx.db, w.id, { status });
  if (!updated || updated === "name_taken")
    throw notFound("WEBHOOK_NOT_FOUND", `webhook ${w.id} was deleted`, { webhook: w.id });
  await announce(ctx);
  res.json(record(updated, ctx));
}

/** POST /api/webhooks/:webhook/pause — deliveries wait (events are still recorded). */
export const pauseWebhook: ApiHandler = (req, res, ctx) => setStatus(req, res, ctx, "paused");

/** POST /api/webhooks/:webhook/resume */
export const resumeWebhook: ApiHandler = (req, res, ctx) => setStatus(req, res, ctx, "active");

/**
 * POST /api/webhooks/:webhook/rotate-secret `{ gracePeriodSeconds? }` (default one day, at most
 * seven): a new secret signs from now on; the old one keeps signing too until the grace period ends.
 */
export const rotateWebhookSecret: ApiHandler = async (req, res, ctx) => {
  const svc = service(ctx);
  const w = await loadWebhook(req, ctx);
  const body = bodyObject(req, false);
  rejectUnknownFields(body, ["gracePeriodSeconds"], "rotate-secret");
  const grace = body.gracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
  if (typeof grace !== "number" || !Number.isInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS) {
    throw invalid("gracePeriodSeconds", `gracePeriodSeconds must be an integer from 0 to ${MAX_GRACE_SECONDS}`);
  }
  const secret = generateSecret();
  const updated = await updateWebhookRow(ctx.db, w.id, {
    secretSealed: svc.secrets.seal(secret, w.id),
    previousSecretSealed: grace > 0 ? w.secretSealed : null,
    previousSecretExpiresAt: grace > 0 ? new Date(svc.now() + grace * 1000) : null,
  });
  if (!updated || updated === "name_taken")
    throw notFound("WEBHOOK_NOT_FOUND", `webhook ${w.id} was deleted`, { webhook: w.id });
  await announce(ctx);
  ctx.log.info({ msg: "webhook secret rotated", webhook_id: w.id, grace_seconds: grace });
  res.json({ ...record(updated, ctx), secret });
};

/**
 * POST /api/webhooks/:webhook/test `{ message? }` — sends a `chain.test.apply` now (even while
 * paused or with an open circuit), records it in the delivery log, and answers with the outcome.
 * A failed test is not retried; it is listed with the dead letters.
 */
export const testWebhook: ApiHandler = async (req, res, ctx) => {
  const svc = service(ctx);
  const w = await loadWebhook(req, ctx);
  const body = bodyObject(req, false);
  rejectUnknownFields(body, ["message"], "a test delivery");
  if (body.message !== undefined && (typeof body.message !== "string" || body.message.length > 1000)) {
    throw invalid("message", "message must be a string of at most 1000 characters");
  }
  const now = new Date(svc.now());
  const deliveryId = newDeliveryId();
  const token = `test:${deliveryId}`;
  const data = buildTestData(w.id, now, body.message as string | undefined);
  const { rows } = await ctx.db.query<{ id: string; created_at: Date }>(
    `INSERT INTO control.webhook_outbox (webhook_id, delivery_id, event_type, dedupe_kind, tx_id, event_index, block_hash,
       data, next_attempt_at, leased_until, lease_token)
     VALUES ($1, $2, $3, 'test', $2, -1, '', $4, $5::timestamptz + interval '1 hour', $5::timestamptz + interval '1 hour', $6)
     RETURNING id, created_at`,
    [w.id, deliveryId, TEST_TYPE, JSON.stringify(data), now, token],
  );
  const row: ClaimedRow = {
    id: String(rows[0].id),
    webhookId: w.id,
    deliveryId,
    eventType: TEST_TYPE,
    data,
    attempts: 0,
    createdAt: new Date(rows[0].created_at),
    fence: false,
    leaseToken: token,
  };
  const result = await svc.dispatcher.deliverNow(row, w);
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

const LIST_LIMIT = { min: 1, max: 1000, default: 100 };

function parseCursor(raw: unknown): string | undefined {
  const v = singleParam("cursor", raw);
  if (v === undefined) return undefined;
  if (!/^\d{1,19}$/.test(v))
    throw badRequest("INVALID_PARAMETER", "cursor must be a nextCursor value from a previous page", {
      parameter: "cursor",
    });
  return v;
}

/**
 * GET /api/webhooks/:webhook/deliveries?limit&cursor&deliveryId — every attempt, newest first:
 * time, status, latency, response excerpt, error.
 */
export const listWebhookDeliveries: ApiHandler = async (req, res, ctx) => {
  rejectUnknownParams(req.query, ["limit", "cursor", "deliveryId"]);
  const w = await loadWebhook(req, ctx);
  const limit = parseIntegerParam("limit", req.query.limit, LIST_LIMIT);
  const cursor = parseCursor(req.query.cursor);
  const deliveryId = singleParam("deliveryId", req.query.deliveryId);
  const { rows } = await ctx.db.query<Record<string, unknown>>(
    `SELECT a.id, o.delivery_id, o.event_type, o.status, a.attempt, a.attempted_at, a.duration_ms, a.response_status,
            a.response_excerpt, a.error, a.success
       FROM control.webhook_attempts a JOIN control.webhook_outbox o ON o.id = a.outbox_id
      WHERE a.webhook_id = $1 AND ($2::bigint IS NULL OR a.id < $2) AND ($3::text IS NULL OR o.delivery_id = $3)
      ORDER BY a.id DESC LIMIT $4`,
    [w.id, cursor ?? null, deliveryId ?? null, limit + 1],
  );
  const page = rows.slice(0, limit);
  res.json({
    deliveries: page.map((r) => ({
      attemptId: String(r.id),
      deliveryId: r.delivery_id,
      type: r.event_type,
      attempt: r.attempt,
      attemptedAt: new Date(r.attempted_at as string).toISOString(),
      success: r.success,
      responseStatus: r.response_status,
      latencyMs: r.duration_ms,
      responseExcerpt: r.response_excerpt,
      error: r.error,
      deliveryStatus: r.status,
    })),
    nextCursor: rows.length > limit ? String(page[page.length - 1].id) : null,
  });
};

/** GET /api/webhooks/:webhook/dead-letters?limit&cursor — deliveries that exhausted their attempts, newest first. */
export const listDeadLetters: ApiHandler = async (req, res, ctx) => {
  rejectUnknownParams(req.query, ["limit", "cursor"]);
  const w = await loadWebhook(req, ctx);
  const limit = parseIntegerParam("limit", req.query.limit, LIST_LIMIT);
  const cursor = parseCursor(req.query.cursor);
  const { rows } = await ctx.db.query<Record<string, unknown>>(
    `SELECT id, delivery_id, event_type, attempts, last_status, last_error, created_at, finished_at, data
       FROM control.webhook_outbox
      WHERE webhook_id = $1 AND status = 'dead' AND ($2::bigint IS NULL OR id < $2)
      ORDER BY id DESC LIMIT $3`,
    [w.id, cursor ?? null, limit + 1],
  );
  const page = rows.slice(0, limit);
  const iso = (v: unknown) => (v === null ? null : new Date(v as string).toISOString());
  res.json({
    deadLetters: page.map((r) => ({
      deliveryId: r.delivery_id,
      type: r.event_type,
      attempts: r.attempts,
      lastStatus: r.last_status,
      lastError: r.last_error,
      createdAt: iso(r.created_at),
      diedAt: iso(r.finished_at),
      data: r.data,
    })),
    nextCursor: rows.length > limit ? String(page[page.length - 1].id) : null,
  });
};

/** POST /api/webhooks/:webhook/dead-letters/:delivery_id/requeue — back to pending with fresh attempts. */
export const requeueDeadLetter: ApiHandler = async (req, res, ctx) => {
  const w = await loadWebhook(req, ctx);
  const deliveryId = String(req.params.delivery_id);
  const { rowCount } = await ctx.db.query(
    `UPDATE control.webhook_outbox SET status = 'pending', attempts = 0, next_attempt_at = now(), finished_at = NULL,
       leased_until = NULL, lease_token = NULL
      WHERE webhook_id = $1 AND delivery_id = $2 AND status = 'dead'`,
    [w.id, deliveryId],
  );
  if (!rowCount)
    throw notFound("DELIVERY_NOT_FOUND", `webhook ${w.id} has no dead delivery ${JSON.stringify(deliveryId)}`, {
      deliveryId,
    });
  await notifyWorkers(ctx.db);
  service(ctx).dispatcher.wake();
  res.json({ deliveryId, status: "pending" });
};

/** POST /api/webhooks/:webhook/dead-letters/requeue — every dead delivery of the webhook. */
export const requeueDeadLetters: ApiHandler = async (req, res, ctx) => {
  const w = await loadWebhook(req, ctx);
  const { rowCount } = await ctx.db.query(
    `UPDATE control.webhook_outbox SET status = 'pending', attempts = 0, next_attempt_at = now(), finished_at = NULL,
       leased_until = NULL, lease_token = NULL
      WHERE webhook_id = $1 AND status = 'dead'`,
    [w.id],
  );
  if (rowCount) {
    await notifyWorkers(ctx.db);
    service(ctx).dispatcher.wake();
  }
  res.json({ requeuedCount: rowCount });
};

/** POST /api/webhooks/:webhook/replay `{ fromBlock, toBlock }` → `{ replayId, enqueuedCount, scannedCount }`. */
export const replayWebhook: ApiHandler = async (req, res, ctx) => {
  const svc = service(ctx);
  const w = await loadWebhook(req, ctx);
  const range = parseReplayRange(bodyObject(req, true), await tipHeight(ctx));
  const subgraph = w.kind === "subgraph" && w.subgraphName ? svc.findSubgraph(w.subgraphName) : undefined;
  const result = await runReplay({ db: ctx.db, sbtcRegistry: svc.sbtcRegistry, subgraph }, w, range);
  ctx.log.info({
    msg: "webhook replay",
    webhook_id: w.id,
    from_block: range.fromBlock,
    to_block: range.toBlock,
    ...result,
  });
  svc.dispatcher.wake();
  res.json(result);
};

/** SPEC.md Versioning 4: the old name answers the same, marked deprecated (RFC 9745 style header). */
function deprecated(handler: ApiHandler, successor: string): ApiHandler {
  return (req, res, ctx) => {
    res.setHeader("Deprecation", "true");
    res.setHeader("Link", `<${successor}>; rel="successor-version"`);
    return handler(req, res, ctx);
  };
}

/**
 * The webhook routes under `prefix` (`/api/webhooks`, or the deprecated `/api/subscriptions`).
 * Every one needs the instance token (auth "write").
 */
export function webhookRoutes(prefix: string, options: { deprecatedFor?: string } = {}): RouteEntry[] {
  const rows: [RouteEntry["method"], string, ApiHandler][] = [
    ["POST", "", createWebhook],
    ["GET", "", listWebhooks],
    ["GET", "/:webhook", getWebhook],
    ["PATCH", "/:webhook", updateWebhook],
    ["DELETE", "/:webhook", deleteWebhook],
    ["POST", "/:webhook/pause", pauseWebhook],
    ["POST", "/:webhook/resume", resumeWebhook],
    ["POST", "/:webhook/rotate-secret", rotateWebhookSecret],
    ["POST", "/:webhook/test", testWebhook],
    ["GET", "/:webhook/deliveries", listWebhookDeliveries],
    ["GET", "/:webhook/dead-letters", listDeadLetters],
    ["POST", "/:webhook/dead-letters/requeue", requeueDeadLetters],
    ["POST", "/:webhook/dead-letters/:delivery_id/requeue", requeueDeadLetter],
    ["POST", "/:webhook/replay", replayWebhook],
  ];
  return rows.map(([method, path, handler]) => ({
    method,
    path: prefix + path,
    auth: "write",
    handler: options.deprecatedFor
      ? deprecated(handler, options.deprecatedFor + path.replace(/\/:webhook.*$/, ""))
      : handler,
  }));
}
