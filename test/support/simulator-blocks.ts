export { NODE_TYPE_TO_OURS } from "./chain-model.js";
import { NODE_TYPE_TO_OURS } from "./chain-model.js";
/** Test-side reading of simulator payloads: canonical chain by the consumer's rule, event counts, node→our type names. */
import type { SimPayload } from "../../runtime/simulator/index.js";

export interface NodeEvent {
  committed: boolean;
  event_index: number;
  txid: string;
  type: string;
  [kind: string]: unknown;
}

export interface NodeTx {
  txid: string;
  tx_index: number;
  raw_tx: string;
  raw_result: string;
  status: string;
}

export interface NodeBlock {
  block_height: number;
  block_hash: string;
  index_block_hash: string;
  parent_index_block_hash: string;
  parent_block_hash: string;
  burn_block_hash: string;
  burn_block_height: number;
  consensus_hash: string;
  block_time: number;
  transactions: NodeTx[];
  events: NodeEvent[];
  matured_miner_rewards: Record<string, string>[];
}

export function blocksOf(payloads: SimPayload[]): NodeBlock[] {
  return payloads.filter((p) => p.path === "/new_block").map((p) => p.body as unknown as NodeBlock);
}

/** Best tip = highest block, ties broken by first seen; canonical = its ancestry, oldest first. */
export function canonicalChain(blocks: NodeBlock[]): NodeBlock[] {
  let best = blocks[0];
  for (const block of blocks) if (block.block_height > best.block_height) best = block;
  const byHash = new Map(blocks.map((b) => [b.index_block_hash, b]));
  const chain: NodeBlock[] = [];
  for (let b: NodeBlock | undefined = best; b; b = byHash.get(b.parent_index_block_hash)) chain.push(b);
  return chain.reverse();
}

/** Committed events per our type name. */
export function countEvents(blocks: NodeBlock[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of Object.values(NODE_TYPE_TO_OURS)) counts[type] = 0;
  for (const block of blocks) {
    for (const event of block.events) if (event.committed) counts[NODE_TYPE_TO_OURS[event.type]]++;
  }
  return counts;
}

/** Events of a block in execution order (by event_index). */
export function eventsInOrder(block: NodeBlock): NodeEvent[] {
  return [...block.events].sort((a, b) => a.event_index - b.event_index);
}
