/**
 * Webhooks at scale:
 * - control.webhook_batches: what a block transaction records for webhooks, compactly, instead of
 *   one outbox row per (event × webhook): a `deliveries` batch names the matched webhooks once and
 *   each delivery template (payload, dedupe key) once with the webhooks it goes to; a `rollback`
 *   batch names the blocks a reorg orphaned. A dispatcher expands batches into outbox rows in id
 *   order, outside the block transaction, each chunk in its own transaction with its progress
 *   (`expanded` webhooks done), and deletes a batch once it is fully expanded;
 * - control.webhooks.ordered: strict per-webhook order (one delivery at a time, each after the
 *   previous one finished, retries included).
 */
export const name = "webhook-batches";
export const sql = `
CREATE TABLE control.webhook_batches (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('deliveries', 'rollback')),
  -- deliveries of chain applies: the block they derive from (skipped when a later rollback orphans it)
  block_hash text,
  -- rollback: the orphaned blocks, newest first
  orphaned text[],
  body json NOT NULL,
  webhook_count integer NOT NULL DEFAULT 0,
  delivery_count integer NOT NULL DEFAULT 0,
  expanded integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE control.webhooks ADD COLUMN ordered boolean NOT NULL DEFAULT false;
`;
