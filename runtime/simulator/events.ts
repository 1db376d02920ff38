/**
 * Builders for the event bodies a stacks-node puts under `<type>_event` / `contract_event`, with the
 * node's alphabetical key order. Amounts are decimal strings, as the node sends them.
 */
import type { ClarityValue } from "@stacks/transactions";
import type { EventType } from "../chain/types.js";
import { cvRaw } from "./clarity-hex.js";

export interface PlannedEvent {
  type: EventType;
  /** The node's key for the body: `stx_transfer_event`, …, `contract_event`. */
  nodeKey: string;
  body: Record<string, string>;
  /** print only: the printing contract and the printed value (kept for ground truth). */
  contractId?: string;
  printValue?: ClarityValue;
}

type Amount = bigint | number;

export function stxTransfer(sender: string, recipient: string, amount: Amount, memoHex: string): PlannedEvent {
  return {
    type: "stx_transfer",
    nodeKey: "stx_transfer_event",
    body: { amount: String(amount), memo: memoHex, recipient, sender },
  };
}

export function stxMint(recipient: string, amount: Amount): PlannedEvent {
  return { type: "stx_mint", nodeKey: "stx_mint_event", body: { amount: String(amount), recipient } };
}

export function stxBurn(sender: string, amount: Amount): PlannedEvent {
  return { type: "stx_burn", nodeKey: "stx_burn_event", body: { amount: String(amount), sender } };
}

export function stxLock(contractId: string, lockedAddress: string, amount: Amount, unlockHeight: number): PlannedEvent {
  return {
    type: "stx_lock",
    nodeKey: "stx_lock_event",
    body: {
      contract_identifier: contractId,
      locked_address: lockedAddress,
      locked_amount: String(amount),
      unlock_height: String(unlockHeight),
    },
  };
}

export function ftTransfer(asset: string, sender: string, recipient: string, amount: Amount): PlannedEvent {
  return {
    type: "ft_transfer",
    nodeKey: "ft_transfer_event",
    body: { amount: String(amount), asset_identifier: asset, recipient, sender },
  };
}

export function ftMint(asset: string, recipient: string, amount: Amount): PlannedEvent {
  return {
    type: "ft_mint",
    nodeKey: "ft_mint_event",
    body: { amount: String(amount), asset_identifier: asset, recipient },
  };
}

export function ftBurn(asset: string, sender: string, amount: Amount): PlannedEvent {
  return {
    type: "ft_burn",
    nodeKey: "ft_burn_event",
    body: { amount: String(amount), asset_identifier: asset, sender },
  };
}

/** `rawValue` is the token id's serialized Clarity value (0x-hex). */
export function nftTransfer(asset: string, rawValue: string, sender: string, recipient: string): PlannedEvent {
  return {
    type: "nft_transfer",
    nodeKey: "nft_transfer_event",
    body: { asset_identifier: asset, raw_value: rawValue, recipient, sender },
  };
}

export function nftMint(asset: string, rawValue: string, recipient: string): PlannedEvent {
  return {
    type: "nft_mint",
    nodeKey: "nft_mint_event",
    body: { asset_identifier: asset, raw_value: rawValue, recipient },
  };
}

export function nftBurn(asset: string, rawValue: string, sender: string): PlannedEvent {
  return {
    type: "nft_burn",
    nodeKey: "nft_burn_event",
    body: { asset_identifier: asset, raw_value: rawValue, sender },
  };
}

/** A `print` from `contractId`; the node sends topic "print" and the value's consensus bytes. */
export function print(contractId: string, value: ClarityValue): PlannedEvent {
  return {
    type: "print",
    nodeKey: "contract_event",
    body: { contract_identifier: contractId, raw_value: cvRaw(value), topic: "print" },
    contractId,
    printValue: value,
  };
}

/** The node's event object: committed, <kind>, event_index, txid, type — keys in the node's order. */
export function nodeEvent(
  event: PlannedEvent,
  eventIndex: number,
  txid: string,
  committed: boolean,
): Record<string, unknown> {
  if (event.nodeKey === "contract_event") {
    return { committed, contract_event: event.body, event_index: eventIndex, txid, type: event.nodeKey };
  }
  return { committed, event_index: eventIndex, [event.nodeKey]: event.body, txid, type: event.nodeKey };
}
