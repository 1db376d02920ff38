/** The JSON bodies a Nakamoto-era stacks-node POSTs to `/new_block` and `/new_burn_block`, keys in the node's order. */
import type { Network } from "../config/networks.js";
import type { ExecutionCost } from "./action-kit.js";

export interface BurnBlock {
  /** Hashes as hex without 0x. */
  hash: string;
  height: number;
  /** Unix seconds. */
  time: number;
  consensusHash: string;
  parentHash: string;
  /** The winning block-commit's Bitcoin txid. */
  minerTxid: string;
  burnAmount: number;
}

export interface NodeTx {
  contract_interface: unknown;
  execution_cost: ExecutionCost;
  raw_result: string;
  raw_tx: string;
  status: string;
  tx_index: number;
  txid: string;
}

/** One `matured_miner_rewards` entry: µSTX amounts as the node sends them (decimal strings). */
export interface MaturedReward {
  recipient: string;
  miner_address: string;
  coinbase_amount: string;
  tx_fees_anchored: string;
  tx_fees_streamed_confirmed: string;
  tx_fees_streamed_produced: string;
  from_stacks_block_hash: string;
  from_index_consensus_hash: string;
}

export interface BlockHeader {
  height: number;
  blockHash: string;
  indexBlockHash: string;
  parentBlockHash: string;
  parentIndexBlockHash: string;
  blockTime: number;
  tenureHeight: number;
  burn: BurnBlock;
  parentBurn: BurnBlock;
  minerSignature: string;
  signerSignatures: string[];
}

const POX_UNLOCK: Record<Network, [number, number, number]> = {
  mainnet: [781552, 787652, 840361],
  testnet: [205, 207, 210],
  devnet: [205, 207, 210],
};

const ZERO_HASH = `0x${"00".repeat(32)}`;

function zeroCost(): ExecutionCost {
  return { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 };
}

export function burnBlockBody(burn: BurnBlock): Record<string, unknown> {
  return {
    burn_amount: burn.burnAmount,
    burn_block_hash: `0x${burn.hash}`,
    burn_block_height: burn.height,
    consensus_hash: `0x${burn.consensusHash}`,
    parent_burn_block_hash: `0x${burn.parentHash}`,
    reward_recipients: [],
    reward_slot_holders: [],
  };
}

export function newBlockBody(
  network: Network,
  header: BlockHeader,
  txs: NodeTx[],
  events: Record<string, unknown>[],
  maturedRewards: MaturedReward[] = [],
): Record<string, unknown> {
  const anchored = zeroCost();
  for (const tx of txs) {
    const c = tx.execution_cost;
    anchored.read_count += c.read_count;
    anchored.read_length += c.read_length;
    anchored.runtime += c.runtime;
    anchored.write_count += c.write_count;
    anchored.write_length += c.write_length;
  }
  const [v1, v2, v3] = POX_UNLOCK[network];
  return {
    anchored_cost: anchored,
    block_hash: header.blockHash,
    block_height: header.height,
    block_time: header.blockTime,
    burn_block_hash: `0x${header.burn.hash}`,
    burn_block_height: header.burn.height,
    burn_block_time: header.burn.time,
    confirmed_microblocks_cost: zeroCost(),
    consensus_hash: `0x${header.burn.consensusHash}`,
    cycle_number: null,
    events,
    index_block_hash: header.indexBlockHash,
    matured_miner_rewards: maturedRewards,
    miner_signature: header.minerSignature,
    miner_txid: `0x${header.burn.minerTxid}`,
    parent_block_hash: header.parentBlockHash,
    parent_burn_block_hash: `0x${header.parentBurn.hash}`,
    parent_burn_block_height: header.parentBurn.height,
    parent_burn_block_timestamp: header.parentBurn.time,
    parent_index_block_hash: header.parentIndexBlockHash,
    parent_microblock: ZERO_HASH,
    parent_microblock_sequence: 0,
    pox_v1_unlock_height: v1,
    pox_v2_unlock_height: v2,
    pox_v3_unlock_height: v3,
    reward_set: null,
    signer_bitvec: "0006000000013f",
    signer_signature: header.signerSignatures,
    signer_signature_hash: header.blockHash,
    tenure_height: header.tenureHeight,
    transactions: txs.map(nodeTxBody),
  };
}

function nodeTxBody(tx: NodeTx): Record<string, unknown> {
  return {
    burnchain_op: null,
    contract_interface: tx.contract_interface,
    execution_cost: tx.execution_cost,
    microblock_hash: null,
    microblock_parent_hash: null,
    microblock_sequence: null,
    raw_result: tx.raw_result,
    raw_tx: tx.raw_tx,
    status: tx.status,
    tx_index: tx.tx_index,
    txid: tx.txid,
    vm_error: null,
  };
}
