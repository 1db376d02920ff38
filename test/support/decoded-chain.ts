/** Hand-built decoded chain data (DecodedTx / DecodedEvent / DecodedBlock) for unit tables. */
import type { DecodedBlock, DecodedEvent, DecodedTx } from "../../runtime/chain/types.js";

export function tx(over: Partial<DecodedTx> = {}): DecodedTx {
  return {
    txId: "0xaa",
    txIndex: 0,
    txType: "token_transfer",
    status: "success",
    sender: "SP1SENDER",
    sponsor: null,
    nonce: "0",
    fee: "1",
    contractId: null,
    functionName: null,
    functionArgs: null,
    recipient: null,
    amount: null,
    memo: null,
    rawResult: "0x0703",
    result: { ok: true },
    rawTx: "0x00",
    burnchainOp: false,
    microblockSequence: null,
    microblockHash: null,
    contractInterface: null,
    vmError: null,
    ...over,
  };
}

export function ev(over: Partial<DecodedEvent> & Pick<DecodedEvent, "type">): DecodedEvent {
  return {
    eventIndex: 0,
    nodeEventIndex: 0,
    txId: "0xaa",
    txIndex: 0,
    committed: true,
    contractId: null,
    assetIdentifier: null,
    sender: null,
    recipient: null,
    amount: null,
    topic: null,
    payload: {},
    ...over,
  };
}

/** Events are renumbered 0.. unless `over.events` gives them as they are. */
export function block(
  txs: DecodedTx[],
  events: DecodedEvent[],
  height = 10,
  over: Partial<DecodedBlock> = {},
): DecodedBlock {
  return {
    indexBlockHash: `0xib${height}`,
    blockHash: `0xbh${height}`,
    height,
    parentIndexBlockHash: "0xparent",
    parentBlockHash: "0xparentb",
    burnBlockHash: "0xburn",
    burnBlockHeight: 100,
    burnBlockTime: 1,
    blockTime: 1,
    minerTxid: null,
    txs,
    events: events.map((e, i) => ({ ...e, eventIndex: i })),
    maturedMinerRewards: [],
    ...over,
  };
}
