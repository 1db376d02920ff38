/**
 * SQL of the Extended view's block reads over chain.blocks (and the tip row): canonical blocks
 * newest first with Hiro's offset pagination, one block by height or hash, a block's transaction
 * ids and its summed execution cost.
 */
import type { Queryable } from "../db/types.js";
import type { BlockId } from "./params.js";

/** A chain.blocks row with its execution-cost totals, as the renderers take it. */
export interface BlockRow {
  index_block_hash: string;
  block_hash: string;
  block_height: number;
  parent_index_block_hash: string;
  parent_block_hash: string;
  burn_block_hash: string;
  burn_block_height: number;
  burn_block_time: string;
  block_time: string;
  miner_txid: string | null;
  tx_count: number;
  canonical: boolean;
  cost_read_count: string;
  cost_read_length: string;
  cost_runtime: string;
  cost_write_count: string;
  cost_write_length: string;
}

const BLOCK_COLUMNS = `b.index_block_hash, b.block_hash, b.block_height, b.parent_index_block_hash, b.parent_block_hash,
  b.burn_block_hash, b.burn_block_height, b.burn_block_time, b.block_time, b.miner_txid, b.tx_count, b.canonical,
  c.read_count AS cost_read_count, c.read_length AS cost_read_length, c.runtime AS cost_runtime,
  c.write_count AS cost_write_count, c.write_length AS cost_write_length`;

/** Sums of the block's transactions' execution costs (chain.block_execution_costs; none kept: 0). */
const COST_JOIN = `CROSS JOIN LATERAL (
  SELECT coalesce(sum((x->>0)::bigint), 0) AS read_count, coalesce(sum((x->>1)::bigint), 0) AS read_length,
         coalesce(sum((x->>2)::bigint), 0) AS runtime, coalesce(sum((x->>3)::bigint), 0) AS write_count,
         coalesce(sum((x->>4)::bigint), 0) AS write_length
    FROM chain.block_execution_costs ec, jsonb_array_elements(ec.costs) x
   WHERE ec.index_block_hash = b.index_block_hash) c`;

export interface ChainTipRow {
  block_height: number;
  block_hash: string;
  index_block_hash: string;
  burn_block_height: number;
}

/** The canonical tip, or null before the first block. */
export async function readChainTip(q: Queryable): Promise<ChainTipRow | null> {
  const { rows } = await q.query<ChainTipRow>(
    `SELECT b.block_height, b.block_hash, b.index_block_hash, t.burn_block_height
       FROM control.chain_tip t JOIN chain.blocks b ON b.index_block_hash = t.index_block_hash`,
  );
  return rows[0] ?? null;
}

/** Canonical blocks, highest first, and how many there are. */
export async function readBlockPage(
  q: Queryable,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: BlockRow[] }> {
  const { rows } = await q.query<BlockRow>(
    `SELECT ${BLOCK_COLUMNS} FROM (
       SELECT * FROM chain.blocks WHERE canonical ORDER BY block_height DESC LIMIT $1 OFFSET $2) b ${COST_JOIN}
     ORDER BY b.block_height DESC`,
    [limit, offset],
  );
  const count = await q.query<{ n: string }>("SELECT count(*) AS n FROM chain.blocks WHERE canonical");
  return { total: Number(count.rows[0].n), rows };
}

/**
 * One block: by height the canonical one; by hash the block whose block hash or index block hash
 * it is (a canonical one first, as a hash may name a block stored twice); "latest" the tip.
 */
export async function readBlock(q: Queryable, id: BlockId): Promise<BlockRow | null> {
  const where =
    id.kind === "latest"
      ? "b.index_block_hash = (SELECT index_block_hash FROM control.chain_tip)"
      : id.kind === "height"
        ? "b.canonical AND b.block_height = $1"
        : "(b.index_block_hash = $1 OR b.block_hash = $1)";
  const params = id.kind === "latest" ? [] : [id.kind === "height" ? id.height : id.hash];
  const { rows } = await q.query<BlockRow>(
    `SELECT ${BLOCK_COLUMNS} FROM chain.blocks b ${COST_JOIN} WHERE ${where}
      ORDER BY b.canonical DESC, b.received_seq DESC LIMIT 1`,
    params,
  );
  return rows[0] ?? null;
}

/** Transaction ids of a block, in block order. */
export async function readBlockTxIds(q: Queryable, indexBlockHash: string): Promise<string[]> {
  const { rows } = await q.query<{ tx_id: string }>(
    "SELECT tx_id FROM chain.transactions WHERE index_block_hash = $1 ORDER BY tx_index",
    [indexBlockHash],
  );
  return rows.map((r) => r.tx_id);
}
