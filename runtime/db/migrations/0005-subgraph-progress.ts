/**
 * Subgraph progress in its own narrow table (ingest benchmark).
 * `subgraph_height` moves on every block, while the rest of control.subgraphs (spec text, table
 * metadata) is wide and rarely changes. Updating a wide row per block per subgraph filled its
 * pages with dead versions (many per transaction during imports), and the per-block read of the
 * subgraph list then scanned all of them. A row here is ~40 bytes and the table keeps most of each
 * page free (fillfactor 20), so the per-block update stays in place (HOT) and is pruned cheaply.
 */
export const name = "subgraph-progress";
export const sql = `
CREATE TABLE control.subgraph_progress (
  name text PRIMARY KEY REFERENCES control.subgraphs (name) ON DELETE CASCADE,
  -- The last block the subgraph has applied (-1 before its first).
  subgraph_height integer NOT NULL DEFAULT -1
) WITH (fillfactor = 20);
INSERT INTO control.subgraph_progress (name, subgraph_height) SELECT name, subgraph_height FROM control.subgraphs;
ALTER TABLE control.subgraphs DROP COLUMN subgraph_height;
`;
