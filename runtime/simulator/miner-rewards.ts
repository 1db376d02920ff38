/**
 * Miner rewards of the simulated chain: the reward of each tenure — its coinbase plus the fees of
 * the block that opened it — matures REWARD_MATURITY tenures later on the same branch, listed in
 * the `matured_miner_rewards` of the block that opens that later tenure and paid to the coinbase's
 * recipient (the miner, unless the coinbase names another). Tenures form an immutable list per
 * branch, so a fork matures exactly the rewards of its own ancestry.
 */
import type { MaturedReward } from "./block-body.js";

/**
 * Tenures between earning and receiving a reward. The real chain waits 100 blocks; a short
 * maturity lets simulations of a few hundred blocks include matured rewards.
 */
export const REWARD_MATURITY = 10;

/** The coinbase of a tenure: 1,000 STX in µSTX. */
export const COINBASE_USTX = 1_000_000_000n;

/** A tenure on a branch: the reward it earned and the tenure before it. */
export interface TenureLink {
  readonly reward: MaturedReward;
  readonly previous: TenureLink | null;
}

export interface OpenedTenure {
  blockHash: string;
  indexBlockHash: string;
  miner: string;
  /** The coinbase's recipient (its alternative recipient, or the miner). */
  recipient: string;
  /** µSTX of fees paid in the opening block. */
  fees: bigint;
}

/** Links a newly opened tenure after `previous`. */
export function openTenure(previous: TenureLink | null, tenure: OpenedTenure): TenureLink {
  return {
    previous,
    reward: {
      recipient: tenure.recipient,
      miner_address: tenure.miner,
      coinbase_amount: COINBASE_USTX.toString(),
      tx_fees_anchored: tenure.fees.toString(),
      tx_fees_streamed_confirmed: "0",
      tx_fees_streamed_produced: "0",
      from_stacks_block_hash: tenure.blockHash,
      from_index_consensus_hash: tenure.indexBlockHash,
    },
  };
}

/** The rewards that mature when the tenure after `previous` opens: the one REWARD_MATURITY tenures back. */
export function maturingRewards(previous: TenureLink | null): MaturedReward[] {
  let link = previous;
  for (let step = 1; step < REWARD_MATURITY && link !== null; step++) link = link.previous;
  return link === null ? [] : [link.reward];
}

/** µSTX a matured reward pays its recipient: the coinbase and every fee share. */
export function rewardTotal(reward: MaturedReward): bigint {
  return (
    BigInt(reward.coinbase_amount) +
    BigInt(reward.tx_fees_anchored) +
    BigInt(reward.tx_fees_streamed_confirmed) +
    BigInt(reward.tx_fees_streamed_produced)
  );
}
