/**
 * runtime/dispatcher/chain-payload.ts and subgraph-payload.ts: the `data` of every delivery type
 * (SPEC.md "Chain apply data", "Reorg rollback data", "Test delivery", "Delivery types").
 */
import { describe, expect, it } from "vitest";
import {
  applyType,
  buildApplyData,
  buildEventBody,
  buildRollbackData,
  buildTestData,
  buildTxBody,
  MAX_ORPHANED,
} from "../../../runtime/dispatcher/chain-payload.js";
import {
  buildRowChangeData,
  buildRowReplayData,
  changeMatches,
  rowChangeType,
} from "../../../runtime/dispatcher/subgraph-payload.js";
import type { RowChange } from "../../../runtime/subgraphs/types.js";
import { ev, tx } from "../../support/decoded-chain.js";

describe("chain apply data", () => {
  it("has exactly SPEC.md's fields; stx_transfer → stx_transfer_event with memo, amount, sender, recipient", () => {
    const e = ev({
      type: "stx_transfer",
      eventIndex: 4,
      txId: "0xt",
      payload: { sender: "SP1", recipient: "SP2", amount: "10", memo: "0x00" },
    });
    const data = buildApplyData({
      trigger: "stx_transfer",
      tx: tx({ txId: "0xt" }),
      event: e,
      blockHash: "0xbh",
      blockHeight: 7,
    });
    expect(data).toEqual({
      action: "apply",
      trigger: "stx_transfer",
      tx_id: "0xt",
      block_hash: "0xbh",
      block_height: 7,
      canonical: true,
      event: {
        type: "stx_transfer_event",
        event_index: 4,
        tx_id: "0xt",
        data: { memo: "0x00", amount: "10", sender: "SP1", recipient: "SP2" },
      },
    });
    expect(Object.keys(data)).toEqual([
      "action",
      "trigger",
      "tx_id",
      "block_hash",
      "block_height",
      "canonical",
      "event",
    ]);
    expect(applyType("stx_transfer")).toBe("chain.stx_transfer.apply");
  });

  it("contract_call is flat with raw-hex function_args", () => {
    const call = tx({
      txId: "0xc",
      txType: "contract_call",
      contractId: "SP1.amm",
      functionName: "swap",
      functionArgs: ["0x0100", "0x0516aa"],
      sender: "SP9",
    });
    expect(buildTxBody(call)).toEqual({
      type: "contract_call",
      event_index: -1,
      tx_id: "0xc",
      contract_id: "SP1.amm",
      function_name: "swap",
      function_args: ["0x0100", "0x0516aa"],
      caller: "SP9",
    });
    expect(
      buildApplyData({ trigger: "contract_call", tx: call, blockHash: "0xb", blockHeight: 1 }).event,
    ).not.toHaveProperty("data");
  });

  it("a deploy is the bare tx type smart_contract", () => {
    expect(buildTxBody(tx({ txId: "0xd", txType: "smart_contract", contractId: "SP1.token", sender: "SP1" }))).toEqual({
      type: "smart_contract",
      event_index: -1,
      tx_id: "0xd",
      data: { contract_id: "SP1.token", deployer: "SP1", contract_name: "token" },
    });
  });

  it("print_event → the node's contract_event with contract_identifier, topic, value, raw_value", () => {
    const e = ev({
      type: "print",
      contractId: "SP1.m",
      topic: "print",
      payload: { contract_id: "SP1.m", topic: "print", value: { a: "1" }, raw_value: "0x0c" },
    });
    expect(buildEventBody(e)).toEqual({
      type: "contract_event",
      event_index: 0,
      tx_id: "0xaa",
      data: { contract_identifier: "SP1.m", topic: "print", value: { a: "1" }, raw_value: "0x0c" },
    });
  });

  it.each([
    ["stx_mint", "stx_mint_event"],
    ["stx_burn", "stx_burn_event"],
    ["stx_lock", "stx_lock_event"],
    ["ft_transfer", "ft_transfer_event"],
    ["ft_mint", "ft_mint_event"],
    ["ft_burn", "ft_burn_event"],
    ["nft_transfer", "nft_transfer_event"],
    ["nft_mint", "nft_mint_event"],
    ["nft_burn", "nft_burn_event"],
  ] as const)("%s → event.type %s, data = the event payload", (type, name) => {
    const payload = { asset_identifier: "SP1.c::a", amount: "1" };
    expect(buildEventBody(ev({ type, payload }))).toEqual({ type: name, event_index: 0, tx_id: "0xaa", data: payload });
  });

  it("replays carry is_replay: true", () => {
    expect(
      buildApplyData({
        trigger: "stx_transfer",
        tx: tx(),
        event: ev({ type: "stx_transfer" }),
        blockHash: "0x",
        blockHeight: 1,
        isReplay: true,
      }).is_replay,
    ).toBe(true);
  });
});

