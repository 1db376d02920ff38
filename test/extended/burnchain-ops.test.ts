/**
 * Bitcoin-originated operations a recent node describes in its `burnchain_op` field (stack-stx
 * with pox-4's signer key, delegate-stx, an aggregate key vote, an STX transfer with a memo),
 * added to a recorded mainnet block: through Hiro's client each reads back, single and listed, as
 * the Stacks transaction it stands for and validates against Hiro's schema; the call arguments'
 * Clarity bytes are written out here from the op's values. Skipped without ../shared/fixtures.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createClient } from "@stacks/blockchain-api-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../runtime/service.js";
import { type TestDb, createTestDb } from "../support/db.js";
import { FIXTURES_DIR, hasFixtures } from "../support/fixtures.js";
import { expectHiroShape } from "../support/hiro-schemas.js";
import { postObserver, startTestService } from "../support/service.js";

const BASE_BLOCK = path.join(
  FIXTURES_DIR,
  "observer/stacks-blockchain-api/single-blocks/token_transfer-51655-0x2553c7c5b49eab5a0569e5d0f14c8f15945965a51976ac6697641003533986f6.json",
);

const SENDER = { address: "SP2ZP4GJDZJ1FDHTQ963F0292PE9J9752TZJ68F21", address_version: 22 };
const DELEGATE = { address: "SP3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8QJ5SVTE", address_version: 22 };
const DELEGATE_HASH = "debc095099629badb11b9d5335e874d12f1f1d45";
/** 1BgGZ9… / bc1qw508… both hash secp256k1's generator point: 751e76e8… */
const G_HASH160 = "751e76e8199196d454941c45d1b3a323f1433bd6";
const SIGNER_KEY = `02${"ab".repeat(32)}`;
const AGGREGATE_KEY = `03${"cd".repeat(32)}`;

const OPS = [
  {
    stack_stx: {
      sender: SENDER,
      reward_addr: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
      stacked_ustx: 125_000_000_000,
      num_cycles: 3,
      burn_block_height: 726600,
      signer_key: SIGNER_KEY,
      max_amount: 200_000_000_000,
      auth_id: 7,
      burn_txid: "aa".repeat(32),
      vtxindex: 2,
    },
  },
  {
    delegate_stx: {
      sender: SENDER,
      delegate_to: DELEGATE,
      delegated_ustx: 9_000_000,
      reward_addr: [1, "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH"],
      until_burn_height: 730000,
      burn_block_height: 726600,
    },
  },
  {
    vote_for_aggregate_key: {
      sender: SENDER,
      aggregate_key: AGGREGATE_KEY,
      reward_cycle: 95,
      round: 1,
      signer_index: 4,
      signer_key: SIGNER_KEY,
      burn_block_height: 726600,
    },
  },
  {
    transfer_stx: {
      sender: SENDER,
      recipient: DELEGATE,
      transfered_ustx: 500,
      memo: "0x68656c6c6f",
      burn_block_height: 726600,
    },
  },
];

// Clarity serialization, written out: uint 0x01 + 16 bytes; buffer 0x02 + u32 length; some 0x0a;
// none 0x09; standard principal 0x05 + version + hash160; tuple 0x0c + u32 count + (name, value)…
const uint = (n: number | bigint) => `01${BigInt(n).toString(16).padStart(32, "0")}`;
const buff = (hex: string) => `02${(hex.length / 2).toString(16).padStart(8, "0")}${hex}`;
const key = (s: string) => `${s.length.toString(16).padStart(2, "0")}${Buffer.from(s).toString("hex")}`;
const poxTuple = (version: string, hash: string) =>
  `0c00000002${key("hashbytes")}${buff(hash)}${key("version")}${buff(version)}`;

const EXPECTED = [
  {
    contract_id: "SP000000000000000000002Q6VF78.pox-4",
    function_name: "stack-stx",
    args: [
      uint(125_000_000_000),
      poxTuple("04", G_HASH160),
      uint(726600),
      uint(3),
      "09",
      buff(SIGNER_KEY),
      uint(200_000_000_000),
      uint(7),
    ],
  },
  {
    contract_id: "SP000000000000000000002Q6VF78.pox",
    function_name: "delegate-stx",
    args: [uint(9_000_000), `0516${DELEGATE_HASH}`, `0a${uint(730000)}`, `0a${poxTuple("00", G_HASH160)}`],
  },
  {
    contract_id: "SP000000000000000000002Q6VF78.signers-voting",
    function_name: "vote-for-aggregate-public-key",
    args: [uint(4), buff(AGGREGATE_KEY), uint(1), uint(95)],
  },
];

