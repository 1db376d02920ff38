/**
 * runtime/dispatcher/trigger-index.ts: matching through the trigger index finds exactly what a
 * brute-force scan finds (every webhook's every trigger against every transaction and event, the
 * first matching trigger of a webhook winning), over random webhooks and random blocks with exact
 * and wildcard fields of every keyed kind.
 */
import { describe, expect, it } from "vitest";
import type { ClarityJson, DecodedBlock, DecodedEvent, DecodedTx } from "../../../runtime/chain/types.js";
import { buildTriggerIndex } from "../../../runtime/dispatcher/trigger-index.js";
import type { ChainWebhookTriggers } from "../../../runtime/dispatcher/trigger-events.js";
import {
  eventTriggerMatches,
  type MatchContext,
  matchBlock,
  txTriggerMatches,
} from "../../../runtime/dispatcher/trigger-match.js";
import { parseTriggers } from "../../../runtime/dispatcher/triggers.js";
import { block, ev, tx } from "../../support/decoded-chain.js";

const REGISTRY = "SN3R84XZYA63QS28932XQF3G1J8R9PC3W76P9CSQS.sbtc-registry";
const ADDRS = ["SP1AAA", "SP1AAB", "SP2BBB", "SP3CCC", "SP4DDD"];
const CONTRACTS = ["SP1AAA.token-a", "SP2BBB.token-b", "SP3CCC.nft-c", "SP4DDD.market", REGISTRY];
const ASSETS = CONTRACTS.map((c) => `${c}::${c.split(".")[1]}`);
const FUNCTIONS = ["transfer", "mint", "swap-x-for-y"];

/** A small deterministic PRNG (mulberry32) so a failure names a reproducible seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generators(r: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const maybe = (p: number) => r() < p;
  /** An exact value, a prefix wildcard, a suffix wildcard, or `*`. */
  const pattern = (values: readonly string[]): string => {
    const v = pick(values);
    const k = r();
    if (k < 0.6) return v;
    if (k < 0.75) return `${v.slice(0, 4)}*`;
    if (k < 0.9) return `*${v.slice(-3)}`;
    return "*";
  };
  const amount = () => String(Math.floor(r() * 1000));

  function trigger(): Record<string, string> {
    const type = pick([
      "ft_transfer",
      "ft_mint",
      "ft_burn",
      "nft_transfer",
      "nft_mint",
      "nft_burn",
      "stx_transfer",
      "stx_mint",
      "stx_burn",
      "stx_lock",
      "print_event",
      "contract_call",
      "contract_deploy",
      "sbtc_deposit",
      "sbtc_withdrawal_create",
    ]);
    const t: Record<string, string> = { type };
    const set = (field: string, value: () => string, p = 0.5) => {
      if (maybe(p)) t[field] = value();
    };
    if (type.startsWith("ft_") || type.startsWith("nft_")) {
      set("assetIdentifier", () => pattern(ASSETS));
      if (type !== "ft_mint" && type !== "nft_mint") set("sender", () => pattern(ADDRS), 0.3);
      if (!type.endsWith("_burn")) set("recipient", () => pattern(ADDRS), 0.3);
      if (type.startsWith("ft_")) set("minAmount", amount, 0.2);
    } else if (type === "stx_lock") {
      set("lockedAddress", () => pattern(ADDRS));
      set("minAmount", amount, 0.2);
    } else if (type.startsWith("stx_")) {
      if (type !== "stx_mint") set("sender", () => pattern(ADDRS), 0.4);
      if (type !== "stx_burn") set("recipient", () => pattern(ADDRS), 0.4);
      set("minAmount", amount, 0.2);
      if (type === "stx_transfer") set("maxAmount", () => String(1000 + Math.floor(r() * 500)), 0.2);
    } else if (type === "print_event") {
      set("contractId", () => pattern(CONTRACTS), 0.7);
      set("topic", () => pick(["print", "swap", "*"]), 0.2);
    } else if (type === "contract_call") {
      set("contractId", () => pattern(CONTRACTS), 0.6);
      set("functionName", () => pattern(FUNCTIONS), 0.3);
      set("caller", () => pattern(ADDRS), 0.3);
    } else if (type === "contract_deploy") {
      set("deployer", () => pattern(ADDRS), 0.6);
      set("contractName", () => pick(["token-*", "market", "*"]), 0.3);
    } else if (type === "sbtc_deposit") {
      set("minAmount", amount, 0.5);
    } else if (type === "sbtc_withdrawal_create") {
      set("sender", () => pattern(ADDRS), 0.5);
    }
    return t;
  }

  function webhooks(n: number): ChainWebhookTriggers[] {
    return Array.from({ length: n }, (_, i) => ({
      id: `wh_${String(i).padStart(4, "0")}`,
      triggers: parseTriggers(Array.from({ length: 1 + Math.floor(r() * 3) }, trigger)),
      startHeight: maybe(0.1) ? 20 : -1,
    }));
  }

  function event(i: number, txIndex: number, txId: string): DecodedEvent {
    const type = pick([
      "ft_transfer",
      "ft_mint",
      "ft_burn",
      "nft_transfer",
      "nft_mint",
      "stx_transfer",
      "stx_mint",
      "stx_burn",
      "stx_lock",
      "print",
    ] as const);
    const base = { eventIndex: i, txIndex, txId, committed: maybe(0.95) };
    const amt = amount();
    if (type === "print") {
      const contractId = pick(CONTRACTS);
      const value: Record<string, ClarityJson> =
        contractId === REGISTRY
          ? { topic: pick(["completed-deposit", "withdrawal-create"]), amount: amt, sender: pick(ADDRS) }
          : { topic: pick(["swap", "other"]) };
      return ev({
        ...base,
        type,
        contractId,
        topic: "print",
        payload: { contract_id: contractId, topic: "print", value },
      });
    }
    if (type.startsWith("stx_")) {
      const sender = pick(ADDRS);
      const recipient = pick(ADDRS);
      const payload: Record<string, ClarityJson> = type === "stx_lock" ? { locked_address: sender } : {};
      return ev({ ...base, type, sender, recipient, amount: amt, assetIdentifier: "STX", payload });
    }
    const asset = pick(ASSETS);
    return ev({
      ...base,
      type,
      contractId: asset.split("::")[0],
      assetIdentifier: asset,
      sender: pick(ADDRS),
      recipient: pick(ADDRS),
      amount: amt,
    });
  }

  function chainBlock(height: number): DecodedBlock {
    const txs: DecodedTx[] = [];
    const events: DecodedEvent[] = [];
    for (let i = 0; i < 8; i++) {
      const txId = `0x${height}t${i}`;
      const kind = pick(["contract_call", "smart_contract", "token_transfer"] as const);
      const contractId = kind === "smart_contract" ? `${pick(ADDRS)}.${pick(["token-z", "market"])}` : pick(CONTRACTS);
      txs.push(
        tx({
          txId,
          txIndex: i,
          txType: kind,
          status: maybe(0.9) ? "success" : "abort_by_response",
          sender: pick(ADDRS),
          contractId: kind === "token_transfer" ? null : contractId,
          functionName: kind === "contract_call" ? pick(FUNCTIONS) : null,
        }),
      );
      const n = Math.floor(r() * 6);
      for (let k = 0; k < n; k++) events.push(event(events.length, i, txId));
    }
    return { ...block(txs, []), height, indexBlockHash: `0xib${height}`, events };
  }
  return { webhooks, chainBlock };
}

