/** `/new_block` and `/new_burn_block` bodies: shape, linking, validation (DESIGN.md §2). */
import { makeUnsignedSTXTokenTransfer, privateKeyToAddress, privateKeyToPublic } from "@stacks/transactions";
import { beforeAll, describe, expect, it } from "vitest";
import { decodeNewBlock, decodeNewBurnBlock } from "../../../runtime/chain/decode/index.js";
import { MalformedPayloadError } from "../../../runtime/internal/errors.js";

const KEY = "edf9aee84d9b7abc145504dde6726c64f369d37ee34ded868fabd876c26570bc01";
const RECIPIENT = "SP3FGQ8Z7JY9BWYZ5WM53E0M9NK7WHJF0691NZ159";
const h = (byte: string) => `0x${byte.repeat(32)}`;
const TX_A = h("a1");
const TX_B = h("b2");
const BURN_OP = h("c3");

let rawTransfer = "";
beforeAll(async () => {
  const wire = await makeUnsignedSTXTokenTransfer({
    recipient: RECIPIENT,
    amount: 50n,
    fee: 3,
    nonce: 1,
    publicKey: privateKeyToPublic(KEY) as string,
    network: "mainnet",
  });
  rawTransfer = `0x${wire.serialize()}`;
});

function tx(txid: string, txIndex: number, rawTx: string) {
  return { txid, tx_index: txIndex, raw_tx: rawTx, status: "success", raw_result: "0x0703", contract_abi: null };
}

function body(): Record<string, unknown> {
  const stx = (txid: string, eventIndex: number, amount: string) => ({
    txid,
    type: "stx_transfer_event",
    committed: true,
    event_index: eventIndex,
    stx_transfer_event: { sender: "SM3KJBA4RZ7Z20KD2HBXNSXVPCR1D3CRAV6Q05MKT", recipient: RECIPIENT, amount },
  });
  return {
    block_hash: h("01"),
    block_height: 120,
    burn_block_time: 1_700_000_000,
    burn_block_hash: h("02"),
    burn_block_height: 666_100,
    miner_txid: h("03"),
    index_block_hash: h("04"),
    parent_index_block_hash: h("05"),
    parent_block_hash: h("06"),
    parent_microblock: h("00"),
    transactions: [tx(TX_A, 0, rawTransfer), tx(BURN_OP, 1, "0x00"), tx(TX_B, 2, rawTransfer)],
    // unsorted, as the node sends them
    events: [stx(TX_B, 2, "3"), stx(BURN_OP, 1, "2"), stx(TX_A, 0, "1")],
  };
}

