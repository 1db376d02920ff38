/**
 * Batched reader of stored canonical blocks for backfill and reindex (DESIGN.md §2: "A subgraph
 * added later, or reindexed, is built by replaying stored canonical blocks through the same
 * handlers"). Three range queries per batch instead of three per block, and only what handler
 * contexts need: committed events of the listened types, light transaction columns (with the fee
 * and its payer for `tx_fee` sources) and, for `miner_reward` sources, the stored rewards.
 * Produces DecodedBlocks (unused fields empty; the chain's row mappers) for buildHandlerContexts.
 */
import { rowToBlock, rowToEvent, rowToTx } from "../chain/block-store.js";
import { eventPayloadSql } from "../chain/event-columns-sql.js";
import type { Queryable } from "../db/types.js";
import type { DecodedBlock } from "../chain/types.js";

type Row = Record<string, unknown>;

/** Listened types that are not stored chain events. */
const SYNTHETIC_TYPES = new Set(["contract_call", "contract_deploy", "tx_fee", "miner_reward"]);

/**
 * Canonical blocks with heights in [from, to], ascending. `eventTypes` limits the events read;
 * `txLevel` (tx-level sources) and a `tx_fee` type read every transaction, otherwise only those
 * with a read event are kept; a `miner_reward` type reads the blocks' matured miner rewards.
 */
export async function readCanonicalRange(
  q: Queryable,
  from: number,
  to: number,
  eventTypes: readonly string[],
  txLevel: boolean,
): Promise<DecodedBlock[]> {
  const fees = eventTypes.includes("tx_fee");
  const rewards = eventTypes.includes("miner_reward");
  const { rows: blockRows } = await q.query<Row>(
    `SELECT index_block_hash, block_hash, block_height, parent_index_block_hash, block_time
            ${rewards ? ", matured_miner_rewards" : ""}
       FROM chain.blocks WHERE canonical AND block_height BETWEEN $1 AND $2 ORDER BY block_height`,
    [from, to],
  );
  // By height: canonical blocks have one each, and an event row then carries a number, not a hash.
  const blocks = new Map<number, DecodedBlock>();
  for (const b of blockRows) {
    const block = rowToBlock(b, [], []);
    blocks.set(block.height, block);
  }
  if (blocks.size === 0) return [];
  const eventTypeList = eventTypes.filter((t) => !SYNTHETIC_TYPES.has(t));
  if (eventTypeList.length > 0) {
    const { rows } = await q.query<Row>(
      `SELECT block_height, event_index, node_event_index, tx_id, tx_index, committed, event_type, contract_id,
              asset_identifier, sender, recipient, amount, topic, ${eventPayloadSql("")} AS payload
         FROM chain.events
        WHERE canonical AND committed AND block_height BETWEEN $1 AND $2 AND event_type = ANY($3::text[])
        ORDER BY block_height, event_index`,
      [from, to, eventTypeList],
    );
    for (const r of rows) blocks.get(Number(r.block_height))?.events.push(rowToEvent(r));
  }
  const { rows: txRows } = await q.query<Row>(
    `SELECT block_height, tx_index, tx_id, tx_type, status, sender, contract_id, function_name
            ${txLevel ? ", function_args, result" : ""}${fees ? ", sponsor, fee, burnchain_op" : ""}
       FROM chain.transactions WHERE canonical AND block_height BETWEEN $1 AND $2 ORDER BY block_height, tx_index`,
    [from, to],
  );
  const everyTx = txLevel || fees;
  for (const r of txRows) {
    const block = blocks.get(Number(r.block_height));
    if (block === undefined) continue;
    if (!everyTx && !block.events.some((e) => e.txIndex === Number(r.tx_index))) continue;
    block.txs.push(rowToTx(r));
  }
  return [...blocks.values()];
}
