/**
 * Chain-webhook triggers (SPEC.md "Trigger object", "Limits"): the vocabulary, the fields each
 * type allows, and `parseTriggers`, the pure validation behind 400 INVALID_TRIGGER. Field names
 * are camelCase; amounts are strings of digits; pattern fields take `*` wildcards; `trait` names a
 * token standard. Every error names the trigger's index and the offending field.
 */
import { triggerTypeName } from "../chain/event-type-names.js";
import { badRequest, type ServiceError } from "../internal/errors.js";
import { CHAIN_SOURCE_FILTER_FIELDS } from "../subgraphs/match-source.js";
import { parseTraitName, type TraitName } from "../subgraphs/traits.js";
import type { ChainSourceType } from "../subgraphs/types.js";
import {
  type ChainTriggerType,
  SBTC_TRIGGER_TYPES,
  type SbtcTriggerType,
  type TriggerType,
} from "../formats/trigger-types.js";

export { SBTC_TRIGGER_TYPES, type SbtcTriggerType, type TriggerType };
export type { TraitName };

/**
 * The chain types are written twice: in the generated modules' contract (runtime/subgraphs/types.ts,
 * which imports no other runtime module) and in runtime/formats (which the SDK shares). This
 * stops compiling when the two lists differ.
 */
export type ChainVocabulariesAgree = [ChainSourceType] extends [ChainTriggerType]
  ? [ChainTriggerType] extends [ChainSourceType]
    ? true
    : never
  : never;
true satisfies ChainVocabulariesAgree;

/**
 * Allowed fields per type. The thirteen chain types are SPEC.md's table (shared with subgraph
 * sources); SPEC.md lists no fields for the peg types, so these are ours: the amount of a deposit
 * or a withdrawal request, its requester, and the request id that ties the later steps together.
 */
export const TRIGGER_FIELDS: Readonly<Record<TriggerType, readonly string[]>> = {
  ...CHAIN_SOURCE_FILTER_FIELDS,
  sbtc_deposit: ["minAmount"],
  sbtc_withdrawal_create: ["sender", "minAmount"],
  sbtc_withdrawal_accept: ["requestId"],
  sbtc_withdrawal_reject: ["requestId"],
  sbtc_withdrawal_swept_confirmed: ["requestId"],
};

export const TRIGGER_TYPES = Object.keys(TRIGGER_FIELDS) as TriggerType[];

/** SPEC.md Limits: "triggers per chain webhook: 1 to 50". */
export const MAX_TRIGGERS = 50;

/** Fields holding a decimal amount string (compared as integers, never as floats). */
const AMOUNT_FIELDS = new Set(["minAmount", "maxAmount"]);
/** Fields holding an unsigned integer id. */
const INTEGER_FIELDS = new Set(["requestId"]);

/** Token standards `trait` accepts (runtime/subgraphs/traits.ts decides conformance). */
export const TRAITS: readonly TraitName[] = ["sip-009", "sip-010", "sip-013"];

/** A validated trigger: its type plus the given fields (all strings; trait normalised). */
export interface Trigger {
  type: TriggerType;
  [field: string]: string;
}

const MAX_FIELD_LENGTH = 256;
const MAX_AMOUNT_DIGITS = 39; // u128 has 39 decimal digits

export function isTriggerType(value: unknown): value is TriggerType {
  return typeof value === "string" && Object.hasOwn(TRIGGER_FIELDS, value);
}

/** Maps a `trait` value (`sip-010`, `ft`, a SIP-010 trait id, …) to its standard; undefined when unknown. */
export function parseTrait(value: string): TraitName | undefined {
  return parseTraitName(value.trim()) ?? undefined;
}

const invalid = (index: number | null, field: string | null, message: string): ServiceError =>
  badRequest("INVALID_TRIGGER", message, { index, field });

/**
 * Validates the `triggers` of a chain webhook; returns them normalised or throws a 400
 * INVALID_TRIGGER whose details are `{ index, field }` (index null when the list itself is wrong).
 */
export function parseTriggers(input: unknown): Trigger[] {
  if (!Array.isArray(input)) throw invalid(null, "triggers", "triggers must be an array of 1 to 50 trigger objects");
  if (input.length === 0) throw invalid(0, "triggers", "triggers must hold at least one trigger");
  if (input.length > MAX_TRIGGERS) {
    throw invalid(
      MAX_TRIGGERS,
      "triggers",
      `a chain webhook takes at most ${MAX_TRIGGERS} triggers; got ${input.length}`,
    );
  }
  return input.map((raw, index) => parseTrigger(raw, index));
}

/** Validates one trigger object (see parseTriggers). */
export function parseTrigger(raw: unknown, index: number): Trigger {
  const at = `triggers[${index}]`;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw invalid(index, null, `${at} must be an object with a "type"`);
  }
  const record = raw as Record<string, unknown>;
  if (record.type === undefined) throw invalid(index, "type", `${at}.type is required`);
  // Any name of an event type is accepted (`print`, `contract_event` → print_event).
  const type = typeof record.type === "string" ? triggerTypeName(record.type) : record.type;
  if (!isTriggerType(type)) {
    throw invalid(
      index,
      "type",
      `${at}.type ${JSON.stringify(type)} is not a trigger type; one of: ${TRIGGER_TYPES.join(", ")}`,
    );
  }
  const allowed = TRIGGER_FIELDS[type];
  const trigger: Trigger = { type };
  for (const [field, value] of Object.entries(record)) {
    if (field === "type") continue;
    if (!allowed.includes(field)) {
      const list = allowed.length ? allowed.join(", ") : "none";
      throw invalid(index, field, `${at}.${field} is not allowed on ${type} (allowed: ${list})`);
    }
    trigger[field] = parseField(type, field, value, index, `${at}.${field}`);
  }
  const { minAmount, maxAmount } = trigger;
  if (minAmount !== undefined && maxAmount !== undefined && BigInt(minAmount) > BigInt(maxAmount)) {
    throw invalid(index, "maxAmount", `${at}.maxAmount must not be below minAmount`);
  }
  return trigger;
}

function parseField(type: TriggerType, field: string, value: unknown, index: number, at: string): string {
  if (typeof value !== "string") {
    const hint = AMOUNT_FIELDS.has(field) ? ' (amounts are strings of digits, e.g. "1000")' : "";
    throw invalid(index, field, `${at} must be a string${hint}`);
  }
  if (AMOUNT_FIELDS.has(field)) {
    if (!/^\d+$/.test(value) || value.length > MAX_AMOUNT_DIGITS) {
      throw invalid(
        index,
        field,
        `${at} must be a string of decimal digits (at most ${MAX_AMOUNT_DIGITS}); got ${JSON.stringify(value)}`,
      );
    }
    return BigInt(value).toString(); // drops leading zeros
  }
  if (INTEGER_FIELDS.has(field)) {
    if (!/^\d{1,39}$/.test(value)) throw invalid(index, field, `${at} must be a string of decimal digits`);
    return BigInt(value).toString();
  }
  if (field === "trait") {
    const trait = parseTrait(value);
    if (!trait) throw invalid(index, field, `${at} must be one of ${TRAITS.join(", ")}; got ${JSON.stringify(value)}`);
    return trait;
  }
  if (value === "" || value.length > MAX_FIELD_LENGTH || /\s/.test(value) || hasControlCharacter(value)) {
    throw invalid(
      index,
      field,
      `${at} must be a non-empty pattern of at most ${MAX_FIELD_LENGTH} characters without blanks (${type})`,
    );
  }
  return value;
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) < 0x20) return true;
  return false;
}
