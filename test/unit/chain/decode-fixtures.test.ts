/**
 * Every recorded `/new_block` and `/new_burn_block` body in ../shared/fixtures/observer decodes,
 * and agrees with what this test reads from the raw JSON itself (DESIGN.md §2; fixtures README).
 */
import { deserializeTransaction } from "@stacks/transactions";
import { describe, expect, it } from "vitest";
import { decodeNewBlock, decodeNewBurnBlock } from "../../../runtime/chain/decode/index.js";
import type { DecodedBlock } from "../../../runtime/chain/types.js";
import { hasFixtures, listObserverFixtures, newBlockBodies, readReplayTsv } from "../../support/fixtures.js";
import { NODE_TYPE_TO_OURS, PAYLOAD_TYPE_NAMES } from "../../support/chain-model.js";

// biome-ignore lint/suspicious/noExplicitAny: raw node JSON, read field by field below
type Raw = any;

const C32_ADDRESS = /^S[PMTN][0-9A-HJKMNP-TV-Z]{26,40}$/;

function count<T>(items: T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of items) out[key(t)] = (out[key(t)] ?? 0) + 1;
  return out;
}

/** What one block body must decode to, read straight from the raw JSON. */
function checkBlock(raw: Raw, block: DecodedBlock): void {
  const txIndexOf = new Map<string, number>(raw.transactions.map((t: Raw) => [t.txid.toLowerCase(), t.tx_index]));
  const rawTxs = [...raw.transactions].sort((a: Raw, b: Raw) => a.tx_index - b.tx_index);
  const indexed = raw.events.filter((e: Raw) => e.type in NODE_TYPE_TO_OURS);

  expect(block.indexBlockHash).toBe(raw.index_block_hash);
  expect(block.height).toBe(raw.block_height);
  expect(block.parentIndexBlockHash).toBe(raw.parent_index_block_hash);
  expect(block.burnBlockHeight).toBe(raw.burn_block_height);
  expect(block.blockTime).toBe(typeof raw.block_time === "number" ? raw.block_time : raw.burn_block_time);

  // transactions: count, ids (poison-microblock and burn-op txids kept as sent), order, types
  expect(block.txs).toHaveLength(raw.transactions.length);
  expect(block.txs.map((t) => t.txId)).toEqual(rawTxs.map((t: Raw) => t.txid));
  expect(block.txs.map((t) => t.txIndex)).toEqual(rawTxs.map((t: Raw) => t.tx_index));
  for (const [i, t] of block.txs.entries()) {
    const r = rawTxs[i];
    expect(t.rawTx).toBe(r.raw_tx);
    expect(t.status).toBe(r.status);
    expect(t.rawResult).toBe(r.raw_result);
    expect(t.contractInterface).toEqual(r.contract_interface ?? r.contract_abi ?? null);
    expect(t.vmError).toBe(r.vm_error ?? null);
    expect(t.microblockSequence).toBe(r.microblock_sequence ?? null);
    if (r.raw_tx === "0x00") {
      expect(t).toMatchObject({ txType: "burnchain_op", burnchainOp: true, nonce: null });
      const own = raw.events
        .filter((e: Raw) => e.txid === r.txid)
        .sort((a: Raw, b: Raw) => a.event_index - b.event_index);
      const first = own[0]?.[own[0].type];
      expect(t.sender).toBe(first?.sender ?? first?.locked_address ?? null);
      continue;
    }
    const wire = deserializeTransaction(r.raw_tx.slice(2));
    expect(t.txType).toBe(PAYLOAD_TYPE_NAMES[wire.payload.payloadType]);
    expect(t.burnchainOp).toBe(false);
    expect(t.sender).toMatch(C32_ADDRESS);
    // the network of the address follows the tx version byte
    expect(t.sender?.[1]).toMatch(r.raw_tx.startsWith("0x00") ? /[PM]/ : /[TN]/);
    expect(t.nonce).toBe(wire.auth.spendingCondition.nonce.toString());
    if (t.txType === "contract_call") {
      // args are the tail of the raw tx, byte for byte
      expect(r.raw_tx.endsWith((t.functionArgs ?? []).map((a) => a.slice(2)).join(""))).toBe(true);
      expect(t.contractId).toMatch(/^S[PMTN][0-9A-Z]+\.[a-zA-Z][\w-]*$/);
    }
    if (t.txType === "smart_contract" || t.txType === "versioned_smart_contract") {
      expect(t.contractId?.startsWith(`${t.sender}.`)).toBe(true);
    }
    // a successful transfer's own stx_transfer event names the same parties and amount (some
    // recordings filtered events out: then there is nothing to compare)
    const ev = raw.events.find((e: Raw) => e.txid === r.txid && e.type === "stx_transfer_event");
    if (t.txType === "token_transfer" && r.status === "success" && ev) {
      expect([t.sender, t.recipient, t.amount]).toEqual([
        ev.stx_transfer_event.sender,
        ev.stx_transfer_event.recipient,
        ev.stx_transfer_event.amount,
      ]);
      expect(t.memo).toMatch(/^0x[0-9a-f]{68}$/);
    }
  }

  // events: per-type counts, skipped types, dense ordinal in (tx_index, event_index) order
  expect(count(block.events, (e) => e.type)).toEqual(count(indexed, (e: Raw) => NODE_TYPE_TO_OURS[e.type]));
  expect(block.events.map((e) => e.eventIndex)).toEqual(block.events.map((_, i) => i));
  const expectedOrder = [...indexed]
    .sort(
      (a: Raw, b: Raw) =>
        (txIndexOf.get(a.txid) as number) - (txIndexOf.get(b.txid) as number) || a.event_index - b.event_index,
    )
    .map((e: Raw) => `${e.txid}:${e.event_index}:${e.committed}`);
  expect(block.events.map((e) => `${e.txId}:${e.nodeEventIndex}:${e.committed}`)).toEqual(expectedOrder);

  const rawByKey = new Map(indexed.map((e: Raw) => [`${e.txid}:${e.event_index}`, e]));
  for (const e of block.events) {
    const r = rawByKey.get(`${e.txId}:${e.nodeEventIndex}`) as Raw;
    const b = r[r.type];
    expect(e.txIndex).toBe(txIndexOf.get(r.txid));
    if (e.type.startsWith("stx_")) {
      expect(e.assetIdentifier).toBe("STX");
      expect(e.contractId).toBeNull();
      expect(e.amount).toBe(b.amount ?? b.locked_amount);
      expect(e.sender).toBe(b.sender ?? b.locked_address ?? null);
      expect(e.recipient).toBe(b.recipient ?? null);
    } else if (e.type === "print") {
      expect([e.contractId, e.topic, e.assetIdentifier]).toEqual([b.contract_identifier, b.topic, null]);
      expect(e.payload.raw_value).toBe(b.raw_value);
    } else {
      expect(e.assetIdentifier).toBe(b.asset_identifier);
      expect(e.contractId).toBe(b.asset_identifier.split("::")[0]);
      expect([e.sender, e.recipient]).toEqual([b.sender ?? null, b.recipient ?? null]);
      if (e.type.startsWith("ft_")) expect(e.amount).toBe(b.amount);
      else expect(e.payload.raw_value).toBe(b.raw_value);
    }
    // every recorded value decodes except the hand-made invalid "0x"
    if ("raw_value" in b) {
      expect(e.payload.decode_error !== undefined).toBe(b.raw_value === "0x");
      expect("value" in e.payload).toBe(true);
      if (b.raw_value === "0x") expect(e.payload.value).toBeNull();
    }
  }
}

