/**
 * Restores from a signed archive (runtime/archive, docs/archive-format.md):
 * - control.archive_partitions: each partition restored, with the digests it was loaded from, so
 *   a restore that stopped part-way (kill -9) resumes after the last partition it committed;
 * - control.archive_restore: the restore in progress (one at a time), its phase, and the chain
 *   indexes it dropped before a bulk load into empty tables, rebuilt after it. While it exists,
 *   ingestion leaves observer requests journaled (they are applied once it is gone).
 */
export const name = "archive";
export const sql = `
CREATE TABLE control.archive_partitions (
  first_height integer PRIMARY KEY,
  last_height integer NOT NULL,
  sha256 text NOT NULL,
  content_sha256 text NOT NULL,
  key_id text NOT NULL,
  restored_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE control.archive_restore (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  operation text NOT NULL CHECK (operation IN ('bootstrap', 'backfill', 'repair')),
  archive_url text NOT NULL,
  manifest_sequence integer NOT NULL,
  partitions jsonb NOT NULL,
  -- first heights of the partitions committed so far (each in its own transaction)
  loaded jsonb NOT NULL DEFAULT '[]',
  phase text NOT NULL CHECK (phase IN ('downloading', 'loading', 'indexes', 'subgraphs')),
  dropped_indexes jsonb NOT NULL DEFAULT '[]',
  started_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
`;
