/**
 * Trigger matching (SPEC.md "Trigger object", DESIGN.md §5), pure: which triggers of which chain
 * webhooks fire for a block's committed events (event-level triggers) and successful transactions
 * (tx-level: contract_call, contract_deploy, event_index -1). One delivery per webhook and dedupe
 * key: when several triggers of a webhook match the same event, the first in list order wins.
 */
import type { ClarityJson, DecodedBlock, DecodedEvent, DecodedTx } from "../chain/types.js";
import { wildcardMatches } from "../subgraphs/match-source.js";
import type { TraitName } from "../subgraphs/traits.js";
import {
  buildTriggerIndex,
  eventCandidates,
  firstPerWebhook,
  type TriggerIndex,
  txCandidates,
} from "./trigger-index.js";
import { type ChainWebhookTriggers, EVENT_TYPE_OF, lockedAddressOf } from "./trigger-events.js";
import type { Trigger, TriggerType } from "./triggers.js";

export interface MatchContext {
  /** The sBTC registry contract of the network (config.contracts.sbtcRegistryContractId). */
  sbtcRegistry: string;
  /** Whether a contract conforms to a standard (resolved ahead; see traits.ts). */
  implementsTrait(contractId: string, trait: TraitName): boolean;
}

export interface TriggerMatch {
  webhookId: string;
  trigger: TriggerType;
  txId: string;
  /** Dense event ordinal in the block; -1 for tx-level triggers. */
  eventIndex: number;
  tx: DecodedTx;
  /** Absent for tx-level triggers. */
  event?: DecodedEvent;
}

/** The registry print topic each peg trigger listens to. */
export const SBTC_TOPICS: Readonly<Record<string, string>> = {
  sbtc_deposit: "completed-deposit",
  sbtc_withdrawal_create: "withdrawal-create",
  sbtc_withdrawal_accept: "withdrawal-accept",
  sbtc_withdrawal_reject: "withdrawal-reject",
  sbtc_withdrawal_swept_confirmed: "withdrawal-accept",
};

const DEPLOY_TX_TYPES = new Set(["smart_contract", "versioned_smart_contract"]);

/**
 * Every (webhook, event) that fires in `block`, in block order (each tx's tx-level match, then its
 * events; webhooks in snapshot order). Candidates come from the trigger index (pass the one built
 * for the snapshot to share it across blocks). `sbtc_withdrawal_swept_confirmed` never fires here:
 * it fires on the Bitcoin confirmation (see matchSweptConfirmed).
 */
export function matchBlock(
  webhooks: readonly ChainWebhookTriggers[],
  block: DecodedBlock,
  ctx: MatchContext,
  index: TriggerIndex = buildTriggerIndex(webhooks),
): TriggerMatch[] {
  if (!index.size) return [];
  const out: TriggerMatch[] = [];
  const live = (w: ChainWebhookTriggers) => block.height > w.startHeight;
  const eventsByTx = new Map<number, DecodedEvent[]>();
  for (const e of block.events) {
    if (!e.committed) continue;
    const list = eventsByTx.get(e.txIndex);
    if (list) list.push(e);
    else eventsByTx.set(e.txIndex, [e]);
  }
  for (const tx of block.txs) {
    if (tx.status === "success") {
      const hits = firstPerWebhook(
        txCandidates(index, tx),
        (c) => live(c.webhook) && txTriggerMatches(c.trigger, tx, ctx),
      );
      for (const c of hits)
        out.push({ webhookId: c.webhook.id, trigger: c.trigger.type, txId: tx.txId, eventIndex: -1, tx });
    }
    for (const event of eventsByTx.get(tx.txIndex) ?? []) {
      const hits = firstPerWebhook(
        eventCandidates(index, event, ctx.sbtcRegistry),
        (c) => live(c.webhook) && eventTriggerMatches(c.trigger, event, ctx),
      );
      for (const c of hits)
        out.push({
          webhookId: c.webhook.id,
          trigger: c.trigger.type,
          txId: tx.txId,
          eventIndex: event.eventIndex,
          tx,
          event,
        });
    }
  }
  return out;
}

/**
 * `sbtc_withdrawal_swept_confirmed` for one registry `withdrawal-accept` print that has just become
 * final (its burn block reached the confirmation depth). Forward-only: webhooks created at or
 * above the print's height never see it.
 */
export function matchSweptConfirmed(
  webhooks: readonly ChainWebhookTriggers[],
  event: DecodedEvent,
  blockHeight: number,
  ctx: MatchContext,
): { webhookId: string; trigger: "sbtc_withdrawal_swept_confirmed" }[] {
  const out: { webhookId: string; trigger: "sbtc_withdrawal_swept_confirmed" }[] = [];
  for (const w of webhooks) {
    if (blockHeight <= w.startHeight) continue;
    if (w.triggers.some((t) => t.type === "sbtc_withdrawal_swept_confirmed" && pegMatches(t, event, ctx))) {
      out.push({ webhookId: w.id, trigger: "sbtc_withdrawal_swept_confirmed" });
    }
  }
  return out;
}

