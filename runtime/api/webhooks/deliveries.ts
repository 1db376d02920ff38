/**
 * A webhook's delivery history and its repair (SPEC.md "Write and management routes"): the
 * attempt log, dead letters and their requeue, and replay of a block range. Handlers validate
 * the request and call the dispatcher's management service.
 */
import { notFound } from "../../internal/errors.js";
import { rejectUnknownParams, singleParam } from "../http/query-params.js";
import type { WebhooksHandler } from "./context.js";
import { bodyObject, loadWebhook, parseListPage, service } from "./request.js";

/** The id of a page's last row when the store returned one more row than asked (a next page exists). */
function nextCursor<T extends { id: string }>(rows: readonly T[], limit: number): string | null {
  return rows.length > limit ? rows[limit - 1].id : null;
}

/**
 * GET /api/webhooks/:webhook/deliveries?limit&cursor&deliveryId — every attempt, newest first:
 * time, status, latency, response excerpt, error.
 */
export const listWebhookDeliveries: WebhooksHandler = async (req, res, ctx) => {
  rejectUnknownParams(req.query, ["limit", "cursor", "deliveryId"]);
  const w = await loadWebhook(req, ctx);
  const { limit, cursor } = parseListPage(req.query);
  const deliveryId = singleParam("deliveryId", req.query.deliveryId);
  const rows = await service(ctx).attempts(w.id, { limit, cursor, deliveryId });
  const page = rows.slice(0, limit);
  res.json({
    deliveries: page.map((r) => ({
      attemptId: r.attemptId,
      deliveryId: r.deliveryId,
      type: r.eventType,
      attempt: r.attempt,
      attemptedAt: r.attemptedAt.toISOString(),
      success: r.success,
      responseStatus: r.responseStatus,
      latencyMs: r.durationMs,
      responseExcerpt: r.responseExcerpt,
      error: r.error,
      deliveryStatus: r.deliveryStatus,
    })),
    nextCursor: nextCursor(
      rows.map((r) => ({ id: r.attemptId })),
      limit,
    ),
  });
};

/** GET /api/webhooks/:webhook/dead-letters?limit&cursor — deliveries that exhausted their attempts, newest first. */
export const listDeadLetters: WebhooksHandler = async (req, res, ctx) => {
  rejectUnknownParams(req.query, ["limit", "cursor"]);
  const w = await loadWebhook(req, ctx);
  const { limit, cursor } = parseListPage(req.query);
  const rows = await service(ctx).deadLetters(w.id, { limit, cursor });
  res.json({
    deadLetters: rows.slice(0, limit).map((r) => ({
      deliveryId: r.deliveryId,
      type: r.eventType,
      attempts: r.attempts,
      lastStatus: r.lastStatus,
      lastError: r.lastError,
      createdAt: r.createdAt?.toISOString() ?? null,
      diedAt: r.finishedAt?.toISOString() ?? null,
      data: r.data,
    })),
    nextCursor: nextCursor(rows, limit),
  });
};

/** POST /api/webhooks/:webhook/dead-letters/:delivery_id/requeue — back to pending with fresh attempts. */
export const requeueDeadLetter: WebhooksHandler = async (req, res, ctx) => {
  const w = await loadWebhook(req, ctx);
  const deliveryId = String(req.params.delivery_id);
  if (!(await service(ctx).requeue(w.id, deliveryId)))
    throw notFound("DELIVERY_NOT_FOUND", `webhook ${w.id} has no dead delivery ${JSON.stringify(deliveryId)}`, {
      deliveryId,
    });
  res.json({ deliveryId, status: "pending" });
};

/** POST /api/webhooks/:webhook/dead-letters/requeue — every dead delivery of the webhook. */
export const requeueDeadLetters: WebhooksHandler = async (req, res, ctx) => {
  const w = await loadWebhook(req, ctx);
  res.json({ requeuedCount: await service(ctx).requeue(w.id) });
};

/** POST /api/webhooks/:webhook/replay `{ fromBlock, toBlock }` → `{ replayId, enqueuedCount, scannedCount }`. */
export const replayWebhook: WebhooksHandler = async (req, res, ctx) => {
  const w = await loadWebhook(req, ctx);
  const { range, result } = await service(ctx).replay(w, bodyObject(req, true));
  ctx.log.info({
    msg: "webhook replay",
    webhook_id: w.id,
    from_block: range.fromBlock,
    to_block: range.toBlock,
    ...result,
  });
  res.json(result);
};