describe("rollback data", () => {
  const apply = (i: number) =>
    buildApplyData({
      trigger: "ft_mint",
      tx: tx({ txId: `0x${i}` }),
      event: ev({ type: "ft_mint", txId: `0x${i}`, eventIndex: i }),
      blockHash: "0x",
      blockHeight: 3,
    });

  it("lists { tx_id, event } without the trigger tag", () => {
    expect(buildRollbackData(3, [apply(1)])).toEqual({
      action: "rollback",
      fork_point_height: 3,
      orphaned: [{ tx_id: "0x1", event: apply(1).event }],
      truncated: false,
    });
  });

  it("keeps at most 500 entries and says truncated", () => {
    const many = Array.from({ length: MAX_ORPHANED + 1 }, (_, i) => apply(i));
    const data = buildRollbackData(9, many);
    expect(data.orphaned).toHaveLength(500);
    expect(data.truncated).toBe(true);
    expect(buildRollbackData(9, many.slice(0, 500)).truncated).toBe(false);
  });
});

describe("test data", () => {
  it("test true, message, webhook_id (+ deprecated subscription_id), sent_at", () => {
    expect(buildTestData("wh_1", new Date("2026-01-02T03:04:05Z"), "hi")).toEqual({
      test: true,
      message: "hi",
      webhook_id: "wh_1",
      subscription_id: "wh_1",
      sent_at: "2026-01-02T03:04:05.000Z",
    });
  });
});

describe("subgraph row-change data", () => {
  const change: RowChange = {
    subgraph: "asset-holdings",
    table: "holdings",
    op: "updated",
    row: { _id: "5", amount: "20", holder: "SP1", _block_height: 7, _created_at: new Date("2026-01-01T00:00:00Z") },
    previous: { _id: "5", amount: "10", holder: "SP1", _block_height: 6 },
    txId: "0xt",
    eventIndex: 2,
    blockHeight: 7,
    indexBlockHash: "0xib",
    reverted: false,
  };

  it("type <subgraph>.<table>.<op>; data with row, previous, position and reverted flag", () => {
    expect(rowChangeType(change)).toBe("asset-holdings.holdings.updated");
    expect(buildRowChangeData(change)).toEqual({
      action: "updated",
      subgraph: "asset-holdings",
      table: "holdings",
      row: { _id: 5, amount: "20", holder: "SP1", _block_height: "7", _created_at: "2026-01-01T00:00:00.000Z" },
      previous: { _id: 5, amount: "10", holder: "SP1", _block_height: "6" },
      tx_id: "0xt",
      event_index: 2,
      block_height: 7,
      index_block_hash: "0xib",
      reverted: false,
    });
  });

  it("a change concerns a filter when the row before or after passes it", () => {
    expect(changeMatches({ amount: { gte: "15" } }, change)).toBe(true);
    expect(changeMatches({ amount: { lt: "15" } }, change)).toBe(true); // leaves the filtered set
    expect(changeMatches({ amount: { gt: "100" } }, change)).toBe(false);
  });

  it("replay data", () => {
    expect(
      buildRowReplayData("bns-names", "names", { _id: "3", _tx_id: "0x1", _block_height: "9", fqn: "a.btc" }, "0xib"),
    ).toEqual({
      action: "replay",
      subgraph: "bns-names",
      table: "names",
      row: { _id: 3, _tx_id: "0x1", _block_height: "9", fqn: "a.btc" },
      tx_id: "0x1",
      block_height: 9,
      index_block_hash: "0xib",
      is_replay: true,
    });
  });
});
