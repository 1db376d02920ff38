/**
 * The live chain webhooks' triggers, indexed so that a block's transactions and events find the
 * triggers that could match them by lookup: per event type (or tx type), each trigger sits in one
 * bucket, keyed by the most selective exact field it has (asset identifier, contract id, an
 * address), or in the type's wildcard list when it has no exact key field. A lookup gathers the
 * candidates of an event (its exact-key buckets plus the wildcard list), then checks each with the
 * full predicate (trigger-match.ts), so the cost per block is O(events + candidates), not
 * O(events × webhooks × triggers). Pure.
 */
import type { DecodedEvent, DecodedTx } from "../chain/types.js";
import { type ChainWebhookTriggers, EVENT_TYPE_OF, lockedAddressOf } from "./trigger-events.js";
import type { Trigger, TriggerType } from "./triggers.js";

/** One trigger of one webhook. `pos` is the webhook's place in the snapshot, `ti` the trigger's in its list. */
export interface IndexEntry {
  pos: number;
  webhook: ChainWebhookTriggers;
  ti: number;
  trigger: Trigger;
}

/** Key fields per event type, most selective first, with how to read each from an event. */
const EVENT_KEYS: Readonly<Record<string, readonly [string, (e: DecodedEvent) => string | null][]>> = {
  ft_transfer: assetKeys(),
  ft_mint: assetKeys(),
  ft_burn: assetKeys(),
  nft_transfer: assetKeys(),
  nft_mint: assetKeys(),
  nft_burn: assetKeys(),
  stx_transfer: addressKeys(),
  stx_mint: addressKeys(),
  stx_burn: addressKeys(),
  stx_lock: [["lockedAddress", (e) => lockedAddressOf(e)]],
  print: [["contractId", (e) => e.contractId]],
};

function assetKeys(): [string, (e: DecodedEvent) => string | null][] {
  return [["assetIdentifier", (e) => e.assetIdentifier], ...addressKeys()];
}

function addressKeys(): [string, (e: DecodedEvent) => string | null][] {
  return [
    ["sender", (e) => e.sender],
    ["recipient", (e) => e.recipient],
  ];
}

/** Key fields of the tx-level triggers, read from the transaction. */
const TX_KEYS: Readonly<Record<string, readonly [string, (tx: DecodedTx) => string | null][]>> = {
  contract_call: [
    ["contractId", (tx) => tx.contractId],
    ["caller", (tx) => tx.sender],
  ],
  contract_deploy: [["deployer", (tx) => tx.sender]],
};

/** The triggers of one event or tx type. */
interface Buckets {
  keys: readonly [string, (x: never) => string | null][];
  /** `<field>\0<value>` → triggers whose that field is that exact value. */
  exact: Map<string, IndexEntry[]>;
  /** Triggers with no exact key field. */
  wildcard: IndexEntry[];
}

export interface TriggerIndex {
  /** How many webhooks were indexed (the snapshot's chain webhooks). */
  readonly size: number;
  /** Event-level triggers by chain event type. */
  readonly events: ReadonlyMap<string, Buckets>;
  /** Tx-level triggers by trigger type (contract_call, contract_deploy). */
  readonly txs: ReadonlyMap<string, Buckets>;
  /** The sBTC peg triggers (registry prints; matchSweptConfirmed handles the sweep confirmation). */
  readonly peg: readonly IndexEntry[];
  /** Trigger types some trigger with a `trait` uses (traitCandidates). */
  readonly traitTypes: ReadonlySet<TriggerType>;
  /** Webhooks with an `sbtc_withdrawal_swept_confirmed` trigger (fired on finality). */
  readonly sweptWatchers: readonly ChainWebhookTriggers[];
}

const PEG_TYPES = new Set<TriggerType>([
  "sbtc_deposit",
  "sbtc_withdrawal_create",
  "sbtc_withdrawal_accept",
  "sbtc_withdrawal_reject",
]);

