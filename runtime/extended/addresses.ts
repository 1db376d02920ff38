/**
 * Address routes: `/extended/v1/address/:principal/stx`, `/extended/v1/address/:principal/balances`,
 * `/extended/v2/addresses/:address/transactions`. Balances are what a wallet shows: transfers,
 * mints and burns of committed events, fees paid (failed transactions' too) and matured miner
 * rewards, over the canonical chain; `locked` is the STX lock in force at the burn tip.
 */
import { readStxTotals } from "../chain/address-activity.js";
import type { Queryable } from "../db/types.js";
import { readStxLock, readTokenTotals } from "./account-reads.js";
import { readChainTip } from "./block-reads.js";
import { type ExtendedHandler, pathParam } from "./context.js";
import { invalidParam } from "./errors.js";
import { readAddressTxSummaries } from "./event-reads.js";
import { parsePage, parsePrincipal } from "./params.js";
import { renderTxList } from "./tx-render-batch.js";
import { readAddressTxs } from "./tx-reads.js";

/** Hiro's v2 address transactions page: 20 by default, 30 at most (its schema's maximum). */
const ADDRESS_TX_PAGE = { default: 20, max: 30 };

/** `until_block` asks for a past state, which sluice does not keep per height. */
function refuseUntilBlock(query: Record<string, unknown>): void {
  if (query.until_block !== undefined)
    throw invalidParam("until_block is not supported by sluice's Extended view: balances are at the tip", {
      until_block: query.until_block,
    });
}

async function stxBalance(q: Queryable, principal: string) {
  const [totals, tip] = await Promise.all([readStxTotals(q, principal), readChainTip(q)]);
  const lock = tip === null ? null : await readStxLock(q, principal, Number(tip.burn_block_height));
  const balance = BigInt(totals.received) - BigInt(totals.sent) - BigInt(totals.fees) + BigInt(totals.minerRewards);
  return {
    balance: balance.toString(),
    total_sent: totals.sent,
    total_received: totals.received,
    total_fees_sent: totals.fees,
    total_miner_rewards_received: totals.minerRewards,
    lock_tx_id: lock?.txId ?? "",
    locked: lock?.locked ?? "0",
    lock_height: lock?.lockHeight ?? 0,
    burnchain_lock_height: lock?.burnLockHeight ?? 0,
    burnchain_unlock_height: lock?.burnUnlockHeight ?? 0,
  };
}

export const getStxBalance: ExtendedHandler = async (req, { db }) => {
  refuseUntilBlock(req.query);
  return stxBalance(db, parsePrincipal(pathParam(req, "principal")));
};

export const getBalances: ExtendedHandler = async (req, { db }) => {
  refuseUntilBlock(req.query);
  const principal = parsePrincipal(pathParam(req, "principal"));
  const [stx, tokens] = await Promise.all([stxBalance(db, principal), readTokenTotals(db, principal)]);
  const fungible: Record<string, { balance: string; total_sent: string; total_received: string }> = {};
  const nonFungible: Record<string, { count: string; total_sent: string; total_received: string }> = {};
  for (const t of tokens) {
    const held = (BigInt(t.received) - BigInt(t.sent)).toString();
    if (t.kind === "ft") fungible[t.asset] = { balance: held, total_sent: t.sent, total_received: t.received };
    else nonFungible[t.asset] = { count: held, total_sent: t.sent, total_received: t.received };
  }
  return { stx, fungible_tokens: fungible, non_fungible_tokens: nonFungible };
};

const EVENT_KINDS = {
  stx: ["stx_transfer", "stx_mint", "stx_burn"],
  ft: ["ft_transfer", "ft_mint", "ft_burn"],
  nft: ["nft_transfer", "nft_mint", "nft_burn"],
} as const;

export const getAddressTransactions: ExtendedHandler = async (req, { db }) => {
  const address = parsePrincipal(pathParam(req, "address"), "address");
  const { limit, offset } = parsePage(req.query, ADDRESS_TX_PAGE.default, ADDRESS_TX_PAGE.max);
  const page = await readAddressTxs(db, address, limit, offset);
  const [txs, summaries] = await Promise.all([
    renderTxList(db, page.rows, req.query),
    readAddressTxSummaries(db, address, page.rows),
  ]);
  const results = page.rows.map((row, i) => {
    const s = summaries.get(`${row.index_block_hash}:${row.tx_index}`);
    const count = (type: string) => s?.counts[type] ?? 0;
    const kinds = (types: readonly string[]) => ({
      transfer: count(types[0]),
      mint: count(types[1]),
      burn: count(types[2]),
    });
    return {
      tx: txs[i],
      stx_sent: s?.stx_sent ?? "0",
      stx_received: s?.stx_received ?? "0",
      events: { stx: kinds(EVENT_KINDS.stx), ft: kinds(EVENT_KINDS.ft), nft: kinds(EVENT_KINDS.nft) },
    };
  });
  return { limit, offset, total: page.total, results };
};
