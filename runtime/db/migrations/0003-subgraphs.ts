/**
 * Control tables of the subgraph engine (DESIGN.md §2 "Storage"):
 * - control.subgraphs: one row per loaded subgraph (built-in or deployed at run time) with its
 *   spec, schema fingerprint, status, progress (`subgraph_height`, backfill counters) and error;
 * - control.subgraph_undo: the pre-image journal. Every row a block changes gets an entry (`op`
 *   'insert' = the row did not exist before, so undo deletes it; 'update'/'delete' = `pre_image`
 *   holds the full row before the change, restored exactly). Entries of blocks at or below the
 *   finalized height are pruned: those blocks never reorg.
 */
export const name = "subgraphs";
export const sql = `
CREATE TABLE control.subgraphs (
  name text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('builtin', 'deployed')),
  version text NOT NULL,
  schema_hash text NOT NULL,
  -- sha256 of what produced the loaded module (spec text for deployed subgraphs): a process
  -- seeing a different value reloads the module.
  module_hash text NOT NULL,
  spec_text text,
  spec_format text,
  -- TableMeta by table name, as loaded: the base of the next deploy's schema diff.
  tables jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('ready', 'backfilling', 'reindexing', 'failed')),
  subgraph_height integer NOT NULL DEFAULT -1,
  blocks_done integer NOT NULL DEFAULT 0,
  blocks_total integer NOT NULL DEFAULT 0,
  operation_started_at timestamptz,
  operation_finished_at timestamptz,
  error text,
  deployed_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE control.subgraph_undo (
  seq bigserial PRIMARY KEY,
  index_block_hash text NOT NULL,
  block_height integer NOT NULL,
  subgraph text NOT NULL,
  table_name text NOT NULL,
  row_id bigint NOT NULL,
  op text NOT NULL CHECK (op IN ('insert', 'update', 'delete')),
  pre_image jsonb
);
CREATE INDEX subgraph_undo_block ON control.subgraph_undo (index_block_hash, subgraph, table_name, row_id, seq);
CREATE INDEX subgraph_undo_height ON control.subgraph_undo (block_height);
CREATE INDEX subgraph_undo_subgraph ON control.subgraph_undo (subgraph);
`;
