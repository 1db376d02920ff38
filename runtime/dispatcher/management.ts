/**
 * What the management API does to webhooks, over the tables this module owns (webhooks, outbox,
 * attempts, replays): the API validates a request, then calls one of these. Every change is
 * announced to the workers (this process at once, others through NOTIFY).
 */
import { readTip } from "../chain/tip.js";
import type { Db } from "../db/types.js";
import { conflict, ServiceError } from "../internal/errors.js";
import type { SubgraphModule } from "../subgraphs/types.js";
import { type BacklogTotals, readBacklogTotals, readWebhookBacklog, type WebhookBacklog } from "./backlog-store.js";
import { buildTestData, TEST_TYPE } from "./chain-payload.js";
import type { Dispatcher } from "./dispatcher.js";
import {
  type AttemptLogRow,
  type AttemptResult,
  type DeadLetterRow,
  insertTestDelivery,
  listAttempts,
  listDeadLetters,
  newDeliveryId,
  notifyWorkers,
  type PageRequest,
  pendingCount,
  requeueDead,
  WEBHOOK_CHANGED_PREFIX,
  WEBHOOK_CHANNEL,
} from "./outbox-store.js";
import { parseReplayRange, type ReplayRange, type ReplayResult, runReplay } from "./replay.js";
import type { SecretBox } from "./secret-box.js";
import { generateSecret } from "./signing.js";
import {
  countWebhooks,
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listWebhooks,
  type NewWebhook,
  newWebhookId,
  toWebhookRecord,
  updateWebhook,
  type WebhookKind,
  type WebhookPatch,
  type WebhookRow,
} from "./webhook-store.js";

export type { BacklogTotals, WebhookBacklog } from "./backlog-store.js";
export type { AttemptLogRow, DeadLetterRow, PageRequest } from "./outbox-store.js";
export type { ReplayRange, ReplayResult } from "./replay.js";
export type { WebhookKind, WebhookPatch, WebhookRow } from "./webhook-store.js";

/** A new webhook as the API validated it; id, secret and start height are given here. */
export type WebhookInput = Omit<NewWebhook, "id" | "startHeight" | "secretSealed">;

export interface WebhookManagement {
  find(idOrName: string): Promise<WebhookRow | undefined>;
  list(options: { kind?: WebhookKind }): Promise<WebhookRow[]>;
  /** The new webhook and its secret (shown once); null when the name is taken. */
  create(input: WebhookInput): Promise<{ webhook: WebhookRow; secret: string } | null>;
  /** The updated webhook; undefined when it was deleted meanwhile; "name_taken" on a name clash. */
  update(id: string, patch: WebhookPatch): Promise<WebhookRow | undefined | "name_taken">;
  remove(id: string): Promise<void>;
  /** A new secret; the old one keeps signing for `graceSeconds`. Null when the webhook was deleted meanwhile. */
  rotateSecret(webhook: WebhookRow, graceSeconds: number): Promise<{ webhook: WebhookRow; secret: string } | null>;
  /** Sends a test delivery now and records it in the delivery log. */
  sendTest(webhook: WebhookRow, message: string | undefined): Promise<{ deliveryId: string; result: AttemptResult }>;
  /** Delivery attempts, newest first (one row more than `limit` when a next page exists). */
  attempts(webhookId: string, page: PageRequest & { deliveryId?: string }): Promise<AttemptLogRow[]>;
  /** Dead deliveries, newest first (one row more than `limit` when a next page exists). */
  deadLetters(webhookId: string, page: PageRequest): Promise<DeadLetterRow[]>;
  /** Dead deliveries back to pending (one, or all when `deliveryId` is absent); how many. */
  requeue(webhookId: string, deliveryId?: string): Promise<number>;
  /** Re-enqueues the webhook's deliveries of a block range (`{ fromBlock, toBlock }`, checked against the tip). */
  replay(webhook: WebhookRow, body: unknown): Promise<{ range: ReplayRange; result: ReplayResult }>;
  /** The API's view of a webhook (never a secret). */
  record(webhook: WebhookRow): Record<string, unknown>;
  /** A webhook's outstanding deliveries: pending in the outbox, held by WEBHOOK_MAX_PENDING, the oldest one's age. */
  backlog(webhookId: string): Promise<WebhookBacklog>;
  /** Every webhook's backlog together, and the batches not yet expanded (GET /status). */
  backlogTotals(): Promise<BacklogTotals>;
}

export interface ManagementDeps {
  db: Db;
  /** WEBHOOK_MAX_COUNT */
  maxWebhooks: number;
  /** WEBHOOK_MAX_PENDING */
  maxPending: number;
  dispatcher: Dispatcher;
  secrets: SecretBox;
  sbtcRegistry: string;
  findSubgraph(name: string): SubgraphModule | undefined;
  now(): number;
}

