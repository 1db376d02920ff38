/** Node `/new_block` events → DecodedEvent with the Streams payload (DESIGN.md §2, §3). */
import { eventTypeOfNodeName } from "../event-type-names.js";
import type { ClarityJson, DecodedEvent } from "../types.js";
import { decodeClarityHex } from "./clarity-json.js";
import { isIndex, isRecord, type JsonObject, malformed, requireDecimal, requireHash, requireString } from "./fields.js";

export interface DecodedEvents {
  /** Sorted by (txIndex, nodeEventIndex), eventIndex = position. */
  events: DecodedEvent[];
  /** The node type of every event that was skipped because we do not index its type, one entry
   * per skipped event (so `.length` is the count). */
  skippedTypes: string[];
}

/**
 * Decodes, links and orders a block's events. `txIndexById` maps each of the block's txids
 * (lowercase) to its tx_index; an event naming another txid is a MalformedPayloadError.
 * `path` prefixes field paths in error messages.
 */
export function decodeEvents(
  rawEvents: readonly unknown[],
  txIndexById: ReadonlyMap<string, number>,
  path = "events",
): DecodedEvents {
  const events: DecodedEvent[] = [];
  const skippedTypes: string[] = [];
  let sorted = true;
  for (let i = 0; i < rawEvents.length; i++) {
    const at = `${path}[${i}]`;
    const raw = rawEvents[i];
    if (!isRecord(raw)) throw malformed(at, "must be an object", raw);
    const nodeType = requireString(raw, "type", `${at}.`);
    if (eventTypeOfNodeName(String(nodeType)) === undefined) {
      skippedTypes.push(nodeType);
      continue;
    }
    // The map's keys are validated lowercase txids: an exact hit needs no further check.
    let txId = raw.txid as string;
    let txIndex = typeof txId === "string" ? txIndexById.get(txId) : undefined;
    if (txIndex === undefined) {
      txId = requireHash(raw, "txid", `${at}.`);
      txIndex = txIndexById.get(txId);
      if (txIndex === undefined) throw malformed(`${at}.txid`, `${txId} is not a transaction of this block`);
    }
    const event = decodeEvent(raw, at, txId, txIndex);
    const prev = events[events.length - 1];
    if (prev !== undefined && compareEvents(prev, event) > 0) sorted = false;
    events.push(event);
  }
  if (!sorted) events.sort(compareEvents);
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    const prev = events[i - 1];
    if (prev !== undefined && prev.txIndex === e.txIndex && prev.nodeEventIndex === e.nodeEventIndex) {
      throw malformed(path, `two events of tx ${e.txId} share event_index ${e.nodeEventIndex}`);
    }
    e.eventIndex = i;
  }
  return { events, skippedTypes };
}

/**
 * Decodes one node event of a known type (see event-type-names.ts) for a tx already resolved by
 * the caller. `eventIndex` is left at -1 for decodeEvents to assign.
 */