describe.skipIf(!hasFixtures)("Extended view: Bitcoin operations a node describes", () => {
  let testDb: TestDb;
  let service: Service;
  let client: ReturnType<typeof createClient>;
  let block: {
    index_block_hash: string;
    block_hash: string;
    block_height: number;
    parent_index_block_hash: string;
    transactions: { txid: string; tx_index: number; raw_tx: string }[];
    events: unknown[];
  };
  const opTxIds = OPS.map(
    (_, i) =>
      `0x${String(i + 1)
        .padStart(2, "0")
        .repeat(32)}`,
  );

  beforeAll(async () => {
    block = JSON.parse(readFileSync(BASE_BLOCK, "utf8"));
    const next = Math.max(...block.transactions.map((t) => t.tx_index)) + 1;
    OPS.forEach((op, i) => {
      block.transactions.push({
        txid: opTxIds[i],
        tx_index: next + i,
        raw_tx: "0x00",
        status: "success",
        raw_result: "0x0703",
        burnchain_op: op,
        execution_cost: { runtime: 0, read_count: 0, read_length: 0, write_count: 0, write_length: 0 },
        microblock_hash: null,
        microblock_sequence: null,
        microblock_parent_hash: null,
      } as never);
    });
    testDb = await createTestDb();
    service = await startTestService(testDb.db, { EXTENDED_PORT: "0" });
    client = createClient({ baseUrl: service.extendedUrl as string });
    await postObserver(service.observerUrl, "/new_block", JSON.stringify(block));
    await service.idle();
  });
  afterAll(async () => {
    await service?.stop();
    await testDb?.drop();
  });

  it("each op reads as its Stacks transaction, by id and in the block's list", async () => {
    const { data: page } = await client.GET("/extended/v2/blocks/{height_or_hash}/transactions", {
      params: { path: { height_or_hash: block.index_block_hash }, query: { limit: 50 } },
    });
    expectHiroShape("api/transaction/get-transactions.schema.json", page);
    for (let i = 0; i < OPS.length; i++) {
      const { data } = await client.GET("/extended/v1/tx/{tx_id}", { params: { path: { tx_id: opTxIds[i] } } });
      expectHiroShape("entities/transactions/transaction.schema.json", data);
      const listed = page?.results.find((r) => r.tx_id === opTxIds[i]);
      for (const tx of [data, listed] as Record<string, unknown>[]) {
        expect(tx).toMatchObject({
          sender_address: SENDER.address,
          nonce: 0,
          fee_rate: "0",
          anchor_mode: "any",
          post_condition_mode: "allow",
          post_conditions: [],
          tx_status: "success",
        });
        const want = EXPECTED[i];
        if (want) {
          const call = tx.contract_call as {
            contract_id: string;
            function_name: string;
            function_args: { hex: string }[];
          };
          expect(tx.tx_type).toBe("contract_call");
          expect(call.contract_id).toBe(want.contract_id);
          expect(call.function_name).toBe(want.function_name);
          expect(call.function_args.map((a) => a.hex)).toEqual(want.args.map((h) => `0x${h}`));
        } else {
          expect(tx.tx_type).toBe("token_transfer");
          expect(tx.token_transfer).toEqual({
            recipient_address: DELEGATE.address,
            amount: "500",
            memo: "0x68656c6c6f",
          });
        }
      }
    }
  });

  it("the stack-stx call's arguments read as Clarity", async () => {
    const { data } = await client.GET("/extended/v1/tx/{tx_id}", { params: { path: { tx_id: opTxIds[0] } } });
    const args = (data as { contract_call: { function_args: { repr: string }[] } }).contract_call.function_args;
    expect(args.map((a) => a.repr)).toEqual([
      "u125000000000",
      `(tuple (hashbytes 0x${G_HASH160}) (version 0x04))`,
      "u726600",
      "u3",
      "none",
      `0x${SIGNER_KEY}`,
      "u200000000000",
      "u7",
    ]);
  });

  it("a reorg moves the ops with their block: an orphaned op reads non-canonical, one mined again canonical", async () => {
    // A sibling holding only the stack-stx op, then a child on it: the sibling's branch wins.
    const opTxs = block.transactions.filter((t) => t.raw_tx === "0x00" && opTxIds.includes(t.txid));
    const sibling = {
      ...block,
      index_block_hash: `0x${"e1".repeat(32)}`,
      block_hash: `0x${"e2".repeat(32)}`,
      transactions: [{ ...opTxs[0], tx_index: 0 }],
      events: [],
    };
    const child = {
      ...block,
      index_block_hash: `0x${"e3".repeat(32)}`,
      block_hash: `0x${"e4".repeat(32)}`,
      parent_index_block_hash: sibling.index_block_hash,
      parent_block_hash: sibling.block_hash,
      block_height: block.block_height + 1,
      transactions: [],
      events: [],
    };
    await postObserver(service.observerUrl, "/new_block", JSON.stringify(sibling));
    await postObserver(service.observerUrl, "/new_block", JSON.stringify(child));
    await service.idle();

    const { data: mined } = await client.GET("/extended/v1/tx/{tx_id}", { params: { path: { tx_id: opTxIds[0] } } });
    expectHiroShape("entities/transactions/transaction.schema.json", mined);
    expect(mined).toMatchObject({ canonical: true, block_hash: sibling.block_hash, tx_type: "contract_call" });
    const args = (mined as { contract_call: { function_args: { hex: string }[] } }).contract_call.function_args;
    expect(args.map((a) => a.hex)).toEqual(EXPECTED[0].args.map((h) => `0x${h}`));
    for (const id of opTxIds.slice(1)) {
      const { data } = await client.GET("/extended/v1/tx/{tx_id}", { params: { path: { tx_id: id } } });
      expectHiroShape("entities/transactions/transaction.schema.json", data);
      expect(data).toMatchObject({ canonical: false, block_hash: block.block_hash, sender_address: SENDER.address });
    }
  });
});