describe("decodeNewBlock", () => {
  it("decodes the header fields, txs and ordered events", () => {
    const block = decodeNewBlock(body());
    expect(block).toMatchObject({
      indexBlockHash: h("04"),
      blockHash: h("01"),
      height: 120,
      parentIndexBlockHash: h("05"),
      parentBlockHash: h("06"),
      burnBlockHash: h("02"),
      burnBlockHeight: 666_100,
      burnBlockTime: 1_700_000_000,
      blockTime: 1_700_000_000,
      minerTxid: h("03"),
      skippedEventTypes: [],
    });
    expect(block.txs.map((t) => [t.txId, t.txIndex, t.txType])).toEqual([
      [TX_A, 0, "token_transfer"],
      [BURN_OP, 1, "burnchain_op"],
      [TX_B, 2, "token_transfer"],
    ]);
    expect(block.txs[0].sender).toBe(privateKeyToAddress(KEY, "mainnet"));
    // the burn op has no burnchain_op field: its sender comes from its first event
    expect(block.txs[1].sender).toBe("SM3KJBA4RZ7Z20KD2HBXNSXVPCR1D3CRAV6Q05MKT");
    expect(block.events.map((e) => [e.eventIndex, e.txId, e.amount])).toEqual([
      [0, TX_A, "1"],
      [1, BURN_OP, "2"],
      [2, TX_B, "3"],
    ]);
  });

  it("decodes matured_miner_rewards as the node sends them (amounts as numbers too); absent or null is none", () => {
    const reward = {
      recipient: RECIPIENT,
      miner_address: "SP2KVQZA2FQNH90SNC9VQQQQH5ZWYANC08EZQQ14",
      coinbase_amount: "1000000000",
      tx_fees_anchored: 7337186,
      tx_fees_streamed_confirmed: "0",
      tx_fees_streamed_produced: "12",
      from_stacks_block_hash: h("9F"),
      from_index_consensus_hash: h("73"),
    };
    const pre21 = { ...reward, miner_address: undefined, from_stacks_block_hash: null };
    expect(decodeNewBlock({ ...body(), matured_miner_rewards: [reward, pre21] }).maturedMinerRewards).toEqual([
      {
        recipient: RECIPIENT,
        miner_address: "SP2KVQZA2FQNH90SNC9VQQQQH5ZWYANC08EZQQ14",
        coinbase_amount: "1000000000",
        tx_fees_anchored: "7337186",
        tx_fees_streamed_confirmed: "0",
        tx_fees_streamed_produced: "12",
        from_stacks_block_hash: h("9f"),
        from_index_consensus_hash: h("73"),
      },
      {
        recipient: RECIPIENT,
        miner_address: null,
        coinbase_amount: "1000000000",
        tx_fees_anchored: "7337186",
        tx_fees_streamed_confirmed: "0",
        tx_fees_streamed_produced: "12",
        from_stacks_block_hash: null,
        from_index_consensus_hash: h("73"),
      },
    ]);
    expect(decodeNewBlock(body()).maturedMinerRewards).toEqual([]);
    expect(decodeNewBlock({ ...body(), matured_miner_rewards: null }).maturedMinerRewards).toEqual([]);
  });

  it("uses block_time when it is a number", () => {
    expect(decodeNewBlock({ ...body(), block_time: 1_800_000_000 }).blockTime).toBe(1_800_000_000);
    expect(decodeNewBlock({ ...body(), block_time: null }).blockTime).toBe(1_700_000_000);
  });

  it("sorts txs by tx_index and lowercases hashes", () => {
    const b = body();
    b.transactions = [...(b.transactions as unknown[])].reverse();
    b.index_block_hash = h("AB");
    const block = decodeNewBlock(b);
    expect(block.txs.map((t) => t.txIndex)).toEqual([0, 1, 2]);
    expect(block.indexBlockHash).toBe(h("ab"));
  });

  it("accepts an empty block and reports skipped event types", () => {
    const b = { ...body(), transactions: [tx(TX_A, 0, rawTransfer)], events: [{ type: "future_event", txid: TX_A }] };
    const block = decodeNewBlock(b);
    expect(block.events).toEqual([]);
    expect(block.skippedEventTypes).toEqual(["future_event"]);
    expect(decodeNewBlock({ ...body(), transactions: [], events: [] }).txs).toEqual([]);
  });

  const malformed: { name: string; edit: (b: Record<string, unknown>) => unknown; reason: RegExp }[] = [
    { name: "not an object", edit: () => [], reason: /^body: must be a JSON object/ },
    {
      name: "missing index_block_hash",
      edit: (b) => ({ ...b, index_block_hash: undefined }),
      reason: /^index_block_hash: must be 0x followed by 64 hex digits, got nothing/,
    },
    { name: "short block_hash", edit: (b) => ({ ...b, block_hash: "0xabc" }), reason: /^block_hash: .*got "0xabc"/ },
    {
      name: "hash without 0x",
      edit: (b) => ({ ...b, parent_index_block_hash: "05".repeat(32) }),
      reason: /^parent_index_block_hash:/,
    },
    {
      name: "non-hex burn_block_hash",
      edit: (b) => ({ ...b, burn_block_hash: `0x${"zz".repeat(32)}` }),
      reason: /^burn_block_hash:/,
    },
    {
      name: "block_height as string",
      edit: (b) => ({ ...b, block_height: "120" }),
      reason: /^block_height: must be a non-negative integer, got "120"/,
    },
    {
      name: "missing burn_block_height",
      edit: (b) => ({ ...b, burn_block_height: undefined }),
      reason: /^burn_block_height:/,
    },
    {
      name: "missing parent_block_hash",
      edit: (b) => ({ ...b, parent_block_hash: undefined }),
      reason: /^parent_block_hash:/,
    },
    {
      name: "transactions not an array",
      edit: (b) => ({ ...b, transactions: {} }),
      reason: /^transactions: must be an array, got an object/,
    },
    { name: "missing events", edit: (b) => ({ ...b, events: undefined }), reason: /^events: must be an array/ },
    { name: "bad miner_txid", edit: (b) => ({ ...b, miner_txid: 5 }), reason: /^miner_txid:/ },
    {
      name: "undecodable raw_tx",
      edit: (b) => ({ ...b, transactions: [tx(TX_A, 0, "0x0000"), tx(BURN_OP, 1, "0x00"), tx(TX_B, 2, rawTransfer)] }),
      reason: /^transactions\[0\]\.raw_tx: is not a Stacks transaction/,
    },
    {
      name: "non-hex raw_tx",
      edit: (b) => ({
        ...b,
        transactions: [tx(TX_A, 0, rawTransfer), tx(BURN_OP, 1, "0x00"), tx(TX_B, 2, "0xnothex")],
      }),
      reason: /^transactions\[2\]\.raw_tx:/,
    },
    {
      name: "event for an unknown txid",
      edit: (b) => ({ ...b, transactions: [tx(TX_A, 0, rawTransfer), tx(BURN_OP, 1, "0x00")] }),
      reason: /^events\[0\]\.txid: 0xb2b2.* is not a transaction of this block/,
    },
    {
      name: "duplicate txid",
      edit: (b) => ({ ...b, transactions: [tx(TX_A, 0, rawTransfer), tx(TX_A, 1, rawTransfer)], events: [] }),
      reason: /^transactions\[1\]\.txid: .* appears twice/,
    },
    {
      name: "matured_miner_rewards not an array",
      edit: (b) => ({ ...b, matured_miner_rewards: {} }),
      reason: /^matured_miner_rewards: must be an array or null, got an object/,
    },
    {
      name: "miner reward without a recipient",
      edit: (b) => ({ ...b, matured_miner_rewards: [{ coinbase_amount: "1" }] }),
      reason: /^matured_miner_rewards\[0\]\.recipient: must be a string/,
    },
    {
      name: "miner reward with a negative amount",
      edit: (b) => ({
        ...b,
        matured_miner_rewards: [
          {
            recipient: RECIPIENT,
            coinbase_amount: "1000",
            tx_fees_anchored: "-5",
            tx_fees_streamed_confirmed: "0",
            tx_fees_streamed_produced: "0",
          },
        ],
      }),
      reason: /^matured_miner_rewards\[0\]\.tx_fees_anchored: must be a non-negative integer/,
    },
    {
      name: "miner reward missing a fee share",
      edit: (b) => ({
        ...b,
        matured_miner_rewards: [
          { recipient: RECIPIENT, coinbase_amount: "1000", tx_fees_anchored: "5", tx_fees_streamed_confirmed: "0" },
        ],
      }),
      reason: /^matured_miner_rewards\[0\]\.tx_fees_streamed_produced: .*got nothing/,
    },
    {
      name: "duplicate tx_index",
      edit: (b) => ({ ...b, transactions: [tx(TX_A, 0, rawTransfer), tx(TX_B, 0, rawTransfer)], events: [] }),
      reason: /^transactions\[1\]\.tx_index: 0 appears twice/,
    },
  ];
  it.each(malformed)("malformed: $name", ({ edit, reason }) => {
    const given = edit(body());
    expect(() => decodeNewBlock(given)).toThrow(MalformedPayloadError);
    expect(() => decodeNewBlock(given)).toThrow(reason);
  });
});

