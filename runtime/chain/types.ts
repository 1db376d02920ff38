/**
 * Decoded chain data: what the observer payload decoder produces and what ingestion stores
 * (DESIGN.md §2). Pure data, no behaviour; every other chain module speaks these types.
 */

/** A Clarity value as plain JSON (DESIGN.md §3): tuple → object, uint/int → decimal string,
 * buffer → 0x-hex, optional → value or null, response → {ok}|{err}, list → array,
 * principal/string → string, bool → boolean. */
export type ClarityJson = string | boolean | null | ClarityJson[] | { [key: string]: ClarityJson };

/** The event types the Index and Streams APIs expose (SPEC.md "Index and Streams routes"). */
export const EVENT_TYPES = [
  "stx_transfer",
  "stx_mint",
  "stx_burn",
  "stx_lock",
  "ft_transfer",
  "ft_mint",
  "ft_burn",
  "nft_transfer",
  "nft_mint",
  "nft_burn",
  "print",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Transaction types as @stacks/transactions names their payloads, plus Bitcoin-originated ops. */
export type TxType =
  | "token_transfer"
  | "contract_call"
  | "smart_contract"
  | "versioned_smart_contract"
  | "coinbase"
  | "coinbase_to_alt_recipient"
  | "nakamoto_coinbase"
  | "poison_microblock"
  | "tenure_change"
  | "burnchain_op";

export interface DecodedTx {
  txId: string; // 0x-hex; always the payload's `txid` (poison-microblock txids differ from the hash)
  txIndex: number;
  txType: TxType;
  status: string; // success | abort_by_response | abort_by_post_condition | …
  sender: string | null; // null for burnchain ops whose sender is unknown
  sponsor: string | null;
  nonce: string | null;
  fee: string | null;
  /** contract_call: called contract; smart_contract: deployed contract id. */
  contractId: string | null;
  functionName: string | null;
  /** contract_call: raw Clarity-serialized args, 0x-hex each. */
  functionArgs: string[] | null;
  /** token_transfer */
  recipient: string | null;
  amount: string | null;
  memo: string | null;
  rawResult: string;
  result: ClarityJson;
  rawTx: string;
  burnchainOp: boolean;
  microblockSequence: number | null;
  microblockHash: string | null;
  /** `contract_interface ?? contract_abi` of a deploy, as sent by the node. */
  contractInterface: unknown | null;
  vmError: string | null;
  /** The receipt's `execution_cost` (runtime, reads, writes) as the node sends it; null when absent. */
  executionCost?: ExecutionCost | null;
  /** A Bitcoin-originated op's details (decode/burnchain-op.ts); null when they cannot be known. */
  burnchainOpDetails?: BurnchainOpDetails | null;
}

/**
 * What a Bitcoin-originated operation did, decoded at ingest from the node's `burnchain_op` field
 * (`source: "node"`) or, from nodes that do not send it, from the op's receipt and events
 * (`source: "events"`). Amounts are µSTX decimal strings; `contract` is the PoX contract's name.
 */
export type BurnchainOpDetails =
  | {
      op: "transfer_stx";
      source: "node" | "events";
      sender: string;
      recipient: string;
      amount: string;
      /** 0x-hex, or null when not known (events carry none). */
      memo: string | null;
    }
  | {
      op: "stack_stx";
      source: "node" | "events";
      sender: string;
      amount: string;
      pox_addr: { version: string; hashbytes: string } | null;
      start_burn_height: number;
      lock_period: number;
      /** pox-4 only (with max_amount and auth_id). */
      signer_key: string | null;
      max_amount: string | null;
      auth_id: string | null;
      contract: string;
    }
  | {
      op: "delegate_stx";
      source: "node" | "events";
      sender: string;
      amount: string;
      delegate_to: string;
      until_burn_height: number | null;
      pox_addr: { version: string; hashbytes: string } | null;
      contract: string;
    }
  | {
      op: "vote_for_aggregate_key";
      source: "node";
      sender: string;
      signer_index: number;
      aggregate_key: string;
      round: number;
      reward_cycle: number;
      signer_key: string;
    };

/** A transaction's execution cost, under the node's field names. */
export interface ExecutionCost {
  read_count: number;
  read_length: number;
  runtime: number;
  write_count: number;
  write_length: number;
}

/** One event, with its decoded payload. The payload's keys are the Streams API `payload`. */
export interface DecodedEvent {
  /** Dense 0-based ordinal over the block's events ordered by (tx_index, node event_index). */
  eventIndex: number;
  nodeEventIndex: number;
  txId: string;
  txIndex: number;
  committed: boolean;
  type: EventType;
  /** print: the printing contract; ft/nft: the asset's contract; stx: null. */
  contractId: string | null;
  /** ft/nft: `<contract>::<asset>`; stx: "STX"; print: null. */
  assetIdentifier: string | null;
  sender: string | null;
  recipient: string | null;
  /** Decimal string for amounts (stx_*, ft_*); stx_lock: locked amount. */
  amount: string | null;
  /** print only. */
  topic: string | null;
  /** Type-specific fields (see decode-events.ts), JSON-serialisable. */
  payload: Record<string, ClarityJson>;
}

/**
 * One entry of a `/new_block` body's `matured_miner_rewards`: a reward the node credits to
 * `recipient` in this block for a block mined earlier. Keys and amounts (µSTX, decimal strings) as
 * the node sends them; this is also the `miner_reward` handler payload (specs/README.md).
 */
export interface MaturedMinerReward {
  recipient: string;
  /** The miner; differs from `recipient` when the coinbase named another recipient (null on old nodes). */
  miner_address: string | null;
  coinbase_amount: string;
  tx_fees_anchored: string;
  tx_fees_streamed_confirmed: string;
  tx_fees_streamed_produced: string;
  /** The block whose mining earned the reward (null when the node leaves it out). */
  from_stacks_block_hash: string | null;
  /** That block's index block hash, under the node's name for it (null when left out). */
  from_index_consensus_hash: string | null;
}

export interface DecodedBlock {
  indexBlockHash: string;
  blockHash: string;
  height: number;
  parentIndexBlockHash: string;
  parentBlockHash: string;
  burnBlockHash: string;
  burnBlockHeight: number;
  burnBlockTime: number;
  /** Nakamoto block_time (unix seconds) when sent, else burn block time. */
  blockTime: number;
  minerTxid: string | null;
  txs: DecodedTx[];
  /** Sorted by (txIndex, nodeEventIndex); eventIndex is the position in this array. */
  events: DecodedEvent[];
  /** Miner rewards that mature in this block, in the node's order. */
  maturedMinerRewards: MaturedMinerReward[];
}

export interface DecodedBurnBlock {
  burnBlockHash: string;
  burnBlockHeight: number;
  rewardRecipients: unknown[];
  rewardSlotHolders: unknown[];
  burnAmount: string | null;
}