export function buildTriggerIndex(webhooks: readonly ChainWebhookTriggers[]): TriggerIndex {
  const events = new Map<string, Buckets>();
  const txs = new Map<string, Buckets>();
  const peg: IndexEntry[] = [];
  const traitTypes = new Set<TriggerType>();
  const sweptWatchers: ChainWebhookTriggers[] = [];
  webhooks.forEach((webhook, pos) => {
    if (webhook.triggers.some((t) => t.type === "sbtc_withdrawal_swept_confirmed")) sweptWatchers.push(webhook);
    webhook.triggers.forEach((trigger, ti) => {
      const entry: IndexEntry = { pos, webhook, ti, trigger };
      if (trigger.trait !== undefined) traitTypes.add(trigger.type);
      const eventType = EVENT_TYPE_OF[trigger.type];
      if (PEG_TYPES.has(trigger.type)) peg.push(entry);
      else if (TX_KEYS[trigger.type]) place(txs, trigger.type, TX_KEYS[trigger.type], entry);
      else if (eventType && EVENT_KEYS[eventType]) place(events, eventType, EVENT_KEYS[eventType], entry);
      // sbtc_withdrawal_swept_confirmed fires on finality, not here.
    });
  });
  return { size: webhooks.length, events, txs, peg, traitTypes, sweptWatchers };
}

function place(
  into: Map<string, Buckets>,
  type: string,
  keys: readonly [string, (x: never) => string | null][],
  entry: IndexEntry,
): void {
  let b = into.get(type);
  if (!b) {
    b = { keys, exact: new Map(), wildcard: [] };
    into.set(type, b);
  }
  for (const [field] of keys) {
    const pattern = entry.trigger[field];
    if (pattern === undefined || pattern.includes("*")) continue;
    const k = `${field}\0${pattern}`;
    const list = b.exact.get(k);
    if (list) list.push(entry);
    else b.exact.set(k, [entry]);
    return;
  }
  b.wildcard.push(entry);
}

/** Triggers that could match this value-holder: those keyed on its exact field values, plus the wildcard list. */
function candidates<X>(b: Buckets | undefined, x: X, out: IndexEntry[]): void {
  if (!b) return;
  for (const [field, read] of b.keys as readonly [string, (x: X) => string | null][]) {
    const value = read(x);
    if (value === null) continue;
    const list = b.exact.get(`${field}\0${value}`);
    if (list) for (const e of list) out.push(e);
  }
  for (const e of b.wildcard) out.push(e);
}

/** Candidate triggers for a committed event (registry prints add the peg triggers). */
export function eventCandidates(index: TriggerIndex, e: DecodedEvent, sbtcRegistry: string): IndexEntry[] {
  const out: IndexEntry[] = [];
  candidates(index.events.get(e.type), e, out);
  if (e.type === "print" && e.contractId === sbtcRegistry) for (const p of index.peg) out.push(p);
  return out;
}

/** Candidate tx-level triggers for a transaction. */
export function txCandidates(index: TriggerIndex, tx: DecodedTx): IndexEntry[] {
  const out: IndexEntry[] = [];
  if (tx.txType === "contract_call") candidates(index.txs.get("contract_call"), tx, out);
  else if (tx.txType === "smart_contract" || tx.txType === "versioned_smart_contract")
    candidates(index.txs.get("contract_deploy"), tx, out);
  return out;
}

/**
 * Of the candidates that pass `matches`, the first trigger (list order) of each webhook, webhooks
 * in snapshot order: one delivery per webhook and dedupe key.
 */
export function firstPerWebhook(cands: IndexEntry[], matches: (e: IndexEntry) => boolean): IndexEntry[] {
  if (!cands.length) return cands;
  if (cands.length > 1) cands.sort((a, b) => a.pos - b.pos || a.ti - b.ti);
  const out: IndexEntry[] = [];
  let last = -1;
  for (const c of cands) {
    if (c.pos === last) continue;
    if (matches(c)) {
      out.push(c);
      last = c.pos;
    }
  }
  return out;
}
