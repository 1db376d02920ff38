/**
 * The credit ledger's tables, in schema `credits` of the ledger's own database. Applied under an
 * advisory lock, each version once, so several archive processes may start together.
 *
 * Entries are append-only (a trigger refuses UPDATE and DELETE): a balance is the sum of its key's
 * entries, never a stored number. The per-key row in `credits.keys` is what a charge locks
 * (SELECT … FOR UPDATE) so concurrent charges on one key run one after the other.
 */
import { type Migration, migrate } from "../../db/migrate.js";
import type { Db } from "../../db/types.js";

const V1 = `
CREATE SCHEMA IF NOT EXISTS credits;

CREATE TABLE credits.keys (
  key_id text PRIMARY KEY,
  secret_sha256 text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  email text,
  provider_customer text,
  provider_payment_method text,
  refill_threshold_cents bigint CHECK (refill_threshold_cents > 0),
  refill_pack_cents bigint CHECK (refill_pack_cents > 0),
  CHECK ((refill_threshold_cents IS NULL) = (refill_pack_cents IS NULL))
);

CREATE TABLE credits.entries (
  entry_id bigserial PRIMARY KEY,
  key_id text NOT NULL REFERENCES credits.keys (key_id),
  kind text NOT NULL CHECK (kind IN ('purchase', 'charge', 'refund', 'free_repair', 'grant')),
  amount_cents bigint NOT NULL,
  created_at timestamptz NOT NULL,
  -- A charge's (and free repair's) idempotency key: a retried presign finds its first entry.
  idempotency_key text,
  partition text,
  bundle_kind text,
  -- A purchase is credited once per provider event and once per payment.
  provider_event_id text UNIQUE,
  payment_ref text UNIQUE,
  refund_of bigint UNIQUE REFERENCES credits.entries (entry_id),
  note text,
  CHECK (CASE kind
    WHEN 'charge' THEN amount_cents <= 0
    WHEN 'free_repair' THEN amount_cents = 0
    ELSE amount_cents > 0 END)
);
CREATE INDEX entries_key_time ON credits.entries (key_id, created_at);
-- Idempotency keys are per key and per purpose: a bundle charge's never collides with a grant's.
CREATE UNIQUE INDEX entries_charge_once ON credits.entries (key_id, idempotency_key)
  WHERE kind IN ('charge', 'free_repair');
CREATE UNIQUE INDEX entries_grant_once ON credits.entries (key_id, idempotency_key) WHERE kind = 'grant';

CREATE FUNCTION credits.refuse_entry_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'credits.entries is append-only';
END $$;
CREATE TRIGGER entries_append_only BEFORE UPDATE OR DELETE ON credits.entries
  FOR EACH ROW EXECUTE FUNCTION credits.refuse_entry_change();

CREATE TABLE credits.checkouts (
  session_id text PRIMARY KEY,
  key_id text NOT NULL REFERENCES credits.keys (key_id),
  pack_cents bigint NOT NULL,
  email text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE credits.refills (
  refill_id text PRIMARY KEY,
  key_id text NOT NULL REFERENCES credits.keys (key_id),
  amount_cents bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('started', 'succeeded', 'failed')),
  payment_ref text,
  error text,
  created_at timestamptz NOT NULL,
  finished_at timestamptz
);
-- At most one refill in flight per key.
CREATE UNIQUE INDEX refills_one_started ON credits.refills (key_id) WHERE status = 'started';
CREATE INDEX refills_key_time ON credits.refills (key_id, created_at DESC);

CREATE TABLE credits.provider_events (
  event_id text PRIMARY KEY,
  type text NOT NULL,
  received_at timestamptz NOT NULL
);
`;

const MIGRATIONS: Migration[] = [{ version: 1, name: "ledger", sql: V1 }];

/** Creates or upgrades the ledger's tables (recorded in credits.migrations); returns the versions applied. */
export function migrateCredits(db: Db): Promise<number[]> {
  return migrate(db, MIGRATIONS, { schema: "credits", lockKey: 7_301_955_016 });
}
