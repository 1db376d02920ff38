/**
 * SQL of the Extended view's account reads: the STX lock in force (the latest canonical committed
 * `stx_lock` event of the address whose unlock burn height is still ahead), and fungible and
 * non-fungible token totals from the address's canonical committed events. STX totals come from
 * chain.address_activity (runtime/chain/address-activity.ts).
 */
import { eventColumnEquals } from "../chain/event-columns-sql.js";
import type { Queryable } from "../db/types.js";

export interface StxLock {
  txId: string;
  locked: string;
  lockHeight: number;
  burnLockHeight: number;
  burnUnlockHeight: number;
}

export async function readStxLock(q: Queryable, address: string, burnHeight: number): Promise<StxLock | null> {
  const { rows } = await q.query<{
    tx_id: string;
    amount: string;
    block_height: number;
    burn_block_height: number;
    unlock: string;
  }>(
    `SELECT e.tx_id, e.amount::text AS amount, e.block_height, b.burn_block_height, e.payload->>'unlock_height' AS unlock
       FROM chain.events e JOIN chain.blocks b ON b.index_block_hash = e.index_block_hash
      WHERE e.canonical AND e.committed AND e.event_type = 'stx_lock' AND ${eventColumnEquals("e", "sender", "$1")}
      ORDER BY e.block_height DESC, e.event_index DESC LIMIT 1`,
    [address],
  );
  const r = rows[0];
  if (!r || Number(r.unlock) <= burnHeight) return null;
  return {
    txId: r.tx_id,
    locked: r.amount,
    lockHeight: Number(r.block_height),
    burnLockHeight: Number(r.burn_block_height),
    burnUnlockHeight: Number(r.unlock),
  };
}

export interface TokenTotals {
  asset: string;
  kind: "ft" | "nft";
  sent: string;
  received: string;
}

/** Per asset: amounts (FT) or counts (NFT) the address sent (transfers out, burns) and received
 * (transfers in, mints). */
export async function readTokenTotals(q: Queryable, address: string): Promise<TokenTotals[]> {
  const { rows } = await q.query<{ asset: string; kind: "ft" | "nft"; sent: string; received: string }>(
    `SELECT asset_identifier AS asset, left(event_type, strpos(event_type, '_') - 1) AS kind,
            coalesce(sum(CASE WHEN sender = $1 THEN coalesce(amount, 1) END), 0)::text AS sent,
            coalesce(sum(CASE WHEN recipient = $1 THEN coalesce(amount, 1) END), 0)::text AS received
       FROM chain.events e
      WHERE canonical AND committed AND (${eventColumnEquals("e", "sender", "$1")} OR ${eventColumnEquals("e", "recipient", "$1")})
        AND event_type IN ('ft_transfer', 'ft_mint', 'ft_burn', 'nft_transfer', 'nft_mint', 'nft_burn')
      GROUP BY asset_identifier, kind ORDER BY asset_identifier`,
    [address],
  );
  return rows;
}
