/**
 * chain.address_activity (migration 0014-extended): one row per block and address active in it,
 * with the address's net STX movement there — µSTX received (transfers in, mints), sent (transfers
 * out, burns), fees paid and miner rewards credited; zeros for an address that moved no STX. An
 * address is active in a block when it sends, sponsors or receives one of its transactions, is the
 * contract one calls or deploys, is party to one of its committed events, or is credited a matured
 * miner reward. So an account's balance is one indexed sum over its canonical rows, and its
 * transactions are found in the blocks its rows name (the Extended view, docs/extended.md). Rows
 * carry the block's canonical flag like every chain table: a reorg flips them with the block
 * (block-store.ts setCanonical).
 *
 * Two derivations of the same rule: `addressActivity` (pure, from a decoded block, written with
 * the block's rows in one statement) and `REBUILD_SQL` (from the stored chain tables, for blocks
 * stored before the table existed and ranges an archive restore replaced).
 */
import type { Queryable } from "../db/types.js";
import type { DecodedEvent, DecodedTx, MaturedMinerReward } from "./types.js";

/** One address active in one block, and its STX movement there (µSTX as decimal strings). */
export interface AddressActivity {
  address: string;
  received: string;
  sent: string;
  fees: string;
  minerRewards: string;
}

interface Totals {
  received: bigint;
  sent: bigint;
  fees: bigint;
  minerRewards: bigint;
}

/** What the rule reads of a block (an archive restore builds it from a bundle's rows). */
export interface ActivitySource {
  txs: readonly Pick<DecodedTx, "sender" | "sponsor" | "recipient" | "contractId" | "fee">[];
  events: readonly Pick<DecodedEvent, "committed" | "type" | "sender" | "recipient" | "amount">[];
  maturedMinerRewards: readonly Pick<
    MaturedMinerReward,
    "recipient" | "coinbase_amount" | "tx_fees_anchored" | "tx_fees_streamed_confirmed" | "tx_fees_streamed_produced"
  >[];
}

/**
 * The block's active addresses, in first-seen order. Only committed events move STX (a failed
 * transaction's events never happened); every transaction's fee is paid by its sponsor, else its
 * sender, whatever its status. A matured miner reward credits its recipient with the coinbase and
 * every fee share.
 */
export function addressActivity(block: ActivitySource): AddressActivity[] {
  const totals = new Map<string, Totals>();
  const of = (address: string) => {
    let t = totals.get(address);
    if (!t) {
      t = { received: 0n, sent: 0n, fees: 0n, minerRewards: 0n };
      totals.set(address, t);
    }
    return t;
  };
  for (const tx of block.txs) {
    for (const party of [tx.sender, tx.sponsor, tx.recipient, tx.contractId]) if (party !== null) of(party);
    const payer = tx.sponsor ?? tx.sender;
    if (payer !== null && tx.fee !== null && tx.fee !== "0") of(payer).fees += BigInt(tx.fee);
  }
  for (const e of block.events) {
    if (!e.committed) continue;
    if (e.sender !== null) of(e.sender);
    if (e.recipient !== null) of(e.recipient);
    if (e.amount === null) continue;
    const amount = BigInt(e.amount);
    if ((e.type === "stx_transfer" || e.type === "stx_burn") && e.sender !== null) of(e.sender).sent += amount;
    if ((e.type === "stx_transfer" || e.type === "stx_mint") && e.recipient !== null)
      of(e.recipient).received += amount;
  }
  for (const r of block.maturedMinerRewards) {
    of(r.recipient).minerRewards +=
      BigInt(r.coinbase_amount) +
      BigInt(r.tx_fees_anchored) +
      BigInt(r.tx_fees_streamed_confirmed) +
      BigInt(r.tx_fees_streamed_produced);
  }
  return [...totals].map(([address, t]) => ({
    address,
    received: t.received.toString(),
    sent: t.sent.toString(),
    fees: t.fees.toString(),
    minerRewards: t.minerRewards.toString(),
  }));
}

/** Column arrays for unnest (address, received, sent, fees, miner_rewards). */
export function addressActivityColumns(changes: readonly AddressActivity[]): unknown[][] {
  return [
    changes.map((c) => c.address),
    changes.map((c) => c.received),
    changes.map((c) => c.sent),
    changes.map((c) => c.fees),
    changes.map((c) => c.minerRewards),
  ];
}

