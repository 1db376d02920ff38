/**
 * Chain rows sent as binary arrays (runtime/db/binary-array.ts, block-store.ts ParamEncoding) are
 * the rows the array literals give: every recorded observer fixture's blocks, and hand-built
 * blocks with the values an encoder can get wrong (non-ASCII and astral text, NUL, NULLs, empty
 * lists, large numbers), are inserted both ways and every stored row compared. PostgreSQL only:
 * the embedded driver keeps the literals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertBlocksRows, type ParamEncoding } from "../../../runtime/chain/block-store.js";
import { tryDecode } from "../../../runtime/chain/decode-request.js";
import type { DecodedBlock } from "../../../runtime/chain/types.js";
import { type TestDb, TEST_DB_KIND, createTestDb } from "../../support/db.js";
import { block, ev, tx } from "../../support/decoded-chain.js";
import { listObserverFixtures, newBlockBodies } from "../../support/fixtures.js";

const TABLES = [
  "chain.blocks",
  "chain.transactions",
  "chain.events",
  "chain.address_activity",
  "chain.block_execution_costs",
];

/**
 * Every stored chain row as its jsonb text (bytea as hex, numeric exact), sorted per table; less
 * what the database fills in itself (the arrival time and order of a block).
 */
async function storedRows(t: TestDb): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of TABLES) {
    const { rows } = await t.db.query<{ r: string }>(
      `SELECT (to_jsonb(x) - 'received_at' - 'received_seq')::text AS r FROM ${table} x ORDER BY 1`,
    );
    out[table] = rows.map((r) => r.r);
  }
  return out;
}

async function rowsVia(t: TestDb, blocks: readonly DecodedBlock[], encoding: ParamEncoding) {
  await t.db.exec(`TRUNCATE ${TABLES.join(", ")}`);
  // The first block at a height is canonical (one canonical block per height), others not.
  const heights = new Set<number>();
  const rows = blocks.map((b) => {
    const canonical = !heights.has(b.height);
    heights.add(b.height);
    return { block: b, canonical };
  });
  await t.db.transaction(async (q) => {
    // Several blocks per statement, as the ingestor sends them.
    for (let i = 0; i < rows.length; i += 8) await insertBlocksRows(q, rows.slice(i, i + 8), encoding);
  });
  return storedRows(t);
}

/** Each fixture's decoded blocks, a block sent twice kept once. */
function fixtureBlocks(): { name: string; blocks: DecodedBlock[] }[] {
  return listObserverFixtures().map((fixture) => {
    const byHash = new Map<string, DecodedBlock>();
    for (const body of newBlockBodies(fixture)) {
      const decoded = tryDecode("/new_block", body);
      if (decoded.kind === "block" && !byHash.has(decoded.block.indexBlockHash))
        byHash.set(decoded.block.indexBlockHash, decoded.block);
    }
    return { name: fixture.name, blocks: [...byHash.values()] };
  });
}

const hash = (byte: string) => `0x${byte.repeat(32)}`;
const A = "SP2KVQZA2FQNH90SNC9VQQQQH5ZWYANC08EZQQ14";

/** Values an encoder can get wrong. */
function awkwardBlocks(): DecodedBlock[] {
  const odd = "naïve ✓ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \u0000 nul \\ back\"slash {brace} ,comma 'quote'\ttab\nline";
  const txs = [
    tx({
      txId: hash("a1"),
      txIndex: 0,
      txType: "contract_call",
      sender: A,
      sponsor: "SP3SPONSOR0000000000000000000000000000000",
      nonce: "18446744073709551615",
      fee: "340282366920938463463374607431768211455",
      contractId: `${A}.pool`,
      functionName: odd,
      functionArgs: ["0x0100000000000000000000000000000001", odd],
      memo: odd,
      result: { text: odd, n: "-170141183460469231731687303715884105728" },
      rawTx: `0x${"00ff".repeat(300)}`,
      vmError: odd,
      executionCost: { read_count: 1, read_length: 2, runtime: 2 ** 40, write_count: 0, write_length: 5 },
    }),
    tx({ txId: hash("a2"), txIndex: 1, rawResult: "0x", nonce: null, fee: null, result: null, burnchainOp: true }),
  ];
  const events = [
    ev({
      type: "print",
      txId: hash("a1"),
      contractId: `${A}.pool`,
      topic: "print",
      payload: { raw_value: "0x0d00000003616263", value: { k: odd } },
    }),
    ev({
      type: "stx_transfer",
      txId: hash("a1"),
      sender: A,
      recipient: `${A}.pool`,
      amount: "0",
      payload: { sender: A, recipient: `${A}.pool`, amount: "0", memo: "" },
    }),
    ev({ type: "ft_mint", txId: hash("a2"), txIndex: 1, committed: false, amount: "007", payload: { amount: "007" } }),
  ];
  return [
    block(txs, events, 7, {
      indexBlockHash: hash("b7"),
      blockTime: 2 ** 40,
      burnBlockTime: 2 ** 33,
      minerTxid: odd.replace("\u0000", ""), // a txid: never a NUL (text columns get no U+0000 in either form)
      maturedMinerRewards: [
        {
          recipient: A,
          coinbase_amount: "1000",
          tx_fees_anchored: "1",
          tx_fees_streamed_confirmed: "2",
          tx_fees_streamed_produced: "3",
          from_index_block_hash: hash("b1"),
        },
      ] as unknown as DecodedBlock["maturedMinerRewards"],
    }),
    block([], [], 8, { indexBlockHash: hash("b8"), parentIndexBlockHash: hash("b7") }),
  ];
}

describe.skipIf(TEST_DB_KIND !== "postgres")(`chain rows as binary arrays on ${TEST_DB_KIND}`, () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("stores awkward values exactly as the array literals do", async () => {
    const blocks = awkwardBlocks();
    const text = await rowsVia(t, blocks, "text");
    expect(text["chain.transactions"]).toHaveLength(2);
    expect(text["chain.events"]).toHaveLength(3);
    expect(await rowsVia(t, blocks, "binary")).toEqual(text);
  });

  const fixtures = fixtureBlocks().filter((f) => f.blocks.length > 0);
  it.skipIf(fixtures.length === 0)(
    "stores every recorded fixture's blocks exactly as the array literals do",
    async () => {
      let events = 0;
      for (const { name, blocks } of fixtures) {
        const text = await rowsVia(t, blocks, "text");
        events += text["chain.events"].length;
        expect({ name, rows: await rowsVia(t, blocks, "binary") }).toEqual({ name, rows: text });
      }
      expect(events).toBeGreaterThan(0);
    },
    120_000,
  );
});
