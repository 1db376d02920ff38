/** `/new_block` and `/new_burn_block` bodies → DecodedBlock / DecodedBurnBlock (DESIGN.md §2). */
import type { DecodedBlock, DecodedBurnBlock, DecodedEvent, DecodedTx } from "../types.js";
import { decodeBurnchainOp } from "./burnchain-op.js";
import { decodeEvents } from "./decode-events.js";
import { decodeMaturedMinerRewards } from "./decode-miner-rewards.js";
import { decodeTx } from "./decode-tx.js";
import { isIndex, isRecord, malformed, requireArray, requireHash, requireIndex } from "./fields.js";
import { isHash32 } from "./hex.js";

/** A decoded `/new_block` plus what the decoder left out. */
export interface DecodedNewBlock extends DecodedBlock {
  /** Node type of each event skipped because it is not an indexed type (one entry per event). */
  skippedEventTypes: string[];
}

/**
 * Decodes a `/new_block` body (already JSON-parsed). Throws MalformedPayloadError naming the
 * field path and the problem when a required field is missing or wrong, a raw_tx/raw_result does
 * not decode, or an event names a txid that is not in the block. Print/NFT values that do not
 * decode do not fail the block (their payload carries `decode_error`).
 */
export function decodeNewBlock(body: unknown): DecodedNewBlock {
  if (!isRecord(body)) throw malformed("body", "must be a JSON object", body);
  const indexBlockHash = requireHash(body, "index_block_hash", "");
  const blockHash = requireHash(body, "block_hash", "");
  const height = requireIndex(body, "block_height", "");
  const parentIndexBlockHash = requireHash(body, "parent_index_block_hash", "");
  const parentBlockHash = requireHash(body, "parent_block_hash", "");
  const burnBlockHash = requireHash(body, "burn_block_hash", "");
  const burnBlockHeight = requireIndex(body, "burn_block_height", "");
  const burnBlockTime = requireIndex(body, "burn_block_time", "");
  const blockTime = isIndex(body.block_time) ? body.block_time : burnBlockTime;
  const minerTxid = body.miner_txid;
  if (minerTxid !== undefined && minerTxid !== null && !isHash32(minerTxid)) {
    throw malformed("miner_txid", "must be 0x followed by 64 hex digits or null", minerTxid);
  }
  const rawTxs = requireArray(body, "transactions", "");
  const rawEvents = requireArray(body, "events", "");
  const maturedMinerRewards = decodeMaturedMinerRewards(body.matured_miner_rewards);

  // Pass 1: txid → tx_index, so events can be linked before the txs are decoded.
  const txIndexById = new Map<string, number>();
  const seenTxIndex = new Set<number>();
  let hasBurnchainOp = false;
  for (let i = 0; i < rawTxs.length; i++) {
    const raw = rawTxs[i];
    const at = `transactions[${i}]`;
    if (!isRecord(raw)) throw malformed(at, "must be an object", raw);
    const txId = requireHash(raw, "txid", `${at}.`);
    const txIndex = requireIndex(raw, "tx_index", `${at}.`);
    if (txIndexById.has(txId)) throw malformed(`${at}.txid`, `${txId} appears twice in the block`);
    if (seenTxIndex.has(txIndex)) throw malformed(`${at}.tx_index`, `${txIndex} appears twice in the block`);
    txIndexById.set(txId, txIndex);
    seenTxIndex.add(txIndex);
    if (raw.raw_tx === "0x00") hasBurnchainOp = true;
  }

  const { events, skippedTypes } = decodeEvents(rawEvents, txIndexById);

  // A Bitcoin-originated op without a `burnchain_op` field takes its sender from its first event,
  // and its details from its events (decode/burnchain-op.ts).
  let eventsByTx: Map<number, DecodedEvent[]> | undefined;
  if (hasBurnchainOp) {
    eventsByTx = new Map();
    for (const e of events) {
      const list = eventsByTx.get(e.txIndex);
      if (list) list.push(e);
      else eventsByTx.set(e.txIndex, [e]);
    }
  }

  const txs: DecodedTx[] = new Array(rawTxs.length);
  let sorted = true;
  for (let i = 0; i < rawTxs.length; i++) {
    const raw = rawTxs[i] as Record<string, unknown>;
    const txEvents = eventsByTx?.get(raw.tx_index as number) ?? [];
    const tx = decodeTx(raw, `transactions[${i}]`, txEvents[0] ?? null);
    if (tx.burnchainOp) {
      tx.burnchainOpDetails = decodeBurnchainOp({
        nodeOp: raw.burnchain_op,
        result: tx.result,
        events: txEvents,
        burnBlockHeight,
      });
    }
    if (i > 0 && txs[i - 1].txIndex > tx.txIndex) sorted = false;
    txs[i] = tx;
  }
  if (!sorted) txs.sort((a, b) => a.txIndex - b.txIndex);

  return {
    indexBlockHash,
    blockHash,
    height,
    parentIndexBlockHash,
    parentBlockHash,
    burnBlockHash,
    burnBlockHeight,
    burnBlockTime,
    blockTime,
    minerTxid: typeof minerTxid === "string" ? minerTxid.toLowerCase() : null,
    txs,
    events,
    maturedMinerRewards,
    skippedEventTypes: skippedTypes,
  };
}

/**
 * Decodes a `/new_burn_block` body. `burn_amount` (satoshis) becomes a decimal string, or null
 * when absent. Throws MalformedPayloadError like decodeNewBlock.
 */
export function decodeNewBurnBlock(body: unknown): DecodedBurnBlock {
  if (!isRecord(body)) throw malformed("body", "must be a JSON object", body);
  const burnBlockHash = requireHash(body, "burn_block_hash", "");
  const burnBlockHeight = requireIndex(body, "burn_block_height", "");
  const rewardRecipients = requireArray(body, "reward_recipients", "");
  const rewardSlotHolders = requireArray(body, "reward_slot_holders", "");
  const amount = body.burn_amount;
  let burnAmount: string | null;
  if (amount === undefined || amount === null) burnAmount = null;
  else if (isIndex(amount)) burnAmount = String(amount);
  else if (typeof amount === "string" && /^\d+$/.test(amount)) burnAmount = amount;
  else throw malformed("burn_amount", "must be a non-negative integer or null", amount);
  return { burnBlockHash, burnBlockHeight, rewardRecipients, rewardSlotHolders, burnAmount };
}
