/**
 * The payload chain.events stores: the decoder's payload without the keys whose values the row's
 * columns already hold. `chain.event_payload(...)` (migration 0016-compact-events) adds them back
 * at read; a key is left out only when that gives back exactly the same value (an amount only in
 * canonical decimal form, since it is rebuilt from the numeric column). `raw_value` (hex of a
 * Clarity value: nft and print events) is stored as bytes in its own column, half the size.
 */
import type { ClarityJson, DecodedEvent } from "./types.js";

const CANONICAL_DECIMAL = /^(0|[1-9]\d*)$/;
const LOWER_HEX = /^0x(?:[0-9a-f]{2})*$/;

/** What the compaction reads of an event: its columns and its full payload. */
export type PayloadSource = Pick<
  DecodedEvent,
  "type" | "contractId" | "assetIdentifier" | "sender" | "recipient" | "amount" | "topic" | "payload"
>;

/** The payload keys `chain.event_payload` rebuilds for an event of this type, with the column each comes from. */
function rebuiltKeys(e: PayloadSource): [key: string, column: string | null, isAmount: boolean][] {
  switch (e.type) {
    case "stx_lock":
      return [
        ["locked_address", e.sender, false],
        ["locked_amount", e.amount, true],
      ];
    case "print":
      return [
        ["contract_id", e.contractId, false],
        ["topic", e.topic, false],
      ];
    default:
      return [
        ["asset_identifier", e.type.startsWith("stx_") ? null : e.assetIdentifier, false],
        ["sender", e.sender, false],
        ["recipient", e.recipient, false],
        ["amount", e.amount, true],
      ];
  }
}

/** What chain.events stores of an event's payload: the remaining keys, and raw_value's bytes (or null). */
export function storedPayload(e: PayloadSource): { payload: Record<string, ClarityJson>; rawValue: Buffer | null } {
  const payload: Record<string, ClarityJson> = { ...e.payload };
  for (const [key, column, isAmount] of rebuiltKeys(e)) {
    if (column === null || payload[key] !== column) continue;
    if (isAmount && !CANONICAL_DECIMAL.test(column)) continue;
    delete payload[key];
  }
  // Rebuilt as "0x" + lower-case hex: only a value already in that form leaves the payload.
  const raw = payload.raw_value;
  let rawValue: Buffer | null = null;
  if (e.type !== "stx_lock" && typeof raw === "string" && LOWER_HEX.test(raw)) {
    rawValue = Buffer.from(raw.slice(2), "hex");
    delete payload.raw_value;
  }
  return { payload, rawValue };
}