export function createWebhookManagement(deps: ManagementDeps): WebhookManagement {
  const { db, dispatcher, secrets, now } = deps;
  // Names the webhook: every dispatcher re-reads that one row, not every webhook.
  const announce = async (webhookId: string): Promise<void> => {
    await db.notify(WEBHOOK_CHANNEL, `${WEBHOOK_CHANGED_PREFIX}${webhookId}`);
    dispatcher.wake(webhookId);
  };

  return {
    find: (idOrName) => findWebhook(db, idOrName),
    list: (options) => listWebhooks(db, options),

    async create(input) {
      const id = newWebhookId();
      const secret = generateSecret();
      const webhook = await db.transaction(async (q) => {
        // Webhooks start at the tip, no backfill (replay covers history). Locking the tip row waits
        // for a block being ingested: that block is then the start, never half seen.
        const tip = await readTip(q, true);
        // Counted under the tip lock every creation takes: two creations cannot both pass.
        const count = await countWebhooks(q);
        if (count >= deps.maxWebhooks) {
          throw conflict(
            "WEBHOOK_LIMIT_REACHED",
            `this instance holds ${count} webhooks, its limit (WEBHOOK_MAX_COUNT=${deps.maxWebhooks}); delete one first`,
            { limit: deps.maxWebhooks, count },
          );
        }
        return insertWebhook(q, {
          ...input,
          id,
          startHeight: tip.blockHeight ?? -1,
          secretSealed: secrets.seal(secret, id),
        });
      });
      if (!webhook) return null;
      await announce(id);
      return { webhook, secret };
    },

    async update(id, patch) {
      const result = await updateWebhook(db, id, patch);
      if (result && result !== "name_taken") await announce(id);
      return result;
    },

    async remove(id) {
      await db.transaction(async (q) => {
        // A block transaction in flight may be writing outbox rows for this webhook (it reads the
        // webhook list once, holding the tip row lock): wait for it, as creation does.
        await readTip(q, true);
        await deleteWebhook(q, id);
      });
      await announce(id);
    },

    async rotateSecret(webhook, graceSeconds) {
      const secret = generateSecret();
      const updated = await updateWebhook(db, webhook.id, {
        secretSealed: secrets.seal(secret, webhook.id),
        previousSecretSealed: graceSeconds > 0 ? webhook.secretSealed : null,
        previousSecretExpiresAt: graceSeconds > 0 ? new Date(now() + graceSeconds * 1000) : null,
      });
      if (!updated || updated === "name_taken") return null;
      await announce(webhook.id);
      return { webhook: updated, secret };
    },

    async sendTest(webhook, message) {
      const at = new Date(now());
      const deliveryId = newDeliveryId();
      const data = buildTestData(webhook.id, at, message);
      const row = await insertTestDelivery(db, {
        webhookId: webhook.id,
        deliveryId,
        eventType: TEST_TYPE,
        data,
        now: at,
      });
      return { deliveryId, result: await dispatcher.deliverNow(row, webhook) };
    },

    attempts: (webhookId, page) => listAttempts(db, webhookId, page),
    deadLetters: (webhookId, page) => listDeadLetters(db, webhookId, page),

    async requeue(webhookId, deliveryId) {
      const count = await requeueDead(db, webhookId, deliveryId);
      if (count) {
        await notifyWorkers(db);
        dispatcher.wake();
      }
      return count;
    },

    async replay(webhook, body) {
      const range = parseReplayRange(body, (await readTip(db)).blockHeight);
      const pending = await pendingCount(db, webhook.id, deps.maxPending);
      if (pending >= deps.maxPending) {
        throw new ServiceError(
          429,
          "WEBHOOK_BACKLOG_FULL",
          `webhook ${webhook.id} has ${pending} deliveries outstanding, its limit (WEBHOOK_MAX_PENDING=${deps.maxPending}); replay once they drain`,
          { limit: deps.maxPending, pending },
        );
      }
      const subgraph =
        webhook.kind === "subgraph" && webhook.subgraphName ? deps.findSubgraph(webhook.subgraphName) : undefined;
      const result = await runReplay({ db, sbtcRegistry: deps.sbtcRegistry, subgraph }, webhook, range);
      dispatcher.wake();
      return { range, result };
    },

    record: (webhook) => toWebhookRecord(webhook, { cooldownMs: dispatcher.breakerPolicy.cooldownMs, nowMs: now() }),
    backlog: (webhookId) => readWebhookBacklog(db, webhookId),
    backlogTotals: () => readBacklogTotals(db),
  };
}
