/** Node events → DecodedEvent with the Streams payload (DESIGN.md §2, §3). */
import { Cl } from "@stacks/transactions";
import { describe, expect, it } from "vitest";
import { decodeEvents } from "../../../runtime/chain/decode/index.js";
import { MalformedPayloadError } from "../../../runtime/internal/errors.js";
import type { DecodedEvent } from "../../../runtime/chain/types.js";

const TX0 = `0x${"00".repeat(31)}aa`;
const TX1 = `0x${"00".repeat(31)}bb`;
const TXS = new Map([
  [TX0, 0],
  [TX1, 1],
]);
const A = "SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7";
const B = "SP3FGQ8Z7JY9BWYZ5WM53E0M9NK7WHJF0691NZ159";
const TOKEN = "SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.alex-token";
const NFT = "SP000000000000000000002Q6VF78.bns";

function node(type: string, body: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { txid: TX0, type, committed: true, event_index: 0, [type]: body, ...extra };
}

const nameValue = Cl.tuple({ name: Cl.bufferFromAscii("satoshi"), namespace: Cl.bufferFromAscii("btc") });
const nameHex = `0x${Cl.serialize(nameValue)}`;
const nameJson = { name: "0x7361746f736869", namespace: "0x627463" };

const cases: { name: string; given: Record<string, unknown>; want: Partial<DecodedEvent> }[] = [
  {
    name: "stx_transfer with memo",
    given: node("stx_transfer_event", { sender: A, recipient: B, amount: "100", memo: "6869" }),
    want: {
      type: "stx_transfer",
      contractId: null,
      assetIdentifier: "STX",
      sender: A,
      recipient: B,
      amount: "100",
      topic: null,
      payload: { sender: A, recipient: B, amount: "100", memo: "0x6869" },
    },
  },
  {
    name: "stx_transfer without memo (old nodes)",
    given: node("stx_transfer_event", { sender: A, recipient: B, amount: "1" }),
    want: { type: "stx_transfer", payload: { sender: A, recipient: B, amount: "1", memo: "" } },
  },
  {
    name: "stx_mint",
    given: node("stx_mint_event", { recipient: B, amount: "5" }),
    want: {
      type: "stx_mint",
      assetIdentifier: "STX",
      sender: null,
      recipient: B,
      amount: "5",
      payload: { recipient: B, amount: "5" },
    },
  },
  {
    name: "stx_burn",
    given: node("stx_burn_event", { sender: A, amount: "6" }),
    want: {
      type: "stx_burn",
      assetIdentifier: "STX",
      sender: A,
      recipient: null,
      amount: "6",
      payload: { sender: A, amount: "6" },
    },
  },
  {
    name: "stx_lock (amount = locked amount)",
    given: node("stx_lock_event", {
      locked_amount: "700",
      unlock_height: "670250",
      locked_address: A,
      contract_identifier: "SP000000000000000000002Q6VF78.pox-4",
    }),
    want: {
      type: "stx_lock",
      contractId: null,
      assetIdentifier: "STX",
      sender: A,
      amount: "700",
      payload: { locked_address: A, locked_amount: "700", unlock_height: "670250" },
    },
  },
  {
    name: "ft_transfer",
    given: node("ft_transfer_event", { asset_identifier: `${TOKEN}::alex`, sender: A, recipient: B, amount: "9" }),
    want: {
      type: "ft_transfer",
      contractId: TOKEN,
      assetIdentifier: `${TOKEN}::alex`,
      sender: A,
      recipient: B,
      amount: "9",
      payload: { asset_identifier: `${TOKEN}::alex`, sender: A, recipient: B, amount: "9" },
    },
  },
  {
    name: "ft_mint",
    given: node("ft_mint_event", { asset_identifier: `${TOKEN}::alex`, recipient: B, amount: "9" }),
    want: {
      type: "ft_mint",
      contractId: TOKEN,
      sender: null,
      recipient: B,
      payload: { asset_identifier: `${TOKEN}::alex`, recipient: B, amount: "9" },
    },
  },
  {
    name: "ft_burn",
    given: node("ft_burn_event", { asset_identifier: `${TOKEN}::alex`, sender: A, amount: "9" }),
    want: {
      type: "ft_burn",
      contractId: TOKEN,
      sender: A,
      recipient: null,
      payload: { asset_identifier: `${TOKEN}::alex`, sender: A, amount: "9" },
    },
  },
  {
    name: "nft_transfer",
    given: node("nft_transfer_event", {
      asset_identifier: `${NFT}::names`,
      sender: A,
      recipient: B,
      raw_value: nameHex,
    }),
    want: {
      type: "nft_transfer",
      contractId: NFT,
      assetIdentifier: `${NFT}::names`,
      sender: A,
      recipient: B,
      amount: null,
      payload: { asset_identifier: `${NFT}::names`, sender: A, recipient: B, value: nameJson, raw_value: nameHex },
    },
  },
  {
    name: "nft_mint",
    given: node("nft_mint_event", { asset_identifier: `${NFT}::names`, recipient: B, raw_value: nameHex }),
    want: {
      type: "nft_mint",
      sender: null,
      recipient: B,
      payload: { asset_identifier: `${NFT}::names`, recipient: B, value: nameJson, raw_value: nameHex },
    },
  },
  {
    name: "nft_burn",
    given: node("nft_burn_event", { asset_identifier: `${NFT}::names`, sender: A, raw_value: nameHex }),
    want: {
      type: "nft_burn",
      sender: A,
      recipient: null,
      payload: { asset_identifier: `${NFT}::names`, sender: A, value: nameJson, raw_value: nameHex },
    },
  },
  {
    name: "print (contract_event)",
    given: node("contract_event", {
      contract_identifier: TOKEN,
      topic: "print",
      raw_value: "0x0d0000000568656c6c6f",
      value: { ignored: 1 },
    }),
    want: {
      type: "print",
      contractId: TOKEN,
      assetIdentifier: null,
      sender: null,
      recipient: null,
      amount: null,
      topic: "print",
      payload: { contract_id: TOKEN, topic: "print", value: "hello", raw_value: "0x0d0000000568656c6c6f" },
    },
  },
  {
    name: "print whose raw_value does not decode keeps the block going",
    given: node("contract_event", { contract_identifier: TOKEN, topic: "print", raw_value: "0x" }),
    want: {
      type: "print",
      payload: {
        contract_id: TOKEN,
        topic: "print",
        value: null,
        decode_error: "empty Clarity value",
        raw_value: "0x",
      },
    },
  },
  {
    name: "nft whose raw_value does not decode",
    given: node("nft_mint_event", { asset_identifier: `${NFT}::names`, recipient: B, raw_value: "0x01ff" }),
    want: {
      type: "nft_mint",
      payload: {
        asset_identifier: `${NFT}::names`,
        recipient: B,
        value: null,
        decode_error: "truncated Clarity value",
        raw_value: "0x01ff",
      },
    },
  },
];

