/**
 * Handler contexts of a block (DESIGN.md §3; specs/README.md "Paths"): a pure function from a
 * DecodedBlock to the HandlerContexts the engine offers to every subgraph, in chain order —
 * transactions by tx_index; for each transaction first the fee it paid, then for a successful
 * contract-call or deploy its tx-level context (event_index -1), then its committed events by
 * event_index; last the block's matured miner rewards (the node credits them when it finishes the
 * block). Events of failed transactions carry `committed: false` and are never offered; their
 * fees are.
 */
import type { ClarityJson, DecodedBlock, DecodedEvent, DecodedTx } from "../chain/types.js";
import { minerRewardEvent, NO_TX, txFeeEvent } from "./stx-sources.js";
import type { BlockView, EventView, HandlerContext, TxView } from "./types.js";

const DEPLOY_TX_TYPES = new Set(["smart_contract", "versioned_smart_contract"]);

/** Every context of `block`, in chain order. `config` is the network's contract ids. */
export function buildHandlerContexts(block: DecodedBlock, config: Record<string, string>): HandlerContext[] {
  const blockView: BlockView = {
    height: block.height,
    hash: block.blockHash,
    index_block_hash: block.indexBlockHash,
    time: block.blockTime,
  };
  const txs = [...block.txs].sort((a, b) => a.txIndex - b.txIndex);
  const txViews = new Map<number, TxView>();
  const out: HandlerContext[] = [];
  let e = 0;
  const events = block.events;
  for (const tx of txs) {
    // Events of transactions missing from the list (never produced by the decoder) still run, in order.
    while (e < events.length && events[e].txIndex < tx.txIndex) pushEvent(events[e++]);
    const view = txView(tx);
    txViews.set(tx.txIndex, view);
    const fee = txFeeEvent(tx);
    if (fee !== null) out.push({ event: fee, tx: view, block: blockView, config });
    const level = txLevelEvent(tx);
    if (level !== null) out.push({ event: level, tx: view, block: blockView, config });
    while (e < events.length && events[e].txIndex === tx.txIndex) pushEvent(events[e++]);
  }
  while (e < events.length) pushEvent(events[e++]);
  for (const reward of block.maturedMinerRewards) {
    const event = minerRewardEvent(reward);
    if (event !== null) out.push({ event, tx: NO_TX, block: blockView, config });
  }
  return out;

  function pushEvent(event: DecodedEvent): void {
    if (!event.committed) return;
    const tx = txViews.get(event.txIndex) ?? orphanTxView(event);
    out.push({ event: eventView(event), tx, block: blockView, config });
  }
}

/** The TxView of a transaction. */
export function txView(tx: DecodedTx): TxView {
  return {
    id: tx.txId,
    sender: tx.sender,
    type: tx.txType,
    contract_id: tx.contractId,
    function_name: tx.functionName,
    status: tx.status,
    index: tx.txIndex,
  };
}

function orphanTxView(event: DecodedEvent): TxView {
  return {
    id: event.txId,
    sender: null,
    type: "unknown",
    contract_id: null,
    function_name: null,
    status: "success",
    index: event.txIndex,
  };
}

/**
 * The synthetic event of a tx-level source (specs/README.md: `type` = the source type,
 * `event_index` -1, the transaction's contract id), or null when the transaction is neither a
 * successful contract call nor a successful deploy.
 */
export function txLevelEvent(tx: DecodedTx): EventView | null {
  if (tx.status !== "success") return null;
  let type: "contract_call" | "contract_deploy";
  let payload: ClarityJson;
  if (tx.txType === "contract_call") {
    type = "contract_call";
    payload = { function_name: tx.functionName, function_args: tx.functionArgs ?? [], result: tx.result };
  } else if (DEPLOY_TX_TYPES.has(tx.txType)) {
    type = "contract_deploy";
    payload = { contract_id: tx.contractId };
  } else {
    return null;
  }
  return {
    type,
    event_index: -1,
    contract_id: tx.contractId,
    asset_identifier: null,
    sender: tx.sender,
    recipient: null,
    amount: null,
    topic: null,
    value: null,
    payload,
  };
}

/** The EventView of a chain event (types.ts EventView). */
export function eventView(event: DecodedEvent): EventView {
  let value: ClarityJson = null;
  let payload: ClarityJson = event.payload;
  let topic = event.topic;
  if (event.type === "print") {
    value = event.payload.value ?? null;
    payload = value;
    if (isObject(value) && typeof value.topic === "string") topic = value.topic;
  } else if (event.type === "nft_transfer" || event.type === "nft_mint" || event.type === "nft_burn") {
    value = event.payload.value ?? null;
  }
  return {
    type: event.type,
    event_index: event.eventIndex,
    contract_id: event.contractId,
    asset_identifier: event.assetIdentifier,
    sender: event.sender,
    recipient: event.recipient,
    amount: event.amount,
    topic,
    value,
    payload,
  };
}

function isObject(v: ClarityJson): v is { [key: string]: ClarityJson } {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
