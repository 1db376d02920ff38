/** buildHandlerContexts: chain order, tx-level contexts, committed events only, print/nft views. */
import { describe, expect, it } from "vitest";
import type { DecodedBlock, DecodedEvent, DecodedTx } from "../../../runtime/chain/types.js";
import { buildHandlerContexts, eventView, txLevelEvent } from "../../../runtime/subgraphs/context.js";
import { block as baseBlock, ev as baseEv, tx as baseTx } from "../../support/decoded-chain.js";

const txIdOf = (txIndex: number) => `0x${String(txIndex).padStart(64, "0")}`;

function tx(txIndex: number, over: Partial<DecodedTx> = {}): DecodedTx {
  return baseTx({
    txId: txIdOf(txIndex),
    txIndex,
    txType: "contract_call",
    sender: "ST1SENDER",
    fee: "0",
    contractId: "ST1DEPLOYER.token",
    functionName: "transfer",
    functionArgs: [],
    ...over,
  });
}

function ev(eventIndex: number, txIndex: number, over: Partial<DecodedEvent> = {}): DecodedEvent {
  return baseEv({
    eventIndex,
    nodeEventIndex: eventIndex,
    txId: txIdOf(txIndex),
    txIndex,
    type: "stx_transfer",
    assetIdentifier: "STX",
    sender: "ST1A",
    recipient: "ST1B",
    amount: "5",
    payload: { sender: "ST1A", recipient: "ST1B", amount: "5", memo: "" },
    ...over,
  });
}

function block(txs: DecodedTx[], events: DecodedEvent[]): DecodedBlock {
  return baseBlock(txs, events, 7, {
    indexBlockHash: "0xib",
    blockHash: "0xbh",
    parentBlockHash: "0xpb",
    burnBlockTime: 1000,
    blockTime: 1234,
    events,
  });
}

describe("buildHandlerContexts", () => {
  it("orders contexts by tx_index, a tx's own context before its events, and skips uncommitted events", () => {
    const b = block(
      [
        tx(1, { txType: "smart_contract", contractId: "ST1DEPLOYER.new" }),
        tx(0),
        tx(2, { status: "abort_by_response" }),
      ],
      [ev(0, 0), ev(1, 0, { committed: false }), ev(2, 1), ev(3, 2, { committed: false })],
    );
    const contexts = buildHandlerContexts(b, { k: "v" });
    expect(contexts.map((c) => [c.tx.index, c.event.type, c.event.event_index])).toEqual([
      [0, "contract_call", -1],
      [0, "stx_transfer", 0],
      [1, "contract_deploy", -1],
      [1, "stx_transfer", 2],
    ]);
    expect(contexts[0].block).toEqual({ height: 7, hash: "0xbh", index_block_hash: "0xib", time: 1234 });
    expect(contexts[0].config).toEqual({ k: "v" });
    expect(contexts[2].event.contract_id).toBe("ST1DEPLOYER.new");
  });

  it("offers per transaction the fee it paid before its other contexts, then the block's matured miner rewards", () => {
    const reward = (recipient: string, coinbase: string, anchored: string, confirmed: string, produced: string) => ({
      recipient,
      miner_address: "ST1MINER",
      coinbase_amount: coinbase,
      tx_fees_anchored: anchored,
      tx_fees_streamed_confirmed: confirmed,
      tx_fees_streamed_produced: produced,
      from_stacks_block_hash: "0xfrom",
      from_index_consensus_hash: "0xfromib",
    });
    const b = {
      ...block(
        [
          tx(0, { fee: "180" }),
          tx(1, { fee: "7", sponsor: "ST1SPONSOR", status: "abort_by_post_condition" }),
          tx(2, { fee: "0", txType: "token_transfer" }),
          tx(3, { fee: null, burnchainOp: true, txType: "burnchain_op" }),
        ],
        [ev(0, 0), ev(1, 1, { committed: false })],
      ),
      maturedMinerRewards: [reward("ST1ALT", "1000", "20", "3", "4"), reward("ST1PARENT", "0", "0", "0", "0")],
    };
    const contexts = buildHandlerContexts(b, {});
    expect(contexts.map((c) => [c.tx.index, c.event.type, c.event.sender, c.event.recipient, c.event.amount])).toEqual([
      [0, "tx_fee", "ST1SENDER", null, "180"],
      [0, "contract_call", "ST1SENDER", null, null],
      [0, "stx_transfer", "ST1A", "ST1B", "5"],
      // a failed transaction pays its fee, and the sponsor pays for a sponsored one
      [1, "tx_fee", "ST1SPONSOR", null, "7"],
      // a reward is the coinbase plus the three fee shares; one of 0 is none
      [-1, "miner_reward", null, "ST1ALT", "1027"],
    ]);
    expect(contexts[3].event).toMatchObject({
      event_index: -1,
      asset_identifier: "STX",
      payload: { payer: "ST1SPONSOR", amount: "7", sponsored: true },
    });
    expect(contexts[3].tx).toMatchObject({ id: txIdOf(1), sender: "ST1SENDER", status: "abort_by_post_condition" });
    expect(contexts[4].tx.id).toBe("");
    expect(contexts[4].event).toMatchObject({
      event_index: -1,
      asset_identifier: "STX",
      payload: { recipient: "ST1ALT", coinbase_amount: "1000", tx_fees_streamed_produced: "4", amount: "1027" },
    });
  });

  it("offers no tx-level context for failed transactions or other tx types", () => {
    expect(txLevelEvent(tx(0, { status: "abort_by_post_condition" }))).toBeNull();
    expect(txLevelEvent(tx(0, { txType: "token_transfer" }))).toBeNull();
    expect(txLevelEvent(tx(0, { txType: "versioned_smart_contract" }))?.type).toBe("contract_deploy");
  });

  it("exposes a print's decoded value as payload and value, with the tuple's topic", () => {
    const view = eventView(
      ev(0, 0, {
        type: "print",
        contractId: "ST1X.reg",
        topic: "print",
        assetIdentifier: null,
        payload: {
          contract_id: "ST1X.reg",
          topic: "print",
          value: { topic: "new-name", owner: "ST1O" },
          raw_value: "0x",
        },
      }),
    );
    expect(view).toMatchObject({
      type: "print",
      topic: "new-name",
      contract_id: "ST1X.reg",
      payload: { topic: "new-name", owner: "ST1O" },
    });
    expect(view.value).toEqual(view.payload);
  });

  it("keeps the node topic when the printed value has none, and exposes nft values", () => {
    const print = eventView(ev(0, 0, { type: "print", topic: "print", payload: { value: "0x01", raw_value: "0x" } }));
    expect(print.topic).toBe("print");
    expect(print.payload).toBe("0x01");
    const nft = eventView(
      ev(0, 0, {
        type: "nft_mint",
        payload: { asset_identifier: "a::b", recipient: "ST1B", value: "7", raw_value: "0x" },
      }),
    );
    expect(nft.value).toBe("7");
    expect(nft.payload).toMatchObject({ asset_identifier: "a::b" });
  });
});
