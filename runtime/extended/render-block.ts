/**
 * Blocks in Hiro's shapes: the v2 `NakamotoBlock` and the v1 `Block` (with its transaction ids and
 * the microblock fields, empty: sluice keeps no microblock streams apart from their transactions).
 * Pure.
 */
import type { BlockRow } from "./block-reads.js";

/** Unix seconds → ISO 8601, as Hiro writes `*_time_iso`. */
export const isoTime = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

function common(b: BlockRow) {
  const blockTime = Number(b.block_time);
  const burnTime = Number(b.burn_block_time);
  return {
    canonical: b.canonical,
    height: Number(b.block_height),
    hash: b.block_hash,
    block_time: blockTime,
    block_time_iso: isoTime(blockTime),
    index_block_hash: b.index_block_hash,
    parent_block_hash: b.parent_block_hash,
    burn_block_time: burnTime,
    burn_block_time_iso: isoTime(burnTime),
    burn_block_hash: b.burn_block_hash,
    burn_block_height: Number(b.burn_block_height),
    miner_txid: b.miner_txid ?? "",
    execution_cost_read_count: Number(b.cost_read_count),
    execution_cost_read_length: Number(b.cost_read_length),
    execution_cost_runtime: Number(b.cost_runtime),
    execution_cost_write_count: Number(b.cost_write_count),
    execution_cost_write_length: Number(b.cost_write_length),
  };
}

/** `/extended/v2/blocks…` */
export function renderNakamotoBlock(b: BlockRow) {
  return { ...common(b), parent_index_block_hash: b.parent_index_block_hash, tx_count: Number(b.tx_count) };
}

/** `/extended/v1/block/…` */
export function renderBlockV1(b: BlockRow, txIds: string[]) {
  return {
    ...common(b),
    txs: txIds,
    parent_microblock_hash: "",
    parent_microblock_sequence: -1,
    microblocks_accepted: [] as string[],
    microblocks_streamed: [] as string[],
    microblock_tx_count: {} as Record<string, number>,
  };
}
