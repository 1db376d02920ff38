/**
 * The delivery log without a foreign key to control.webhooks (runtime/dispatcher/README.md "Cost
 * per delivery"). Every logged attempt already references its outbox row, which references its
 * webhook, both ON DELETE CASCADE: deleting a webhook deletes its outbox rows and with them their
 * attempts, as before. What the dropped key cost: one more check per logged attempt, each taking
 * a share lock on the webhook's row — the one row every dispatcher process finishing deliveries
 * of that webhook locks, so concurrent processes turned it into a multi-transaction lock (written
 * to the row and to the multixact logs) on every batch. The logged `webhook_id` is now taken from
 * the outbox row itself (outbox-store.ts completeAttempts), so it cannot disagree with it.
 */
export const name = "webhook-attempts-log";
export const sql = `
ALTER TABLE control.webhook_attempts DROP CONSTRAINT webhook_attempts_webhook_id_fkey;
`;
