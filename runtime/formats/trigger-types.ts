/**
 * The webhook trigger vocabulary (SPEC.md "Trigger object"), shared by the service and the SDK:
 * the chain event and transaction types (also the subgraph chain source types) and the sBTC
 * peg-lifecycle types.
 */

/** Chain events and transactions a trigger (or a subgraph source) may name; the same list as
 * `ChainSourceType` in runtime/subgraphs/types.ts (runtime/dispatcher/triggers.ts checks it). */
export type ChainTriggerType =
  | "contract_call"
  | "contract_deploy"
  | "ft_transfer"
  | "ft_mint"
  | "ft_burn"
  | "nft_transfer"
  | "nft_mint"
  | "nft_burn"
  | "stx_transfer"
  | "stx_mint"
  | "stx_burn"
  | "stx_lock"
  | "print_event";

/** The five sBTC peg-lifecycle trigger types (SPEC.md "Trigger object", last paragraph). */
export const SBTC_TRIGGER_TYPES = [
  "sbtc_deposit",
  "sbtc_withdrawal_create",
  "sbtc_withdrawal_accept",
  "sbtc_withdrawal_reject",
  "sbtc_withdrawal_swept_confirmed",
] as const;
export type SbtcTriggerType = (typeof SBTC_TRIGGER_TYPES)[number];

export type TriggerType = ChainTriggerType | SbtcTriggerType;