/**
 * The same rule over stored rows of the blocks with heights in [$1, $2] (all of them, canonical
 * or not, each row keeping its block's flag). Kept in step with `addressActivity`; a storage
 * test checks both give the same rows.
 */
export const REBUILD_SQL = `INSERT INTO chain.address_activity
    (index_block_hash, address, block_height, canonical, received, sent, fees, miner_rewards)
  SELECT d.index_block_hash, d.address, b.block_height, b.canonical,
         sum(d.received), sum(d.sent), sum(d.fees), sum(d.miner_rewards)
    FROM (
      SELECT index_block_hash, recipient AS address, amount AS received, 0 AS sent, 0 AS fees, 0 AS miner_rewards
        FROM chain.events
       WHERE block_height BETWEEN $1 AND $2 AND committed AND event_type IN ('stx_transfer', 'stx_mint')
         AND recipient IS NOT NULL AND amount IS NOT NULL
      UNION ALL
      SELECT index_block_hash, sender, 0, amount, 0, 0
        FROM chain.events
       WHERE block_height BETWEEN $1 AND $2 AND committed AND event_type IN ('stx_transfer', 'stx_burn')
         AND sender IS NOT NULL AND amount IS NOT NULL
      UNION ALL
      SELECT index_block_hash, coalesce(sponsor, sender), 0, 0, fee, 0
        FROM chain.transactions
       WHERE block_height BETWEEN $1 AND $2 AND coalesce(sponsor, sender) IS NOT NULL AND fee IS NOT NULL AND fee <> 0
      UNION ALL
      SELECT index_block_hash, party, 0, 0, 0, 0
        FROM chain.transactions, unnest(ARRAY[sender, sponsor, recipient, contract_id]) AS party
       WHERE block_height BETWEEN $1 AND $2 AND party IS NOT NULL
      UNION ALL
      SELECT index_block_hash, party, 0, 0, 0, 0
        FROM chain.events, unnest(ARRAY[sender, recipient]) AS party
       WHERE block_height BETWEEN $1 AND $2 AND committed AND party IS NOT NULL
      UNION ALL
      SELECT b.index_block_hash, r->>'recipient', 0, 0, 0,
             (r->>'coinbase_amount')::numeric + (r->>'tx_fees_anchored')::numeric
               + (r->>'tx_fees_streamed_confirmed')::numeric + (r->>'tx_fees_streamed_produced')::numeric
        FROM chain.blocks b, jsonb_array_elements(coalesce(b.matured_miner_rewards, '[]'::jsonb)) r
       WHERE b.block_height BETWEEN $1 AND $2
    ) d
    JOIN chain.blocks b ON b.index_block_hash = d.index_block_hash
   GROUP BY d.index_block_hash, d.address, b.block_height, b.canonical`;

/** Recomputes the rows of the blocks with heights in [from, to] from the stored chain tables. */
export async function rebuildAddressActivity(q: Queryable, from: number, to: number): Promise<void> {
  // By the blocks' primary key: no index on block_height is kept for this rare path, so that each
  // block's insert maintains one index fewer.
  await q.query(
    `DELETE FROM chain.address_activity WHERE index_block_hash IN (
       SELECT index_block_hash FROM chain.blocks WHERE block_height BETWEEN $1 AND $2)`,
    [from, to],
  );
  await q.query(REBUILD_SQL, [from, to]);
}

/** An address's canonical STX totals, µSTX as decimal strings ("0" for an address never seen). */
export interface StxTotals {
  received: string;
  sent: string;
  fees: string;
  minerRewards: string;
}

/** Sums the address's canonical rows (one index range: one row per block that moved its STX). */
export async function readStxTotals(q: Queryable, address: string): Promise<StxTotals> {
  const { rows } = await q.query<{ received: string; sent: string; fees: string; miner_rewards: string }>(
    `SELECT coalesce(sum(received), 0)::text AS received, coalesce(sum(sent), 0)::text AS sent,
            coalesce(sum(fees), 0)::text AS fees, coalesce(sum(miner_rewards), 0)::text AS miner_rewards
       FROM chain.address_activity WHERE address = $1 AND canonical`,
    [address],
  );
  const r = rows[0];
  return { received: r.received, sent: r.sent, fees: r.fees, minerRewards: r.miner_rewards };
}
