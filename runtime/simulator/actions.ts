/** The event mix: which action each mix key runs, and the default weights. */
import { EVENT_TYPES, type EventType } from "../chain/types.js";
import type { ActionContext, TxPlan } from "./action-kit.js";
import * as assets from "./actions-assets.js";
import { bnsAction } from "./actions-bns.js";
import { sbtcAction } from "./actions-sbtc.js";

/** Event types pick an action whose main event is that type; bns/sbtc run their lifecycles; deploy adds contracts. */
export type MixKey = EventType | "bns" | "sbtc" | "deploy";
export const MIX_KEYS: readonly MixKey[] = [...EVENT_TYPES, "bns", "sbtc", "deploy"];

export const DEFAULT_MIX: Readonly<Record<MixKey, number>> = {
  stx_transfer: 6,
  stx_mint: 1,
  stx_burn: 1,
  stx_lock: 1,
  ft_transfer: 4,
  ft_mint: 2,
  ft_burn: 1,
  nft_transfer: 2,
  nft_mint: 2,
  nft_burn: 1,
  print: 2,
  bns: 2,
  sbtc: 2,
  deploy: 0.2,
};

const ACTIONS: Record<MixKey, (ctx: ActionContext) => TxPlan> = {
  stx_transfer: assets.stxTransfer,
  stx_mint: assets.stxMint,
  stx_burn: assets.stxBurn,
  stx_lock: assets.stxLock,
  ft_transfer: assets.ftTransfer,
  ft_mint: (ctx) => assets.ftMint(ctx),
  ft_burn: assets.ftBurn,
  nft_transfer: assets.nftTransfer,
  nft_mint: assets.nftMint,
  nft_burn: assets.nftBurn,
  print: assets.printLog,
  bns: bnsAction,
  sbtc: sbtcAction,
  deploy: assets.deployContract,
};

export function runAction(key: MixKey, ctx: ActionContext): TxPlan {
  return ACTIONS[key](ctx);
}
