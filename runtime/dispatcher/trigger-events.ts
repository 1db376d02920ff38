/**
 * What trigger matching (trigger-match.ts) and the trigger index (trigger-index.ts) both read:
 * the chain webhooks' triggers, the event type each event-level trigger listens to, and the
 * address an stx_lock event locks. Pure.
 */
import type { ClarityJson, DecodedEvent } from "../chain/types.js";
import type { Trigger, TriggerType } from "./triggers.js";

export interface ChainWebhookTriggers {
  id: string;
  triggers: readonly Trigger[];
  /** Chain webhooks start at the tip they were created at: blocks at or below it never fire. */
  startHeight: number;
}

/** The chain event type each event-level trigger listens to. */
export const EVENT_TYPE_OF: Readonly<Partial<Record<TriggerType, DecodedEvent["type"]>>> = {
  ft_transfer: "ft_transfer",
  ft_mint: "ft_mint",
  ft_burn: "ft_burn",
  nft_transfer: "nft_transfer",
  nft_mint: "nft_mint",
  nft_burn: "nft_burn",
  stx_transfer: "stx_transfer",
  stx_mint: "stx_mint",
  stx_burn: "stx_burn",
  stx_lock: "stx_lock",
  print_event: "print",
  sbtc_deposit: "print",
  sbtc_withdrawal_create: "print",
  sbtc_withdrawal_accept: "print",
  sbtc_withdrawal_reject: "print",
};

/** The address an stx_lock event locks (the payload's, else the event's sender). */
export function lockedAddressOf(e: DecodedEvent): string | null {
  const locked: ClarityJson | undefined = e.payload.locked_address;
  return (typeof locked === "string" ? locked : null) ?? e.sender;
}
