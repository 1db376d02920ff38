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

export const EXTENDED_ROUTES: readonly ExtendedRoute[] = [
  { path: "/extended", handler: getStatus },
  { path: "/extended/v1/status", handler: getStatus },
  { path: "/extended/v2/blocks", handler: listBlocks },
  { path: "/extended/v2/blocks/:height_or_hash", handler: getBlock },
  { path: "/extended/v2/blocks/:height_or_hash/transactions", handler: getBlockTransactions },
  { path: "/extended/v1/block/by_height/:height", handler: getBlockByHeight },
  { path: "/extended/v1/tx", handler: listRecentTxs },
  { path: "/extended/v1/tx/events", handler: listEvents },
  { path: "/extended/v1/tx/:tx_id", handler: getTx },
  { path: "/extended/v1/address/:principal/stx", handler: getStxBalance },
  { path: "/extended/v1/address/:principal/balances", handler: getBalances },
  { path: "/extended/v2/addresses/:address/transactions", handler: getAddressTransactions },
  { path: "/extended/v1/contract/:contract_id", handler: getContract },
  { path: "/extended/v1/contract/:contract_id/events", handler: getContractEvents },
];