/** File totals stated in ../shared/fixtures/README.md (independent of this test's own reading).
 * Only files whose totals are all `/new_block` content (no `/new_microblocks` rows). */
const DOCUMENTED: Record<string, { txs: number; txTypes?: Record<string, number>; events?: Record<string, number> }> = {
  "stacks-blockchain-api/poisonmicroblock.tsv": {
    txs: 126,
    events: {
      ft_transfer: 326,
      ft_mint: 314,
      ft_burn: 314,
      print: 74,
      stx_transfer: 126,
      stx_burn: 10,
      nft_mint: 4,
      nft_transfer: 2,
    },
  },
  "stacks-blockchain-api/balance-reorg.tsv.gz": {
    txs: 925,
    txTypes: { contract_call: 781, token_transfer: 129, smart_contract: 7, coinbase: 8 },
    events: {
      print: 1004,
      stx_transfer: 744,
      ft_transfer: 402,
      ft_mint: 330,
      nft_mint: 159,
      nft_transfer: 151,
      ft_burn: 52,
      stx_burn: 40,
      nft_burn: 6,
    },
  },
};

/** Print topics of the sBTC registry fixtures (README table). */
const SBTC_TOPICS: Record<string, string> = {
  "completed-deposit-event.json": "completed-deposit",
  "completed-deposit-testnet-event.json": "completed-deposit",
  "withdrawal-create-event.json": "withdrawal-create",
  "withdrawal-accept-event.json": "withdrawal-accept",
  "withdrawal-reject-event.json": "withdrawal-reject",
  "rotate-keys-event.json": "key-rotation",
  "rotate-keys-and-invalid-event.json": "key-rotation",
};

