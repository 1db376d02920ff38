/**
 * Subgraph webhook deliveries (SPEC.md "Delivery types": `<subgraph>.<table>.created|updated|
 * deleted|replay`), pure. SPEC.md leaves their `data` open; ours:
 *
 *   { action, subgraph, table, row, previous?, tx_id, event_index, block_height, index_block_hash,
 *     reverted, is_replay? }
 *
 * `reverted: true` marks the compensating changes a reorg produces (a row the orphaned block
 * created comes back as `.deleted`, an updated row as `.updated` to its prior values, a deleted
 * row as `.created`), so a receiver that applies every delivery in order converges.
 */
import type { RowChange } from "../subgraphs/types.js";
import { type RowFilter, rowMatches } from "./subgraph-filter.js";

export type { RowChange };

export const rowChangeType = (c: Pick<RowChange, "subgraph" | "table" | "op">) => `${c.subgraph}.${c.table}.${c.op}`;
export const replayType = (subgraph: string, table: string) => `${subgraph}.${table}.replay`;

/** Whether a change concerns a subgraph webhook: a row before or after the change passes the filter
 * (so a row leaving the filtered set is reported too). */
export function changeMatches(filter: RowFilter, c: RowChange): boolean {
  return (
    rowMatches(filter, c.row) || (c.previous !== undefined && c.previous !== null && rowMatches(filter, c.previous))
  );
}

export function buildRowChangeData(c: RowChange): Record<string, unknown> {
  const data: Record<string, unknown> = { action: c.op, subgraph: c.subgraph, table: c.table, row: jsonRow(c.row) };
  if (c.previous) data.previous = jsonRow(c.previous);
  Object.assign(data, {
    tx_id: c.txId,
    event_index: c.eventIndex,
    block_height: c.blockHeight,
    index_block_hash: c.indexBlockHash,
    reverted: c.reverted,
  });
  return data;
}

export function buildRowReplayData(
  subgraph: string,
  table: string,
  row: Record<string, unknown>,
  indexBlockHash: string | null,
): Record<string, unknown> {
  const r = jsonRow(row);
  return {
    action: "replay",
    subgraph,
    table,
    row: r,
    tx_id: r._tx_id ?? null,
    block_height: Number(r._block_height ?? 0),
    index_block_hash: indexBlockHash,
    is_replay: true,
  };
}

/** Row values as JSON: dates → ISO strings, bigints → decimal strings, `_id` → number. */
export function jsonRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v instanceof Date) out[k] = v.toISOString();
    else if (typeof v === "bigint") out[k] = v.toString();
    else if (k === "_id" && typeof v === "string" && /^\d+$/.test(v)) out[k] = Number(v);
    else if (k === "_block_height" && typeof v === "number") out[k] = String(v);
    else out[k] = v;
  }
  return out;
}
