/**
 * Webhooks at scale:
 * - control.webhook_batches: what a block transaction records for webhooks, compactly, instead of
 *   one outbox row per (event × webhook): a `deliveries` batch names the matched webhooks once and
 *   each delivery template (payload, dedupe key) once with the webhooks it goes to; a `rollback`
 *   batch names the blocks a reorg orphaned. A dispatcher expands batches into outbox rows in id
 *   order, outside the block transaction, each chunk in its own transaction with its progress
 *   (`expanded` webhooks done), and deletes a batch once it is fully expanded;
 * - control.webhooks.ordered: strict per-webhook order (one delivery at a time, each after the
 *   previous one finished, retries included);
 * - control.webhook_progress.webhooks_token: changes (a new random value, unique across databases)
 *   whenever what the block transactions match against changes — a webhook created or deleted, its
 *   triggers, filter, table or start height updated — so they can keep the webhook lists between
 *   transactions and re-read them only then.
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
ALTER TABLE control.webhook_progress ADD COLUMN webhooks_token text NOT NULL DEFAULT md5(random()::text || clock_timestamp()::text);
CREATE FUNCTION control.webhooks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE control.webhook_progress SET webhooks_token = md5(random()::text || clock_timestamp()::text);
  RETURN NULL;
END $$;
CREATE TRIGGER webhooks_changed AFTER INSERT OR DELETE OR TRUNCATE ON control.webhooks
  FOR EACH STATEMENT EXECUTE FUNCTION control.webhooks_changed();
CREATE TRIGGER webhooks_matching_changed
  AFTER UPDATE OF kind, triggers, subgraph_name, table_name, filter, start_height ON control.webhooks
  FOR EACH STATEMENT EXECUTE FUNCTION control.webhooks_changed();
`;
