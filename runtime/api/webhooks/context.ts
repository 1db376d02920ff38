/** What the webhook handlers receive (../http/context.ts plus the dispatcher's management service). */
import type { WebhookService } from "../../dispatcher/index.js";
import type { RequestContext } from "../http/context.js";
import type { RouteHandler } from "../http/route-table.js";

export interface WebhooksDeps {
  /** Webhook management (runtime/dispatcher); absent in shell-only tests (503). */
  webhooks?: WebhookService;
}

export interface WebhooksContext extends RequestContext, WebhooksDeps {}

export type WebhooksHandler = RouteHandler<WebhooksContext>;
