/** `/new_block` `matured_miner_rewards` → MaturedMinerReward[] (DESIGN.md §2 "decode"). */
import type { MaturedMinerReward } from "../types.js";
import { isRecord, type JsonObject, malformed, requireDecimal, requireString } from "./fields.js";
import { isHash32 } from "./hex.js";

const FIELD = "matured_miner_rewards";

/**
 * Decodes the rewards that mature in a block. Absent or null is no reward (hand-made and test
 * bodies leave the field out). Throws MalformedPayloadError naming the entry and field when a
 * recipient or an amount is missing or wrong: a balance cannot be computed without them.
 */
export function decodeMaturedMinerRewards(value: unknown): MaturedMinerReward[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw malformed(FIELD, "must be an array or null", value);
  return value.map((raw, i) => {
    const at = `${FIELD}[${i}]`;
    if (!isRecord(raw)) throw malformed(at, "must be an object", raw);
    const p = `${at}.`;
    const recipient = requireString(raw, "recipient", p);
    if (recipient === "") throw malformed(`${p}recipient`, "must be a principal", recipient);
    return {
      recipient,
      miner_address: optionalPrincipal(raw, "miner_address", p),
      coinbase_amount: requireDecimal(raw, "coinbase_amount", p),
      tx_fees_anchored: requireDecimal(raw, "tx_fees_anchored", p),
      tx_fees_streamed_confirmed: requireDecimal(raw, "tx_fees_streamed_confirmed", p),
      tx_fees_streamed_produced: requireDecimal(raw, "tx_fees_streamed_produced", p),
      from_stacks_block_hash: optionalHash(raw, "from_stacks_block_hash", p),
      from_index_consensus_hash: optionalHash(raw, "from_index_consensus_hash", p),
    };
  });
}

function optionalPrincipal(raw: JsonObject, key: string, at: string): string | null {
  const v = raw[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || v === "") throw malformed(`${at}${key}`, "must be a principal or null", v);
  return v;
}

function optionalHash(raw: JsonObject, key: string, at: string): string | null {
  const v = raw[key];
  if (v === undefined || v === null) return null;
  if (!isHash32(v)) throw malformed(`${at}${key}`, "must be 0x followed by 64 hex digits or null", v);
  return v.toLowerCase();
}
