/** Clarity value → JSON mapping and type signatures (DESIGN.md §3). */
import { Cl, type ClarityValue } from "@stacks/transactions";
import { describe, expect, it } from "vitest";
import {
  type ClarityTypeSignature,
  clarityToJson,
  clarityTypeSignature,
  decodeClarityHex,
  mergeClarityTypeSignatures,
} from "../../../runtime/chain/decode/index.js";
import type { ClarityJson } from "../../../runtime/chain/types.js";

const ADDR = "SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7";
const TESTNET_MULTISIG = "SN3R84XZYA63QS28932XQF3G1J8R9PC3W76P9CSQS";

const jsonCases: { name: string; given: ClarityValue; want: ClarityJson }[] = [
  { name: "uint", given: Cl.uint(42), want: "42" },
  { name: "uint max (beyond 2^53)", given: Cl.uint(2n ** 128n - 1n), want: "340282366920938463463374607431768211455" },
  { name: "int negative", given: Cl.int(-7), want: "-7" },
  { name: "int min", given: Cl.int(-(2n ** 127n)), want: "-170141183460469231731687303715884105728" },
  { name: "true", given: Cl.bool(true), want: true },
  { name: "false", given: Cl.bool(false), want: false },
  { name: "buffer", given: Cl.bufferFromHex("00ff10"), want: "0x00ff10" },
  { name: "empty buffer", given: Cl.bufferFromHex(""), want: "0x" },
  { name: "string-ascii", given: Cl.stringAscii("hello"), want: "hello" },
  { name: "string-utf8", given: Cl.stringUtf8("héllo ✓"), want: "héllo ✓" },
  { name: "standard principal", given: Cl.standardPrincipal(ADDR), want: ADDR },
  { name: "contract principal", given: Cl.contractPrincipal(ADDR, "my-token"), want: `${ADDR}.my-token` },
  { name: "testnet multisig principal", given: Cl.standardPrincipal(TESTNET_MULTISIG), want: TESTNET_MULTISIG },
  { name: "none", given: Cl.none(), want: null },
  { name: "some", given: Cl.some(Cl.uint(1)), want: "1" },
  { name: "ok", given: Cl.ok(Cl.bool(true)), want: { ok: true } },
  { name: "err", given: Cl.error(Cl.uint(404)), want: { err: "404" } },
  { name: "list", given: Cl.list([Cl.uint(1), Cl.uint(2)]), want: ["1", "2"] },
  { name: "empty list", given: Cl.list([]), want: [] },
  {
    name: "nested tuple keeps Clarity keys",
    given: Cl.tuple({
      "request-id": Cl.uint(5),
      recipient: Cl.tuple({ version: Cl.bufferFromHex("04"), hashbytes: Cl.bufferFromHex("abcd") }),
      memo: Cl.none(),
      "fee?": Cl.some(Cl.list([Cl.stringAscii("a")])),
    }),
    want: {
      "request-id": "5",
      recipient: { version: "0x04", hashbytes: "0xabcd" },
      memo: null,
      "fee?": ["a"],
    },
  },
];

describe("clarityToJson", () => {
  it.each(jsonCases)("$name", ({ given, want }) => {
    expect(clarityToJson(given)).toEqual(want);
  });

  it.each(jsonCases)("decodeClarityHex round-trips $name", ({ given, want }) => {
    expect(decodeClarityHex(`0x${Cl.serialize(given)}`)).toEqual(want);
  });

  it("accepts hex without the 0x prefix", () => {
    expect(decodeClarityHex(Cl.serialize(Cl.uint(3)))).toBe("3");
  });
});

describe("decodeClarityHex rejects bad input with a reason", () => {
  const cases: { name: string; hex: string; reason: RegExp }[] = [
    { name: "empty value", hex: "0x", reason: /empty/ },
    { name: "odd length", hex: "0x010", reason: /odd number of hex digits/ },
    { name: "non-hex digit", hex: "0x01zz", reason: /non-hex/ },
    { name: "unknown type id", hex: "0xff", reason: /Clarity Type/i },
    { name: "truncated uint", hex: "0x0100000000", reason: /truncated/ },
    { name: "truncated buffer", hex: "0x0200000010abcd", reason: /truncated/ },
    { name: "trailing bytes", hex: "0x0300", reason: /1 trailing byte/ },
  ];
  it.each(cases)("$name", ({ hex, reason }) => {
    expect(() => decodeClarityHex(hex)).toThrow(reason);
  });
});

const sigCases: { name: string; given: ClarityValue; want: ClarityTypeSignature }[] = [
  { name: "uint", given: Cl.uint(1), want: { type: "uint" } },
  { name: "int", given: Cl.int(1), want: { type: "int" } },
  { name: "bool", given: Cl.bool(false), want: { type: "bool" } },
  { name: "buffer", given: Cl.bufferFromHex("01"), want: { type: "buffer" } },
  { name: "string-ascii", given: Cl.stringAscii("x"), want: { type: "string-ascii" } },
  { name: "string-utf8", given: Cl.stringUtf8("x"), want: { type: "string-utf8" } },
  { name: "principal", given: Cl.standardPrincipal(ADDR), want: { type: "principal" } },
  { name: "contract principal", given: Cl.contractPrincipal(ADDR, "c"), want: { type: "principal" } },
  { name: "none", given: Cl.none(), want: { type: "optional", inner: null } },
  { name: "some", given: Cl.some(Cl.uint(1)), want: { type: "optional", inner: { type: "uint" } } },
  { name: "ok", given: Cl.ok(Cl.bool(true)), want: { type: "response", ok: { type: "bool" }, err: null } },
  { name: "err", given: Cl.error(Cl.uint(1)), want: { type: "response", ok: null, err: { type: "uint" } } },
  { name: "empty list", given: Cl.list([]), want: { type: "list", element: null } },
  {
    name: "list of optionals takes the element type from a some",
    given: Cl.list([Cl.none(), Cl.some(Cl.stringAscii("a")), Cl.none()]),
    want: { type: "list", element: { type: "optional", inner: { type: "string-ascii" } } },
  },
  {
    name: "tuple",
    given: Cl.tuple({ topic: Cl.stringAscii("t"), amount: Cl.uint(1), to: Cl.none() }),
    want: {
      type: "tuple",
      fields: { topic: { type: "string-ascii" }, amount: { type: "uint" }, to: { type: "optional", inner: null } },
    },
  },
];

describe("clarityTypeSignature", () => {
  it.each(sigCases)("$name", ({ given, want }) => {
    expect(clarityTypeSignature(given)).toEqual(want);
  });

  it("merges what two values of one type each tell", () => {
    const a = clarityTypeSignature(Cl.tuple({ x: Cl.none(), r: Cl.ok(Cl.uint(1)) }));
    const b = clarityTypeSignature(Cl.tuple({ x: Cl.some(Cl.bool(true)), r: Cl.error(Cl.stringAscii("e")) }));
    expect(mergeClarityTypeSignatures(a, b)).toEqual({
      type: "tuple",
      fields: {
        x: { type: "optional", inner: { type: "bool" } },
        r: { type: "response", ok: { type: "uint" }, err: { type: "string-ascii" } },
      },
    });
    expect(mergeClarityTypeSignatures(null, a)).toEqual(a);
    expect(mergeClarityTypeSignatures(a, null)).toEqual(a);
  });

  it("is plain JSON", () => {
    const sig = clarityTypeSignature(Cl.tuple({ l: Cl.list([Cl.some(Cl.uint(1))]) }));
    expect(JSON.parse(JSON.stringify(sig))).toEqual(sig);
  });
});
