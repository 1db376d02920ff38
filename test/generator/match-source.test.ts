/** sourceMatches / substituteConfig (SPEC.md "Trigger object"; DESIGN.md §3 `${config.X}`). */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SPEC_SCHEMA_FILE } from "../../generator/repo-paths.js";
import {
  SOURCE_FILTER_FIELDS,
  sourceMatches,
  substituteConfig,
  wildcardMatches,
} from "../../runtime/subgraphs/match-source.js";
import type { SourceDef, SourceType } from "../../runtime/subgraphs/types.js";
import { DEVNET_CONFIG, makeContext, printEvent, subgraphNamed } from "../support/handler-context.js";

describe("substituteConfig", () => {
  it("replaces every ${config.X}", () => {
    expect(substituteConfig("${config.a}::${config.b}", { a: "x", b: "y" })).toBe("x::y");
    expect(substituteConfig("plain", {})).toBe("plain");
  });
  it("throws on an unknown key", () => {
    expect(() => substituteConfig("${config.nope}", {})).toThrow('unknown configuration key "nope"');
  });
});

describe("wildcardMatches", () => {
  const cases: [string, string | null, boolean][] = [
    ["swap-*", "swap-x-for-y", true],
    ["swap-*", "add-liquidity", false],
    ["*.sbtc-token", "SM3.sbtc-token", true],
    ["a.b", "aXb", false],
    ["exact", "exact", true],
    ["*", null, false],
  ];
  it.each(cases)("%s ~ %s → %s", (pattern, value, want) => {
    expect(wildcardMatches(pattern, value)).toBe(want);
  });
});

describe("sourceMatches", () => {
  const source = (type: SourceType, filter: Record<string, string> = {}): SourceDef => ({ type, filter });

  it("matches on the event type (print_event ↔ print)", () => {
    const ctx = makeContext({ event: printEvent("SP1.c", { topic: "t" }) });
    expect(sourceMatches(source("print_event"), ctx)).toBe(true);
    expect(sourceMatches(source("ft_transfer"), ctx)).toBe(false);
  });

  it("substitutes configuration in filters (bns-names source)", () => {
    const bns = subgraphNamed("bns-names").sources.bns;
    expect(sourceMatches(bns, makeContext({ event: printEvent(DEVNET_CONFIG.bnsContractId, {}) }))).toBe(true);
    expect(sourceMatches(bns, makeContext({ event: printEvent("SP1.other", {}) }))).toBe(false);
  });

  it("applies amount bounds exactly and fails closed without an amount", () => {
    const xfer = (amount: string | null) =>
      makeContext({ event: { type: "stx_transfer", amount, sender: "SPA", recipient: "SPB" } });
    const bounded = source("stx_transfer", { minAmount: "100", maxAmount: "18446744073709551616" });
    expect(sourceMatches(bounded, xfer("100"))).toBe(true);
    expect(sourceMatches(bounded, xfer("99"))).toBe(false);
    expect(sourceMatches(bounded, xfer("18446744073709551617"))).toBe(false);
    expect(sourceMatches(bounded, xfer(null))).toBe(false);
  });

  it("matches tx-level fields with wildcards", () => {
    const call = makeContext({
      event: { type: "contract_call", event_index: -1, contract_id: "SP1.amm" },
      tx: { contract_id: "SP1.amm", function_name: "swap-x-for-y", sender: "SPCALLER" },
    });
    expect(
      sourceMatches(source("contract_call", { contractId: "SP1.*", functionName: "swap-*", caller: "SPCALLER" }), call),
    ).toBe(true);
    expect(sourceMatches(source("contract_call", { functionName: "add-*" }), call)).toBe(false);
    const deploy = makeContext({
      event: { type: "contract_deploy", contract_id: "SPD.my-nft" },
      tx: { sender: "SPD" },
    });
    expect(sourceMatches(source("contract_deploy", { deployer: "SPD", contractName: "my-*" }), deploy)).toBe(true);
  });

  it("matches fees on their payer and miner rewards on their recipient, with amount bounds", () => {
    const fee = makeContext({
      event: { type: "tx_fee", event_index: -1, asset_identifier: "STX", sender: "SPSPONSOR", amount: "180" },
      tx: { sender: "SPORIGIN" },
    });
    expect(sourceMatches(source("tx_fee", { payer: "SPSPONSOR", minAmount: "180" }), fee)).toBe(true);
    expect(sourceMatches(source("tx_fee", { payer: "SPORIGIN" }), fee)).toBe(false);
    expect(sourceMatches(source("tx_fee", { minAmount: "181" }), fee)).toBe(false);
    expect(sourceMatches(source("stx_burn"), fee)).toBe(false);
    const reward = makeContext({
      event: { type: "miner_reward", event_index: -1, asset_identifier: "STX", recipient: "SPMINER", amount: "1000" },
      tx: { id: "", sender: null },
    });
    expect(sourceMatches(source("miner_reward", { recipient: "SPMIN*", minAmount: "1000" }), reward)).toBe(true);
    expect(sourceMatches(source("miner_reward", { recipient: "SPOTHER" }), reward)).toBe(false);
    expect(sourceMatches(source("tx_fee"), reward)).toBe(false);
  });

  it("matches a print topic on the event or on the tuple's topic field", () => {
    const ctx = makeContext({ event: { ...printEvent("SP1.c", { topic: "new-name" }), topic: "print" } });
    expect(sourceMatches(source("print_event", { topic: "new-name" }), ctx)).toBe(true);
    expect(sourceMatches(source("print_event", { topic: "burn-name" }), ctx)).toBe(false);
  });

  it("asks the trait checker, and matches nothing without one", () => {
    const ctx = makeContext({ event: { type: "ft_transfer", contract_id: "SP1.tok", amount: "1" } });
    const traitSource = source("ft_transfer", { trait: "sip-010" });
    expect(sourceMatches(traitSource, ctx)).toBe(false);
    expect(sourceMatches(traitSource, ctx, (contract, trait) => contract === "SP1.tok" && trait === "sip-010")).toBe(
      true,
    );
  });
});

describe("SOURCE_FILTER_FIELDS", () => {
  it("is the field table of specs/spec.schema.json", () => {
    const schema = JSON.parse(readFileSync(SPEC_SCHEMA_FILE, "utf8")) as {
      definitions: {
        source: {
          properties: { type: { enum: string[] } };
          allOf: { if: { properties: { type: { const: string } } }; then: { properties: Record<string, unknown> } }[];
        };
      };
    };
    const source = schema.definitions.source;
    const fromSchema = Object.fromEntries(
      source.allOf.map((branch) => [
        branch.if.properties.type.const,
        Object.keys(branch.then.properties).filter((key) => key !== "type"),
      ]),
    );
    expect(fromSchema).toEqual(SOURCE_FILTER_FIELDS);
    expect(source.properties.type.enum).toEqual(Object.keys(SOURCE_FILTER_FIELDS));
  });
});
