/**
 * Webhook tables (DESIGN.md §5, SPEC.md "Events"):
 * - control.webhooks: one row per webhook (chain or subgraph kind), its secret sealed with
 *   AES-256-GCM (runtime/dispatcher/secret-box.ts), delivery limits and circuit-breaker state;
 * - control.webhook_outbox: one row per delivery, written in the block's transaction. Unique per
 *   webhook on the dedupe key (tx_id, event_index, block hash) within a `dedupe_kind` (live apply,
 *   replay, subgraph row change, compensating revert, rollback, test) plus `seq` for several row
 *   changes of one event. `fence` rows (rollbacks, compensating reverts) are delivered strictly in
 *   order: after every earlier pending row of their webhook, before any later one;
 * - control.webhook_attempts: every delivery attempt (time, status, latency, response excerpt, error);
 * - control.webhook_replays: one row per replay request (idempotent by webhook and range);
 * - control.webhook_progress: the finalized height up to which sBTC sweep confirmations were emitted.
 */
export const name = "webhooks";
export const sql = `
CREATE TABLE control.webhooks (
  id text PRIMARY KEY,
  name text NOT NULL UNIQUE,
  kind text NOT NULL CHECK (kind IN ('chain', 'subgraph')),
  url text NOT NULL,
  format text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
  triggers jsonb,
  subgraph_name text,
  table_name text,
  filter jsonb,
  start_height integer NOT NULL DEFAULT -1,
  timeout_ms integer NOT NULL,
  max_attempts integer NOT NULL,
  concurrency integer NOT NULL,
  secret_sealed text NOT NULL,
  previous_secret_sealed text,
  previous_secret_expires_at timestamptz,
  circuit_state text NOT NULL DEFAULT 'closed' CHECK (circuit_state IN ('closed', 'open', 'half_open')),
  circuit_failures integer NOT NULL DEFAULT 0,
  circuit_opened_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_kind ON control.webhooks (kind);
CREATE INDEX webhooks_subgraph ON control.webhooks (subgraph_name, table_name) WHERE kind = 'subgraph';

CREATE TABLE control.webhook_outbox (
  id bigserial PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES control.webhooks (id) ON DELETE CASCADE,
  delivery_id text NOT NULL UNIQUE,
  event_type text NOT NULL,
  dedupe_kind text NOT NULL,
  tx_id text NOT NULL,
  event_index integer NOT NULL,
  block_hash text NOT NULL,
  seq bigint NOT NULL DEFAULT 0,
  block_height integer,
  -- json, not jsonb: the payload keeps the key order it was built with (SPEC.md field order)
  data json NOT NULL,
  replay_id text,
  fence boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  leased_until timestamptz,
  lease_token text,
  rolled_back boolean NOT NULL DEFAULT false,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  first_attempt_at timestamptz,
  finished_at timestamptz,
  UNIQUE (webhook_id, dedupe_kind, tx_id, event_index, block_hash, seq)
) WITH (fillfactor = 80);
-- A claim sets only unindexed columns (leased_until, lease_token, first_attempt_at): with room
-- left in each page (fillfactor) it is a HOT update that touches no index.
-- Claims walk a webhook's pending rows in id (= block) order from a remembered id: the entries
-- of rows delivered since the last vacuum sit before it and are never revisited.
CREATE INDEX webhook_outbox_pending ON control.webhook_outbox (webhook_id, id) WHERE status = 'pending';
CREATE INDEX webhook_outbox_fences ON control.webhook_outbox (webhook_id, id) WHERE status = 'pending' AND fence;
CREATE INDEX webhook_outbox_block ON control.webhook_outbox (block_hash);
CREATE INDEX webhook_outbox_dead ON control.webhook_outbox (webhook_id, id) WHERE status = 'dead';

CREATE TABLE control.webhook_attempts (
  id bigserial PRIMARY KEY,
  outbox_id bigint NOT NULL REFERENCES control.webhook_outbox (id) ON DELETE CASCADE,
  webhook_id text NOT NULL REFERENCES control.webhooks (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  response_status integer,
  response_excerpt text,
  error text,
  success boolean NOT NULL
);
CREATE INDEX webhook_attempts_webhook ON control.webhook_attempts (webhook_id, id);
CREATE INDEX webhook_attempts_outbox ON control.webhook_attempts (outbox_id);

CREATE TABLE control.webhook_replays (
  id text PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES control.webhooks (id) ON DELETE CASCADE,
  from_block integer NOT NULL,
  to_block integer NOT NULL,
  enqueued_count integer NOT NULL DEFAULT 0,
  scanned_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (webhook_id, from_block, to_block)
);

CREATE TABLE control.webhook_progress (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  swept_confirmed_height integer
);
INSERT INTO control.webhook_progress (singleton) VALUES (true);
`;
