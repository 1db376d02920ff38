/** Core schema: the observer journal, chain tables, reorg records and the tip (DESIGN.md §2). */
export const name = "core";
export const sql = `
CREATE SCHEMA IF NOT EXISTS chain;
CREATE SCHEMA IF NOT EXISTS control;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Every observer request, stored before it is acknowledged; processed in id order.
CREATE TABLE control.journal (
  id bigserial PRIMARY KEY,
  path text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  body text NOT NULL,
  body_bytes integer NOT NULL,
  source_key text,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'malformed')),
  error text,
  processed_at timestamptz
);
CREATE UNIQUE INDEX journal_source_key ON control.journal (source_key) WHERE source_key IS NOT NULL;
CREATE INDEX journal_pending ON control.journal (id) WHERE state = 'pending';
CREATE INDEX journal_malformed ON control.journal (id) WHERE state = 'malformed';

CREATE TABLE chain.blocks (
  index_block_hash text PRIMARY KEY,
  block_hash text NOT NULL,
  block_height integer NOT NULL,
  parent_index_block_hash text NOT NULL,
  parent_block_hash text NOT NULL,
  burn_block_hash text NOT NULL,
  burn_block_height integer NOT NULL,
  burn_block_time bigint NOT NULL,
  block_time bigint NOT NULL,
  miner_txid text,
  tx_count integer NOT NULL,
  event_count integer NOT NULL,
  canonical boolean NOT NULL,
  received_seq bigserial NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX blocks_canonical_height ON chain.blocks (block_height) WHERE canonical;
CREATE INDEX blocks_canonical_burn_height ON chain.blocks (burn_block_height, block_height) WHERE canonical;
CREATE INDEX blocks_parent ON chain.blocks (parent_index_block_hash);
CREATE INDEX blocks_height ON chain.blocks (block_height);

CREATE TABLE chain.transactions (
  index_block_hash text NOT NULL,
  tx_index integer NOT NULL,
  tx_id text NOT NULL,
  block_height integer NOT NULL,
  canonical boolean NOT NULL,
  tx_type text NOT NULL,
  status text NOT NULL,
  sender text,
  sponsor text,
  nonce numeric,
  fee numeric,
  contract_id text,
  function_name text,
  function_args jsonb,
  recipient text,
  amount numeric,
  memo text,
  raw_result text NOT NULL,
  result jsonb,
  raw_tx text NOT NULL,
  burnchain_op boolean NOT NULL,
  microblock_sequence integer,
  microblock_hash text,
  contract_interface jsonb,
  vm_error text,
  PRIMARY KEY (index_block_hash, tx_index)
);
CREATE INDEX transactions_tx_id ON chain.transactions (tx_id);

-- event_index is the dense per-block ordinal of DESIGN.md §2 (cursor = block_height:event_index).
CREATE TABLE chain.events (
  index_block_hash text NOT NULL,
  event_index integer NOT NULL,
  block_height integer NOT NULL,
  canonical boolean NOT NULL,
  tx_id text NOT NULL,
  tx_index integer NOT NULL,
  node_event_index integer NOT NULL,
  committed boolean NOT NULL,
  event_type text NOT NULL,
  contract_id text,
  asset_identifier text,
  sender text,
  recipient text,
  amount numeric,
  topic text,
  payload jsonb NOT NULL,
  PRIMARY KEY (index_block_hash, event_index)
);
CREATE INDEX events_cursor ON chain.events (block_height, event_index) WHERE canonical AND committed;

CREATE TABLE chain.burn_blocks (
  burn_block_hash text PRIMARY KEY,
  burn_block_height integer NOT NULL,
  burn_amount numeric,
  reward_recipients jsonb,
  reward_slot_holders jsonb,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX burn_blocks_height ON chain.burn_blocks (burn_block_height);

CREATE TABLE chain.reorgs (
  id bigserial PRIMARY KEY,
  detected_at timestamptz NOT NULL DEFAULT now(),
  fork_point_height integer NOT NULL,
  orphaned_from_height integer NOT NULL,
  orphaned_to_height integer NOT NULL,
  orphaned_blocks jsonb NOT NULL,
  applied_blocks jsonb NOT NULL,
  old_tip_hash text NOT NULL,
  old_tip_height integer NOT NULL,
  new_tip_hash text NOT NULL,
  new_tip_height integer NOT NULL
);
CREATE INDEX reorgs_range ON chain.reorgs (orphaned_from_height, orphaned_to_height);

-- One row: the canonical tip, burn tip and finality boundary; locked FOR UPDATE by each block.
CREATE TABLE control.chain_tip (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  index_block_hash text,
  block_height integer,
  burn_block_height integer,
  finalized_height integer,
  last_block_at timestamptz,
  blocks_ingested bigint NOT NULL DEFAULT 0,
  canonical_txs bigint NOT NULL DEFAULT 0,
  canonical_events bigint NOT NULL DEFAULT 0,
  reorg_count bigint NOT NULL DEFAULT 0
);
INSERT INTO control.chain_tip (singleton) VALUES (true);
`;