describe("decodeEvents: one event of each type", () => {
  it.each(cases)("$name", ({ given, want }) => {
    const { events, skippedTypes } = decodeEvents([given], TXS);
    expect(skippedTypes).toEqual([]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventIndex: 0,
      nodeEventIndex: 0,
      txId: TX0,
      txIndex: 0,
      committed: true,
      ...want,
    });
    // the payload is exactly the listed keys, JSON-serialisable
    expect(JSON.parse(JSON.stringify(events[0].payload))).toEqual(want.payload);
  });
});

describe("decodeEvents: linking, order, skipping", () => {
  const ev = (txid: string, eventIndex: number, committed = true) =>
    node("stx_mint_event", { recipient: B, amount: String(eventIndex) }, { txid, event_index: eventIndex, committed });

  it("orders by (tx_index, event_index) and assigns a dense eventIndex", () => {
    // node order: unsorted, tx 1's events carry lower node indexes than tx 0's
    const given = [ev(TX0, 7), ev(TX1, 2), ev(TX0, 5), ev(TX1, 0, false)];
    const { events } = decodeEvents(given, TXS);
    expect(events.map((e) => [e.eventIndex, e.txIndex, e.nodeEventIndex, e.committed])).toEqual([
      [0, 0, 5, true],
      [1, 0, 7, true],
      [2, 1, 0, false],
      [3, 1, 2, true],
    ]);
  });

  it("matches txids case-insensitively", () => {
    const { events } = decodeEvents([ev(TX1.toUpperCase().replace("0X", "0x"), 0)], TXS);
    expect(events[0].txId).toBe(TX1);
  });

  it("skips and reports node event types it does not index", () => {
    const given = [
      ev(TX0, 0),
      { txid: TX0, type: "some_future_event", committed: true, event_index: 1 },
      { type: "some_future_event" },
    ];
    const { events, skippedTypes } = decodeEvents(given, TXS);
    expect(events).toHaveLength(1);
    expect(skippedTypes).toEqual(["some_future_event", "some_future_event"]);
  });

  const malformedCases: { name: string; given: unknown; reason: RegExp }[] = [
    {
      name: "txid not in the block",
      given: ev(`0x${"11".repeat(32)}`, 0),
      reason: /^events\[0\]\.txid: 0x1111.* is not a transaction of this block/,
    },
    {
      name: "txid not a hash",
      given: ev("0x12", 0),
      reason: /^events\[0\]\.txid: must be 0x followed by 64 hex digits, got "0x12"/,
    },
    {
      name: "missing type",
      given: { txid: TX0, committed: true, event_index: 0 },
      reason: /^events\[0\]\.type: must be a string/,
    },
    {
      name: "negative event_index",
      given: ev(TX0, -1),
      reason: /^events\[0\]\.event_index: must be a non-negative integer, got -1/,
    },
    {
      name: "missing committed",
      given: { ...ev(TX0, 0), committed: undefined },
      reason: /^events\[0\]\.committed: must be a boolean/,
    },
    {
      name: "missing body",
      given: { txid: TX0, type: "ft_mint_event", committed: true, event_index: 0 },
      reason: /^events\[0\]\.ft_mint_event: must be an object/,
    },
    {
      name: "non-decimal amount",
      given: node("stx_burn_event", { sender: A, amount: "1e5" }),
      reason: /^events\[0\]\.stx_burn_event\.amount: must be a non-negative integer/,
    },
    {
      name: "missing recipient",
      given: node("ft_mint_event", { asset_identifier: `${TOKEN}::x`, amount: "1" }),
      reason: /^events\[0\]\.ft_mint_event\.recipient: must be a string, got nothing/,
    },
    {
      name: "asset id without ::",
      given: node("ft_mint_event", { asset_identifier: TOKEN, recipient: B, amount: "1" }),
      reason: /^events\[0\]\.ft_mint_event\.asset_identifier: must be <contract>::<asset>/,
    },
    {
      name: "non-hex memo",
      given: node("stx_transfer_event", { sender: A, recipient: B, amount: "1", memo: "xyz" }),
      reason: /^events\[0\]\.stx_transfer_event\.memo:/,
    },
    {
      name: "print without raw_value",
      given: node("contract_event", { contract_identifier: TOKEN, topic: "print" }),
      reason: /^events\[0\]\.contract_event\.raw_value:/,
    },
    { name: "event not an object", given: 5, reason: /^events\[0\]: must be an object, got 5/ },
  ];
  it.each(malformedCases)("malformed: $name", ({ given, reason }) => {
    expect(() => decodeEvents([given], TXS)).toThrow(MalformedPayloadError);
    expect(() => decodeEvents([given], TXS)).toThrow(reason);
  });

  it("malformed: two events of one tx sharing an event_index", () => {
    expect(() => decodeEvents([ev(TX0, 3), ev(TX0, 3)], TXS)).toThrow(/share event_index 3/);
  });
});
