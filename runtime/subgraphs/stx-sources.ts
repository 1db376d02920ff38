/**
 * The STX movements a balance needs besides chain events (specs/README.md, `tx_fee` and
 * `miner_reward`): the fee a transaction pays and a miner reward maturing in a block, as the
 * synthetic events their handlers see. Pure. What counts follows the Hiro API's account balance
 * (credits − debits − fees paid + matured miner rewards), so a balance built from these sources
 * and the stx_* events equals what a wallet shows.
 */
import type { DecodedTx, MaturedMinerReward } from "../chain/types.js";
import type { EventView, TxView } from "./types.js";

/**
 * The `tx_fee` event of a transaction, or null when it paid nothing. Every transaction in a block
 * pays its fee whatever its status (a failed one too); the sponsor pays for a sponsored one;
 * Bitcoin-originated operations (`raw_tx` 0x00) carry no fee; a fee of 0 is no event.
 */
export function txFeeEvent(tx: DecodedTx): EventView | null {
  const payer = tx.sponsor ?? tx.sender;
  if (tx.burnchainOp || payer === null || tx.fee === null || !isPositive(tx.fee)) return null;
  return {
    type: "tx_fee",
    event_index: -1,
    contract_id: null,
    asset_identifier: "STX",
    sender: payer,
    recipient: null,
    amount: tx.fee,
    topic: null,
    value: null,
    payload: { payer, amount: tx.fee, sponsored: tx.sponsor !== null },
  };
}

/**
 * The `miner_reward` event of a matured reward, or null when it credits nothing. Its amount is
 * the coinbase plus the three fee shares (anchored, streamed confirmed, streamed produced).
 */
export function minerRewardEvent(reward: MaturedMinerReward): EventView | null {
  const total =
    BigInt(reward.coinbase_amount) +
    BigInt(reward.tx_fees_anchored) +
    BigInt(reward.tx_fees_streamed_confirmed) +
    BigInt(reward.tx_fees_streamed_produced);
  if (total === 0n) return null;
  const amount = total.toString();
  return {
    type: "miner_reward",
    event_index: -1,
    contract_id: null,
    asset_identifier: "STX",
    sender: null,
    recipient: reward.recipient,
    amount,
    topic: null,
    value: null,
    payload: { ...reward, amount },
  };
}

/** A miner reward is credited by the block itself, not by a transaction: its `tx` is empty. */
export const NO_TX: Readonly<TxView> = Object.freeze({
  id: "",
  sender: null,
  type: "",
  contract_id: null,
  function_name: null,
  status: "success",
  index: -1,
});

const isPositive = (decimal: string) => /^0*[1-9]\d*$/.test(decimal);
