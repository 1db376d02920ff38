/**
 * The webhook routes (SPEC.md "Write and management routes", "Versioning" 4): every path and its
 * handler, for the route table in ../routes.ts, which mounts them under `/api/webhooks` and under
 * the deprecated alias `/api/subscriptions` (same answers, plus a `Deprecation` header).
 * `:webhook` is a webhook id (`wh_…`) or its name. Handlers: crud.ts (the resource) and
 * deliveries.ts (delivery log, dead letters, replay); request parsing in request.ts.
 */
import type { RouteEntry } from "../http/route-table.js";
import type { WebhooksContext, WebhooksHandler } from "./context.js";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  pauseWebhook,
  resumeWebhook,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
} from "./crud.js";
import {
  listDeadLetters,
  listWebhookDeliveries,
  replayWebhook,
  requeueDeadLetter,
  requeueDeadLetters,
} from "./deliveries.js";

/** SPEC.md Versioning 4: the old name answers the same, marked deprecated (RFC 9745 style header). */
function deprecated(handler: WebhooksHandler, successor: string): WebhooksHandler {
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
export function webhookRoutes(prefix: string, options: { deprecatedFor?: string } = {}): RouteEntry<WebhooksContext>[] {
  const rows: [RouteEntry<WebhooksContext>["method"], string, WebhooksHandler][] = [
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