/** A tx-level trigger against a transaction (successful ones only). */
export function txTriggerMatches(t: Trigger, tx: DecodedTx, ctx: MatchContext): boolean {
  if (tx.status !== "success") return false;
  if (t.type === "contract_call") {
    if (tx.txType !== "contract_call") return false;
    return (
      field(t.contractId, tx.contractId) &&
      field(t.functionName, tx.functionName) &&
      field(t.caller, tx.sender) &&
      trait(t.trait, tx.contractId, ctx)
    );
  }
  if (t.type === "contract_deploy") {
    if (!DEPLOY_TX_TYPES.has(tx.txType)) return false;
    return field(t.deployer, tx.sender) && field(t.contractName, contractName(tx.contractId));
  }
  return false;
}

/** An event-level trigger against a committed event. */
export function eventTriggerMatches(t: Trigger, e: DecodedEvent, ctx: MatchContext): boolean {
  if (EVENT_TYPE_OF[t.type] !== e.type && t.type !== "sbtc_withdrawal_swept_confirmed") return false;
  switch (t.type) {
    case "ft_transfer":
    case "ft_mint":
    case "ft_burn":
    case "nft_transfer":
    case "nft_mint":
    case "nft_burn":
      return (
        field(t.assetIdentifier, e.assetIdentifier) &&
        field(t.sender, e.sender) &&
        field(t.recipient, e.recipient) &&
        atLeast(t.minAmount, e.amount) &&
        trait(t.trait, e.contractId, ctx)
      );
    case "stx_transfer":
    case "stx_mint":
    case "stx_burn":
      return (
        field(t.sender, e.sender) &&
        field(t.recipient, e.recipient) &&
        atLeast(t.minAmount, e.amount) &&
        atMost(t.maxAmount, e.amount)
      );
    case "stx_lock":
      return field(t.lockedAddress, lockedAddressOf(e)) && atLeast(t.minAmount, e.amount);
    case "print_event":
      return (
        field(t.contractId, e.contractId) &&
        (t.topic === undefined ||
          wildcardMatches(t.topic, e.topic) ||
          wildcardMatches(t.topic, str(printValue(e)?.topic))) &&
        trait(t.trait, e.contractId, ctx)
      );
    default:
      return pegMatches(t, e, ctx);
  }
}

/** The five peg triggers: a registry print with the type's topic, then the trigger's fields. */
function pegMatches(t: Trigger, e: DecodedEvent, ctx: MatchContext): boolean {
  if (e.type !== "print" || e.contractId !== ctx.sbtcRegistry) return false;
  const value = printValue(e);
  if (!value || value.topic !== SBTC_TOPICS[t.type]) return false;
  return (
    atLeast(t.minAmount, str(value.amount)) &&
    field(t.sender, str(value.sender)) &&
    equalInt(t.requestId, str(value["request-id"]))
  );
}

/** The decoded print value when it is a tuple (object), else undefined. */
export function printValue(e: DecodedEvent): Record<string, ClarityJson> | undefined {
  const v = e.payload.value;
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined;
}

const str = (v: ClarityJson | undefined): string | null => (typeof v === "string" ? v : null);

/** An absent filter field matches anything; a present one is a wildcard pattern. */
function field(pattern: string | undefined, value: string | null): boolean {
  return pattern === undefined || wildcardMatches(pattern, value);
}

function trait(name: string | undefined, contractId: string | null, ctx: MatchContext): boolean {
  return name === undefined || (contractId !== null && ctx.implementsTrait(contractId, name as TraitName));
}

function atLeast(bound: string | undefined, amount: string | null): boolean {
  if (bound === undefined) return true;
  const a = toBig(amount);
  return a !== null && a >= BigInt(bound);
}

function atMost(bound: string | undefined, amount: string | null): boolean {
  if (bound === undefined) return true;
  const a = toBig(amount);
  return a !== null && a <= BigInt(bound);
}

function equalInt(expected: string | undefined, value: string | null): boolean {
  if (expected === undefined) return true;
  const v = toBig(value);
  return v !== null && v === BigInt(expected);
}

function toBig(v: string | null): bigint | null {
  return v !== null && /^-?\d+$/.test(v) ? BigInt(v) : null;
}

function contractName(contractId: string | null): string | null {
  const dot = contractId?.indexOf(".") ?? -1;
  return contractId && dot > 0 ? contractId.slice(dot + 1) : null;
}

/** Contracts whose standards matter for `block`: those a trait trigger could test. */
export function traitCandidates(
  webhooks: readonly ChainWebhookTriggers[],
  block: DecodedBlock,
  index?: TriggerIndex,
): Set<string> {
  const wanted = new Set<TriggerType>(index?.traitTypes);
  if (!index) for (const w of webhooks) for (const t of w.triggers) if (t.trait !== undefined) wanted.add(t.type);
  const out = new Set<string>();
  if (!wanted.size) return out;
  if (wanted.has("contract_call"))
    for (const tx of block.txs) if (tx.contractId && tx.txType === "contract_call") out.add(tx.contractId);
  for (const e of block.events) {
    if (!e.contractId) continue;
    for (const type of wanted) if (EVENT_TYPE_OF[type] === e.type) out.add(e.contractId);
  }
  return out;
}

/** What a replay must read for these triggers: the event types, and whether tx-level triggers exist. */
export function readPlan(triggers: readonly Trigger[]): { eventTypes: string[]; txLevel: boolean } {
  const eventTypes = new Set<string>();
  let txLevel = false;
  for (const t of triggers) {
    const type = EVENT_TYPE_OF[t.type];
    if (type) eventTypes.add(type);
    if (t.type === "contract_call" || t.type === "contract_deploy") txLevel = true;
  }
  return { eventTypes: [...eventTypes], txLevel };
}
