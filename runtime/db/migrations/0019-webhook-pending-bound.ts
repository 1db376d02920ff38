/**
 * A maintained upper bound of each webhook's outstanding (pending) deliveries, so the expander
 * checks WEBHOOK_MAX_PENDING with one key lookup per webhook instead of counting its backlog:
 * every statement that makes outbox rows pending adds them (outbox-store.ts); nothing subtracts
 * when they finish (that would cost the delivery path a write per webhook). When a webhook's bound
 * says a share might not fit, the expander counts its pending rows (up to the limit) and lowers
 * the bound to that count (backlog-store.ts). No row: nothing pending.
 *
 * Outbox pages also keep room for a row's next version: claiming a row changes no indexed column,
 * so with room on its page the claim is a heap-only update (no new entry in the outbox's six
 * indexes). Applies to pages written from now on.
 */
export const name = "webhook-pending-bound";
export const sql = `
CREATE TABLE control.webhook_pending_bound (
  webhook_id text PRIMARY KEY REFERENCES control.webhooks (id) ON DELETE CASCADE,
  bound bigint NOT NULL
);
INSERT INTO control.webhook_pending_bound (webhook_id, bound)
SELECT webhook_id, count(*) FROM control.webhook_outbox WHERE status = 'pending' GROUP BY webhook_id;
ALTER TABLE control.webhook_outbox SET (fillfactor = 50);
`;