const ctx: MatchContext = { sbtcRegistry: REGISTRY, implementsTrait: () => false };

/** The brute force: every webhook's triggers in list order against each tx, then each of its events. */
function bruteForce(hooks: readonly ChainWebhookTriggers[], b: DecodedBlock): string[] {
  const out: string[] = [];
  for (const t of b.txs) {
    for (const w of hooks) {
      if (b.height <= w.startHeight) continue;
      const hit = w.triggers.find((tr) => txTriggerMatches(tr, t, ctx));
      if (hit) out.push(`${w.id}:${hit.type}:${t.txId}:-1`);
    }
    for (const e of b.events) {
      if (e.txIndex !== t.txIndex || !e.committed) continue;
      for (const w of hooks) {
        if (b.height <= w.startHeight) continue;
        const hit = w.triggers.find(
          (tr) => tr.type !== "sbtc_withdrawal_swept_confirmed" && eventTriggerMatches(tr, e, ctx),
        );
        if (hit) out.push(`${w.id}:${hit.type}:${t.txId}:${e.eventIndex}`);
      }
    }
  }
  return out;
}

describe("matching through the trigger index", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])("equals the brute force (seed %i)", (seed) => {
    const g = generators(rng(seed));
    const hooks = g.webhooks(300);
    const index = buildTriggerIndex(hooks);
    let total = 0;
    for (let height = 15; height < 30; height++) {
      const b = g.chainBlock(height);
      const expected = bruteForce(hooks, b);
      const got = matchBlock(hooks, b, ctx, index).map((m) => `${m.webhookId}:${m.trigger}:${m.txId}:${m.eventIndex}`);
      expect(got).toEqual(expected);
      total += expected.length;
    }
    // The random vocabulary is small enough that matches happen (the comparison is not vacuous).
    expect(total).toBeGreaterThan(100);
  });

  it("an event looks at its own buckets only: a webhook per contract gives one candidate per event", () => {
    const hooks: ChainWebhookTriggers[] = Array.from({ length: 1000 }, (_, i) => ({
      id: `wh_${i}`,
      triggers: parseTriggers([{ type: "print_event", contractId: `SP1AAA.c${i}` }]),
      startHeight: -1,
    }));
    const index = buildTriggerIndex(hooks);
    const bucket = index.events.get("print");
    expect(bucket?.wildcard).toHaveLength(0);
    expect(bucket?.exact.get("contractId\0SP1AAA.c7")?.map((e) => e.webhook.id)).toEqual(["wh_7"]);
  });
});