describe("decodeNewBurnBlock", () => {
  const burn = {
    burn_amount: 2_504_000,
    burn_block_hash: h("0a"),
    burn_block_height: 788_258,
    reward_recipients: [{ recipient: "1BoatSLRHtKNngkdXEeobR76b53LETtpyT", amt: 10 }],
    reward_slot_holders: ["1BoatSLRHtKNngkdXEeobR76b53LETtpyT"],
  };

  it("decodes the fields", () => {
    expect(decodeNewBurnBlock(burn)).toEqual({
      burnBlockHash: h("0a"),
      burnBlockHeight: 788_258,
      rewardRecipients: burn.reward_recipients,
      rewardSlotHolders: burn.reward_slot_holders,
      burnAmount: "2504000",
    });
    expect(decodeNewBurnBlock({ ...burn, burn_amount: undefined }).burnAmount).toBeNull();
  });

  it.each([
    ["burn_block_hash", { ...burn, burn_block_hash: "0x00" }],
    ["burn_block_height", { ...burn, burn_block_height: -1 }],
    ["reward_recipients", { ...burn, reward_recipients: null }],
    ["reward_slot_holders", { ...burn, reward_slot_holders: undefined }],
    ["burn_amount", { ...burn, burn_amount: "lots" }],
  ])("malformed %s", (field, given) => {
    expect(() => decodeNewBurnBlock(given)).toThrow(MalformedPayloadError);
    expect(() => decodeNewBurnBlock(given)).toThrow(new RegExp(`^${field}:`));
  });
});