const fixtures = listObserverFixtures();

describe.skipIf(!hasFixtures)("observer fixtures", () => {
  it("are all found", () => {
    expect(fixtures.filter((f) => f.kind === "tsv")).toHaveLength(9);
    expect(fixtures.filter((f) => f.kind === "json")).toHaveLength(14);
  });

  describe.each(fixtures)("$name", (fixture) => {
    const bodies = newBlockBodies(fixture);

    it(`decodes every /new_block body (${bodies.length})`, () => {
      expect(bodies.length).toBeGreaterThan(0);
      const blocks: DecodedBlock[] = [];
      for (const text of bodies) {
        const raw = JSON.parse(text);
        const block = decodeNewBlock(raw);
        checkBlock(raw, block);
        blocks.push(block);
      }
      const doc = DOCUMENTED[fixture.name];
      if (doc) {
        const txs = blocks.flatMap((b) => b.txs);
        expect(txs).toHaveLength(doc.txs);
        if (doc.txTypes) expect(count(txs, (t) => t.txType)).toEqual(doc.txTypes);
        if (doc.events)
          expect(
            count(
              blocks.flatMap((b) => b.events),
              (e) => e.type,
            ),
          ).toEqual(doc.events);
      }
      if (fixture.name === "stacks-blockchain-api/poisonmicroblock.tsv") {
        const poison = blocks.flatMap((b) => b.txs).filter((t) => t.txType === "poison_microblock");
        expect(poison).toHaveLength(20);
      }
      const topic = SBTC_TOPICS[fixture.name.replace(/^sbtc\//, "")];
      if (fixture.name.startsWith("sbtc/")) {
        const valid = blocks[0].events.filter((e) => e.type === "print" && e.payload.value !== null);
        expect(valid).toHaveLength(1);
        expect(valid[0].payload.value).toMatchObject({ topic });
      }
    });

    if (fixture.kind === "tsv") {
      it("decodes every /new_burn_block body", () => {
        for (const row of readReplayTsv(fixture.file).filter((r) => r.path === "/new_burn_block")) {
          const raw = JSON.parse(row.body);
          expect(decodeNewBurnBlock(raw)).toEqual({
            burnBlockHash: raw.burn_block_hash,
            burnBlockHeight: raw.burn_block_height,
            rewardRecipients: raw.reward_recipients,
            rewardSlotHolders: raw.reward_slot_holders,
            burnAmount: String(raw.burn_amount),
          });
        }
      });
    }
  });

  it("keeps the uncommitted events of a post-condition abort", () => {
    const fx = fixtures.find((f) => f.name.endsWith("mainnet-out-of-order-microblock.tsv"));
    const blocks = (fx ? newBlockBodies(fx) : []).map((b) => decodeNewBlock(JSON.parse(b)));
    expect(blocks.flatMap((b) => b.events).filter((e) => !e.committed)).toHaveLength(3);
  });

  it("keeps Bitcoin-originated ops with their Bitcoin txid", () => {
    const fx = fixtures.find((f) => f.name.includes("token_transfer-120-"));
    const block = decodeNewBlock(JSON.parse(fx ? newBlockBodies(fx)[0] : "null"));
    const op = block.txs.find((t) => t.burnchainOp);
    expect(op).toMatchObject({
      txId: "0xc0263c14f689ae757290f90765a28314497f52bd22b8bcbf87a12c764dd9d9be",
      txType: "burnchain_op",
      sender: "SMQ5V9ZVGN62G1X3VJNM2MF64SG6JXS8SKVNTGZQ",
    });
  });
});
