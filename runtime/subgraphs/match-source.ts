/**
 * Does a subgraph source match an event? (DESIGN.md §3 sources; SPEC.md "Trigger object".)
 * Pure: applies a source's filter fields to a handler context, substituting `${config.X}`.
 */
import type { ChainSourceType, HandlerContext, SourceDef, SourceType, StxSourceType } from "./types.js";

/** The filter fields of the chain source types (SPEC.md "Trigger object" table; webhook triggers share them). */
export const CHAIN_SOURCE_FILTER_FIELDS: Readonly<Record<ChainSourceType, readonly string[]>> = {
  contract_call: ["contractId", "functionName", "caller", "trait"],
  contract_deploy: ["deployer", "contractName"],
  ft_transfer: ["assetIdentifier", "sender", "recipient", "minAmount", "trait"],
  ft_mint: ["assetIdentifier", "recipient", "minAmount", "trait"],
  ft_burn: ["assetIdentifier", "sender", "minAmount", "trait"],
  nft_transfer: ["assetIdentifier", "sender", "recipient", "trait"],
  nft_mint: ["assetIdentifier", "recipient", "trait"],
  nft_burn: ["assetIdentifier", "sender", "trait"],
  stx_transfer: ["sender", "recipient", "minAmount", "maxAmount"],
  stx_mint: ["recipient", "minAmount"],
  stx_burn: ["sender", "minAmount"],
  stx_lock: ["lockedAddress", "minAmount"],
  print_event: ["contractId", "topic", "trait"],
};

/** The filter fields of the STX sources that are not chain events (subgraph sources only). */
export const STX_SOURCE_FILTER_FIELDS: Readonly<Record<StxSourceType, readonly string[]>> = {
  tx_fee: ["payer", "minAmount"],
  miner_reward: ["recipient", "minAmount"],
};

/** The filter fields each source type allows. */
export const SOURCE_FILTER_FIELDS: Readonly<Record<SourceType, readonly string[]>> = {
  ...CHAIN_SOURCE_FILTER_FIELDS,
  ...STX_SOURCE_FILTER_FIELDS,
};

/** The EventView `type` a source type listens to (print_event → the `print` event type). */
export function eventTypeOfSource(type: SourceType): string {
  return type === "print_event" ? "print" : type;
}

const CONFIG_REF = /\$\{config\.([A-Za-z0-9_]+)\}/g;

/** Replaces every `${config.X}` in `value`; throws on a key the configuration lacks. */
export function substituteConfig(value: string, config: Record<string, string>): string {
  return value.replace(CONFIG_REF, (_whole, key: string) => {
    const replacement = config[key];
    if (replacement === undefined) throw new Error(`unknown configuration key "${key}" in "${value}"`);
    return replacement;
  });
}

/** `*` matches any run of characters; everything else is literal. */
export function wildcardMatches(pattern: string, value: string | null): boolean {
  if (value === null) return false;
  if (!pattern.includes("*")) return pattern === value;
  const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`, "s").test(value);
}

/** Checks a contract against a trait; sources with `trait` never match without one. */
export type TraitCheck = (contractId: string, trait: string) => boolean;

/** True when the context's event is of the source's type and passes every filter field. */
export function sourceMatches(source: SourceDef, ctx: HandlerContext, implementsTrait?: TraitCheck): boolean {
  if (ctx.event.type !== eventTypeOfSource(source.type)) return false;
  for (const [field, raw] of Object.entries(source.filter)) {
    const expected = substituteConfig(raw, ctx.config);
    if (!fieldMatches(field, expected, ctx, implementsTrait)) return false;
  }
  return true;
}

function fieldMatches(field: string, expected: string, ctx: HandlerContext, implementsTrait?: TraitCheck): boolean {
  const { event, tx } = ctx;
  switch (field) {
    case "contractId":
      return wildcardMatches(expected, event.contract_id ?? tx.contract_id);
    case "functionName":
      return wildcardMatches(expected, tx.function_name);
    case "caller":
    case "deployer":
      return wildcardMatches(expected, tx.sender);
    case "contractName":
      return wildcardMatches(expected, contractName(event.contract_id ?? tx.contract_id));
    case "assetIdentifier":
      return wildcardMatches(expected, event.asset_identifier);
    case "sender":
    case "payer":
      return wildcardMatches(expected, event.sender);
    case "recipient":
      return wildcardMatches(expected, event.recipient);
    case "lockedAddress":
      return wildcardMatches(expected, lockedAddress(ctx));
    case "topic":
      return wildcardMatches(expected, event.topic) || wildcardMatches(expected, payloadTopic(ctx));
    case "minAmount": {
      const order = compareAmount(event.amount, expected);
      return order !== null && order >= 0;
    }
    case "maxAmount": {
      const order = compareAmount(event.amount, expected);
      return order !== null && order <= 0;
    }
    case "trait": {
      const contract = event.contract_id ?? tx.contract_id;
      return contract !== null && implementsTrait?.(contract, expected) === true;
    }
    default:
      return false;
  }
}

function contractName(contractId: string | null): string | null {
  if (contractId === null) return null;
  const dot = contractId.indexOf(".");
  return dot < 0 ? null : contractId.slice(dot + 1);
}

function lockedAddress(ctx: HandlerContext): string | null {
  const payload = ctx.event.payload;
  if (payload !== null && typeof payload === "object" && !Array.isArray(payload)) {
    const locked = payload.locked_address;
    if (typeof locked === "string") return locked;
  }
  return ctx.event.sender;
}

function payloadTopic(ctx: HandlerContext): string | null {
  const payload = ctx.event.payload;
  if (payload !== null && typeof payload === "object" && !Array.isArray(payload)) {
    const topic = payload.topic;
    if (typeof topic === "string") return topic;
  }
  return null;
}

/** Compares two decimal integer strings; null when either is missing or malformed (no match). */
function compareAmount(amount: string | null, bound: string): number | null {
  if (amount === null || !/^-?\d+$/.test(amount) || !/^-?\d+$/.test(bound)) return null;
  const a = BigInt(amount);
  const b = BigInt(bound);
  return a === b ? 0 : a < b ? -1 : 1;
}