export function decodeEvent(raw: JsonObject, at: string, txId: string, txIndex: number): DecodedEvent {
  const nodeType = raw.type;
  const type = typeof nodeType === "string" ? eventTypeOfNodeName(nodeType) : undefined;
  if (type === undefined) throw malformed(`${at}.type`, "is not an indexed event type", nodeType);
  const nodeEventIndex = raw.event_index;
  if (!isIndex(nodeEventIndex)) throw malformed(`${at}.event_index`, "must be a non-negative integer", nodeEventIndex);
  const committed = raw.committed;
  if (typeof committed !== "boolean") throw malformed(`${at}.committed`, "must be a boolean", committed);
  const bodyAt = `${at}.${nodeType}.`;
  const body = raw[nodeType as string];
  if (!isRecord(body)) throw malformed(`${at}.${nodeType}`, "must be an object", body);

  const event: DecodedEvent = {
    eventIndex: -1,
    nodeEventIndex,
    txId,
    txIndex,
    committed,
    type,
    contractId: null,
    assetIdentifier: null,
    sender: null,
    recipient: null,
    amount: null,
    topic: null,
    payload: {},
  };

  switch (type) {
    case "stx_transfer": {
      const sender = requireString(body, "sender", bodyAt);
      const recipient = requireString(body, "recipient", bodyAt);
      const amount = requireDecimal(body, "amount", bodyAt);
      const memo = memoOf(body, bodyAt);
      event.assetIdentifier = "STX";
      event.sender = sender;
      event.recipient = recipient;
      event.amount = amount;
      event.payload = { sender, recipient, amount, memo };
      break;
    }
    case "stx_mint": {
      const recipient = requireString(body, "recipient", bodyAt);
      const amount = requireDecimal(body, "amount", bodyAt);
      event.assetIdentifier = "STX";
      event.recipient = recipient;
      event.amount = amount;
      event.payload = { recipient, amount };
      break;
    }
    case "stx_burn": {
      const sender = requireString(body, "sender", bodyAt);
      const amount = requireDecimal(body, "amount", bodyAt);
      event.assetIdentifier = "STX";
      event.sender = sender;
      event.amount = amount;
      event.payload = { sender, amount };
      break;
    }
    case "stx_lock": {
      const lockedAddress = requireString(body, "locked_address", bodyAt);
      const lockedAmount = requireDecimal(body, "locked_amount", bodyAt);
      const unlockHeight = requireDecimal(body, "unlock_height", bodyAt);
      event.assetIdentifier = "STX";
      // The locking account is the event's subject: exposed as `sender` for address filters.
      event.sender = lockedAddress;
      event.amount = lockedAmount;
      event.payload = { locked_address: lockedAddress, locked_amount: lockedAmount, unlock_height: unlockHeight };
      break;
    }
    case "ft_transfer":
    case "ft_mint":
    case "ft_burn": {
      const assetIdentifier = requireString(body, "asset_identifier", bodyAt);
      const sender = type === "ft_mint" ? null : requireString(body, "sender", bodyAt);
      const recipient = type === "ft_burn" ? null : requireString(body, "recipient", bodyAt);
      const amount = requireDecimal(body, "amount", bodyAt);
      event.contractId = assetContract(assetIdentifier, bodyAt);
      event.assetIdentifier = assetIdentifier;
      event.sender = sender;
      event.recipient = recipient;
      event.amount = amount;
      const payload: Record<string, ClarityJson> = { asset_identifier: assetIdentifier };
      if (sender !== null) payload.sender = sender;
      if (recipient !== null) payload.recipient = recipient;
      payload.amount = amount;
      event.payload = payload;
      break;
    }
    case "nft_transfer":
    case "nft_mint":
    case "nft_burn": {
      const assetIdentifier = requireString(body, "asset_identifier", bodyAt);
      const sender = type === "nft_mint" ? null : requireString(body, "sender", bodyAt);
      const recipient = type === "nft_burn" ? null : requireString(body, "recipient", bodyAt);
      const rawValue = requireString(body, "raw_value", bodyAt);
      event.contractId = assetContract(assetIdentifier, bodyAt);
      event.assetIdentifier = assetIdentifier;
      event.sender = sender;
      event.recipient = recipient;
      const payload: Record<string, ClarityJson> = { asset_identifier: assetIdentifier };
      if (sender !== null) payload.sender = sender;
      if (recipient !== null) payload.recipient = recipient;
      addDecodedValue(payload, rawValue);
      event.payload = payload;
      break;
    }
    case "print": {
      const contractId = requireString(body, "contract_identifier", bodyAt);
      const topic = requireString(body, "topic", bodyAt);
      const rawValue = requireString(body, "raw_value", bodyAt);
      event.contractId = contractId;
      event.topic = topic;
      const payload: Record<string, ClarityJson> = { contract_id: contractId, topic };
      addDecodedValue(payload, rawValue);
      event.payload = payload;
      break;
    }
  }
  return event;
}

/** Order of a block's events: (tx_index, node event_index). */
export function compareEvents(a: DecodedEvent, b: DecodedEvent): number {
  return a.txIndex - b.txIndex || a.nodeEventIndex - b.nodeEventIndex;
}

/** `value` (decoded) + `raw_value`; an undecodable value does not fail the block: `value: null`
 * and `decode_error` says why. */
function addDecodedValue(payload: Record<string, ClarityJson>, rawValue: string): void {
  try {
    payload.value = decodeClarityHex(rawValue);
  } catch (err) {
    payload.value = null;
    payload.decode_error = err instanceof Error ? err.message : String(err);
  }
  payload.raw_value = rawValue;
}

const MEMO_HEX = /^(?:0x)?(?:[0-9a-fA-F]{2})*$/;

/** The node sends the memo as bare hex (or "" / absent); the payload carries 0x-hex or "". */
function memoOf(body: JsonObject, at: string): string {
  const v = body.memo;
  if (v === undefined || v === null || v === "" || v === "0x") return "";
  if (typeof v !== "string" || !MEMO_HEX.test(v)) throw malformed(`${at}memo`, "must be a hex string", v);
  return v.startsWith("0x") ? v.toLowerCase() : `0x${v.toLowerCase()}`;
}

/** `<contract>::<asset>` → `<contract>`. */
function assetContract(assetIdentifier: string, at: string): string {
  const sep = assetIdentifier.indexOf("::");
  if (sep <= 0) throw malformed(`${at}asset_identifier`, "must be <contract>::<asset>", assetIdentifier);
  return assetIdentifier.slice(0, sep);
}
