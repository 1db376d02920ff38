/** conformsToTrait / parseTraitName: structural SIP-010, SIP-009 and SIP-013 checks. */
import { describe, expect, it } from "vitest";
import { conformsToTrait, parseTraitName } from "../../../runtime/subgraphs/traits.js";

const U = "uint128";
const P = "principal";
const fn = (name: string, access: string, args: unknown[]) => ({
  name,
  access,
  args: args.map((type, i) => ({ name: `a${i}`, type })),
  outputs: { type: "bool" },
});
const memo = { optional: { buffer: { length: 34 } } };

const sip010 = {
  functions: [
    fn("transfer", "public", [U, P, P, memo]),
    fn("get-name", "read_only", []),
    fn("get-symbol", "read_only", []),
    fn("get-decimals", "read_only", []),
    fn("get-balance", "read_only", [P]),
    fn("get-total-supply", "read_only", []),
    fn("get-token-uri", "read_only", []),
    fn("mint", "public", [U, P]),
  ],
};
const sip009 = {
  functions: [
    fn("get-last-token-id", "read_only", []),
    fn("get-token-uri", "read_only", [U]),
    fn("get-owner", "read_only", [U]),
    fn("transfer", "public", [U, P, P]),
  ],
};

describe("conformsToTrait", () => {
  it("accepts a SIP-010 token and rejects it as SIP-009", () => {
    expect(conformsToTrait(sip010, "sip-010")).toBe(true);
    expect(conformsToTrait(sip010, "sip-009")).toBe(false);
  });
  it("accepts a SIP-009 collection and rejects it as SIP-010", () => {
    expect(conformsToTrait(sip009, "sip-009")).toBe(true);
    expect(conformsToTrait(sip009, "sip-010")).toBe(false);
  });
  it("rejects a missing function, a wrong access or wrong argument types", () => {
    expect(conformsToTrait({ functions: sip010.functions.filter((f) => f.name !== "get-token-uri") }, "sip-010")).toBe(
      false,
    );
    const privateTransfer = sip010.functions.map((f) => (f.name === "transfer" ? { ...f, access: "private" } : f));
    expect(conformsToTrait({ functions: privateTransfer }, "sip-010")).toBe(false);
    const badArgs = sip010.functions.map((f) => (f.name === "transfer" ? fn("transfer", "public", [U, P, P]) : f));
    expect(conformsToTrait({ functions: badArgs }, "sip-010")).toBe(false);
  });
  it("rejects what is not an interface", () => {
    expect(conformsToTrait(null, "sip-010")).toBe(false);
    expect(conformsToTrait({ functions: "x" }, "sip-013")).toBe(false);
  });
});

describe("parseTraitName", () => {
  it.each([
    ["sip-010", "sip-010"],
    ["SIP010", "sip-010"],
    ["SP3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8QJ5SVTE.sip-010-trait-ft-standard.sip-010-trait", "sip-010"],
    ["nft", "sip-009"],
    ["sip-013", "sip-013"],
    ["something-else", null],
  ])("%s → %s", (input, want) => {
    expect(parseTraitName(input)).toBe(want);
  });
});
