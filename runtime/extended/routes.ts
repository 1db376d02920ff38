/**
 * Every route of the Extended view (docs/extended.md), one row each: Hiro's path and the handler.
 * Node-only routes (501) are in unsupported.ts.
 */
import { getAddressTransactions, getBalances, getStxBalance } from "./addresses.js";
import { getBlock, getBlockByHeight, getBlockTransactions, listBlocks } from "./blocks.js";
import type { ExtendedRoute } from "./context.js";
import { getContract, getContractEvents } from "./contracts.js";
import { getStatus } from "./status.js";
import { getTx, listEvents, listRecentTxs } from "./transactions.js";

const PAGE = ["limit", "offset"];
const TX_PAGE = [...PAGE, "exclude_function_args"];

export const EXTENDED_ROUTES: readonly ExtendedRoute[] = [
  { path: "/extended", query: [], handler: getStatus },
  { path: "/extended/v1/status", query: [], handler: getStatus },
  { path: "/extended/v2/blocks", query: PAGE, handler: listBlocks },
  { path: "/extended/v2/blocks/:height_or_hash", query: [], handler: getBlock },
  { path: "/extended/v2/blocks/:height_or_hash/transactions", query: TX_PAGE, handler: getBlockTransactions },
  { path: "/extended/v1/block/by_height/:height", query: [], handler: getBlockByHeight },
  { path: "/extended/v1/tx", query: TX_PAGE, handler: listRecentTxs },
  { path: "/extended/v1/tx/events", query: [...PAGE, "tx_id", "address", "type"], handler: listEvents },
  { path: "/extended/v1/tx/:tx_id", query: ["event_limit", "event_offset"], handler: getTx },
  { path: "/extended/v1/address/:principal/stx", query: ["until_block"], handler: getStxBalance },
  { path: "/extended/v1/address/:principal/balances", query: ["until_block"], handler: getBalances },
  { path: "/extended/v2/addresses/:address/transactions", query: TX_PAGE, handler: getAddressTransactions },
  { path: "/extended/v1/contract/:contract_id", query: [], handler: getContract },
  { path: "/extended/v1/contract/:contract_id/events", query: PAGE, handler: getContractEvents },
];
