/**
 * Events in Hiro's `TransactionEvent` shapes (stx_asset, stx_lock, fungible_token_asset,
 * non_fungible_token_asset, smart_contract_log), from chain.events rows. `event_index` is the
 * node's index of the event, as Hiro reports it. Pure.
 */
import { fromHex } from "./clarity.js";
import type { EventRow } from "./event-reads.js";

const ASSET_EVENT: Record<string, "transfer" | "mint" | "burn"> = {
  stx_transfer: "transfer",
  stx_mint: "mint",
  stx_burn: "burn",
  ft_transfer: "transfer",
  ft_mint: "mint",
  ft_burn: "burn",
  nft_transfer: "transfer",
  nft_mint: "mint",
  nft_burn: "burn",
};

/** Hiro's `type` filter names of sluice's event types. */
export const HIRO_EVENT_TYPE: Record<string, string> = {
  stx_transfer: "stx_asset",
  stx_mint: "stx_asset",
  stx_burn: "stx_asset",
  stx_lock: "stx_lock",
  ft_transfer: "fungible_token_asset",
  ft_mint: "fungible_token_asset",
  ft_burn: "fungible_token_asset",
  nft_transfer: "non_fungible_token_asset",
  nft_mint: "non_fungible_token_asset",
  nft_burn: "non_fungible_token_asset",
  print: "smart_contract_log",
};

const str = (v: unknown) => (typeof v === "string" ? v : "");

export function renderEvent(e: EventRow): Record<string, unknown> {
  const p = e.payload;
  const head = { event_index: Number(e.node_event_index), event_type: HIRO_EVENT_TYPE[e.event_type], tx_id: e.tx_id };
  switch (e.event_type) {
    case "stx_lock":
      return {
        ...head,
        stx_lock_event: {
          locked_amount: str(p.locked_amount),
          unlock_height: Number(p.unlock_height),
          locked_address: str(p.locked_address),
        },
      };
    case "print":
      return {
        ...head,
        contract_log: { contract_id: str(p.contract_id), topic: str(p.topic), value: fromHex(str(p.raw_value)) },
      };
    case "stx_transfer":
    case "stx_mint":
    case "stx_burn": {
      const asset: Record<string, string> = {
        asset_event_type: ASSET_EVENT[e.event_type],
        sender: str(p.sender),
        recipient: str(p.recipient),
        amount: str(p.amount),
      };
      if (e.event_type === "stx_transfer") asset.memo = str(p.memo);
      return { ...head, asset };
    }
    case "ft_transfer":
    case "ft_mint":
    case "ft_burn":
      return {
        ...head,
        asset: {
          asset_event_type: ASSET_EVENT[e.event_type],
          asset_id: str(p.asset_identifier),
          sender: str(p.sender),
          recipient: str(p.recipient),
          amount: str(p.amount),
        },
      };
    default:
      return {
        ...head,
        asset: {
          asset_event_type: ASSET_EVENT[e.event_type],
          asset_id: str(p.asset_identifier),
          sender: str(p.sender),
          recipient: str(p.recipient),
          value: fromHex(str(p.raw_value)),
        },
      };
  }
}
