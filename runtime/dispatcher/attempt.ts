/**
 * One attempt as a short series of pure steps around the POST (STYLE.md svix "dispatch moves
 * through small typed states"): `prepareAttempt` renders the body in the webhook's format and
 * signs it; `settleAttempt` turns the HTTP outcome into the row's next state (delivered, retry at,
 * or dead) and the delivery-log entry.
 */
import type { Format } from "./formats.js";
import { renderBody } from "./formats.js";
import type { PostOutcome } from "./http-post.js";
import type { AttemptResult, ClaimedRow } from "./outbox-store.js";
import { decideRetry, parseRetryAfter, type RetryPolicy } from "./retry.js";
import { buildDeliveryHeaders, type Signer } from "./signing.js";

/** What an attempt needs to know about its webhook. */
export interface EndpointConfig {
  id: string;
  url: string;
  format: Format;
  timeoutMs: number;
  maxAttempts: number;
  /** Live `whsec_` secrets, current first. */
  secrets: readonly string[];
}

export interface PreparedRequest {
  body: string;
  headers: Record<string, string>;
}

export function prepareAttempt(
  row: ClaimedRow,
  endpoint: EndpointConfig,
  signer: Signer,
  nowMs: number,
): PreparedRequest {
  const rendered = renderBody({
    format: endpoint.format,
    type: row.eventType,
    dataJson: row.dataJson,
    deliveryId: row.deliveryId,
    createdAt: row.createdAt,
    webhookId: endpoint.id,
  });
  const headers = buildDeliveryHeaders({
    format: endpoint.format,
    deliveryId: row.deliveryId,
    body: rendered.body,
    contentType: rendered.contentType,
    timestampSeconds: Math.floor(nowMs / 1000),
    signer,
    secrets: endpoint.secrets,
  });
  return { body: rendered.body, headers };
}

/** A 2xx is success; anything else (including no response) is a failed attempt. */
export function isSuccess(outcome: Pick<PostOutcome, "status" | "error">): boolean {
  return outcome.error === null && outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
}

export function settleAttempt(
  row: ClaimedRow,
  endpoint: Pick<EndpointConfig, "maxAttempts">,
  outcome: PostOutcome,
  startedAtMs: number,
  policy: RetryPolicy,
  random: () => number,
): AttemptResult {
  const attempt = row.attempts + 1;
  const success = isSuccess(outcome);
  const finishedAt = startedAtMs + outcome.durationMs;
  let next: AttemptResult["next"];
  if (success) {
    next = { status: "delivered" };
  } else {
    const decision = decideRetry(
      attempt,
      endpoint.maxAttempts,
      parseRetryAfter(outcome.retryAfter, finishedAt),
      policy,
      random,
    );
    next =
      decision.kind === "dead"
        ? { status: "dead" }
        : { status: "pending", at: new Date(finishedAt + decision.delayMs) };
  }
  return {
    outboxId: row.id,
    leaseToken: row.leaseToken,
    webhookId: row.webhookId,
    attempt,
    startedAt: new Date(startedAtMs),
    durationMs: outcome.durationMs,
    success,
    responseStatus: outcome.status,
    responseExcerpt: outcome.excerpt,
    error: outcome.error,
    next,
  };
}
