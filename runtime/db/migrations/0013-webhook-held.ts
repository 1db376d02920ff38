/**
 * Bounded live deliveries: control.webhook_held keeps a webhook's shares of expanded batches while
 * it has WEBHOOK_MAX_PENDING deliveries outstanding. Each row is one webhook's share of one batch
 * (deliveries, or its rollback fence), as the outbox rows it becomes, with the delivery ids they
 * were derived with; shares go to the outbox oldest first (id order) once the webhook drains below
 * the limit. `block_hash` names the block of chain applies (or of forward subgraph row changes), so
 * a reorg that orphans the block drops them unsent.
 */
export const name = "webhook-held";
export const sql = `
CREATE TABLE control.webhook_held (
  id bigserial PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES control.webhooks (id) ON DELETE CASCADE,
  batch_id bigint NOT NULL,
  block_hash text,
  rows json NOT NULL,
  row_count integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_held_webhook ON control.webhook_held (webhook_id, id);
CREATE INDEX webhook_held_block ON control.webhook_held (block_hash) WHERE block_hash IS NOT NULL;
`;
