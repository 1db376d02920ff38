/**
 * runtime/dispatcher/triggers.ts parseTriggers: every 400 INVALID_TRIGGER (SPEC.md "Trigger
 * object", "Errors", "Limits") names the trigger index and field; valid triggers come back
 * normalised.
 */
import { describe, expect, it } from "vitest";
import {
  parseTriggers,
  TRIGGER_FIELDS,
  TRIGGER_TYPES,
  type TriggerType,
} from "../../../runtime/dispatcher/triggers.js";
import { ServiceError } from "../../../runtime/internal/errors.js";

/** The error parseTriggers throws for `input`. */
function failure(input: unknown): ServiceError {
  try {
    parseTriggers(input);
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

const ALL_FIELDS = [...new Set(Object.values(TRIGGER_FIELDS).flat())];
const VALUE: Record<string, string> = {
  minAmount: "100",
  maxAmount: "200",
  trait: "sip-010",
  requestId: "7",
};
const sampleValue = (field: string) => VALUE[field] ?? "SP000000000000000000002Q6VF78.*";

describe("parseTriggers: the list", () => {
  it.each([
    ["not an array", { type: "stx_transfer" }, null],
    ["empty", [], 0],
    ["51 triggers", Array.from({ length: 51 }, () => ({ type: "stx_transfer" })), 50],
  ])("%s → 400 INVALID_TRIGGER on field triggers", (_name, input, index) => {
    const err = failure(input);
    expect(err.status).toBe(400);
    expect(err.code).toBe("INVALID_TRIGGER");
    expect(err.details).toEqual({ index, field: "triggers" });
  });

  it("50 triggers are accepted", () => {
    expect(parseTriggers(Array.from({ length: 50 }, () => ({ type: "stx_mint" })))).toHaveLength(50);
  });
});

describe("parseTriggers: one trigger", () => {
  it.each([
    ["a string", "stx_transfer", null],
    ["null", null, null],
    ["an array", [], null],
  ])("%s instead of an object → index, no field", (_n, raw, field) => {
    expect(failure([{ type: "stx_mint" }, raw]).details).toEqual({ index: 1, field });
  });

  it.each([
    ["missing type", {}],
    ["unknown type", { type: "stx_teleport" }],
    // Fees and miner rewards are subgraph sources, not chain events a webhook can trigger on.
    ["a subgraph-only source type", { type: "tx_fee" }],
    ["another subgraph-only source type", { type: "miner_reward" }],
    ["type in the wrong case", { type: "STX_TRANSFER" }],
    ["type not a string", { type: 3 }],
  ])("%s → field type", (_n, raw) => {
    expect(failure([{ type: "stx_mint" }, { type: "ft_mint" }, raw]).details).toEqual({ index: 2, field: "type" });
  });

  // SPEC.md Errors: "field outside the type's allowed set, e.g. sender on a mint or recipient on a burn".
  const outside: [TriggerType, string][] = TRIGGER_TYPES.flatMap((type) =>
    ALL_FIELDS.filter((f) => !TRIGGER_FIELDS[type].includes(f)).map((f): [TriggerType, string] => [type, f]),
  );
  it.each(outside)("%s with %s → field outside the type's set", (type, field) => {
    const err = failure([{ type, [field]: sampleValue(field) }]);
    expect(err.code).toBe("INVALID_TRIGGER");
    expect(err.details).toEqual({ index: 0, field });
    expect(err.message).toContain(`${field} is not allowed on ${type}`);
  });

  it("sender on a mint and recipient on a burn, named in the message", () => {
    expect(failure([{ type: "ft_mint", sender: "SP1" }]).message).toMatch(/sender is not allowed on ft_mint/);
    expect(failure([{ type: "nft_burn", recipient: "SP1" }]).message).toMatch(/recipient is not allowed on nft_burn/);
    expect(failure([{ type: "stx_mint", sender: "SP1" }]).details).toEqual({ index: 0, field: "sender" });
  });

  it.each([
    ["snake_case field", { type: "contract_call", contract_id: "SP1.x" }, "contract_id"],
    ["unknown field", { type: "print_event", colour: "red" }, "colour"],
  ])("%s → that field", (_n, raw, field) => {
    expect(failure([raw]).details).toEqual({ index: 0, field });
  });

  it.each([
    ["a number", 100],
    ["a decimal", "1.5"],
    ["negative", "-1"],
    ["exponent", "1e6"],
    ["empty", ""],
    ["with a sign", "+5"],
    ["with blanks", " 5"],
    ["hex", "0x10"],
    ["40 digits", "1".repeat(40)],
  ])("minAmount %s → field minAmount", (_n, amount) => {
    expect(failure([{ type: "ft_transfer", minAmount: amount }]).details).toEqual({ index: 0, field: "minAmount" });
  });

  it("maxAmount below minAmount → field maxAmount", () => {
    expect(failure([{ type: "stx_transfer", minAmount: "10", maxAmount: "9" }]).details).toEqual({
      index: 0,
      field: "maxAmount",
    });
  });

  it.each([
    ["unknown standard", "sip-999"],
    ["empty", ""],
  ])("trait %s → field trait", (_n, trait) => {
    expect(failure([{ type: "nft_mint", trait }]).details).toEqual({ index: 0, field: "trait" });
  });

  it.each([
    ["empty pattern", ""],
    ["blank inside", "SP1 X"],
    ["too long", "x".repeat(257)],
    ["not a string", 42],
  ])("pattern field %s → that field", (_n, value) => {
    expect(failure([{ type: "contract_call", functionName: value }]).details).toEqual({
      index: 0,
      field: "functionName",
    });
  });

  it("requestId must be digits", () => {
    expect(failure([{ type: "sbtc_withdrawal_accept", requestId: "abc" }]).details).toEqual({
      index: 0,
      field: "requestId",
    });
  });
});

describe("parseTriggers: accepted", () => {
  it.each(TRIGGER_TYPES)("%s with every allowed field", (type) => {
    const raw = Object.fromEntries([["type", type], ...TRIGGER_FIELDS[type].map((f) => [f, sampleValue(f)])]);
    expect(parseTriggers([raw])).toEqual([raw]);
  });

  it("normalises amounts and trait spellings; keeps wildcards", () => {
    expect(
      parseTriggers([
        { type: "ft_transfer", minAmount: "007", trait: "SIP010" },
        { type: "contract_call", contractId: "SP*.amm-*", functionName: "swap-*" },
      ]),
    ).toEqual([
      { type: "ft_transfer", minAmount: "7", trait: "sip-010" },
      { type: "contract_call", contractId: "SP*.amm-*", functionName: "swap-*" },
    ]);
  });

  it("a bare type matches everything of that type", () => {
    expect(parseTriggers([{ type: "sbtc_deposit" }])).toEqual([{ type: "sbtc_deposit" }]);
  });
});
