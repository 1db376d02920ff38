/**
 * Stored blocks keep their matured miner rewards (runtime/chain/block-store.ts, migration 6), so
 * replaying stored blocks (a reorg switch, a backfill or reindex) offers the same `miner_reward`
 * sources as live ingestion; a block stored before migration 6 loads with none. Both drivers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertBlockRows, loadBlock } from "../../../runtime/chain/block-store.js";
import type { MaturedMinerReward } from "../../../runtime/chain/types.js";
import { CORE_MIGRATIONS, migrate } from "../../../runtime/db/migrate.js";
import { readCanonicalRange } from "../../../runtime/subgraphs/block-reader.js";
import { type TestDb, TEST_DB_KIND, createTestDb } from "../../support/db.js";
import { block, tx } from "../../support/decoded-chain.js";

const hash = (byte: string) => `0x${byte.repeat(32)}`;

const REWARDS: MaturedMinerReward[] = [
  {
    recipient: "SP2KVQZA2FQNH90SNC9VQQQQH5ZWYANC08EZQQ14",
    miner_address: "SP2KVQZA2FQNH90SNC9VQQQQH5ZWYANC08EZQQ14",
    coinbase_amount: "1000000000",
    tx_fees_anchored: "7337186",
    tx_fees_streamed_confirmed: "0",
    tx_fees_streamed_produced: "340282366920938463463374607431768211455",
    from_stacks_block_hash: hash("9f"),
    from_index_consensus_hash: hash("73"),
  },
  {
    recipient: "SP000000000000000000002Q6VF78.alt-recipient",
    miner_address: null,
    coinbase_amount: "0",
    tx_fees_anchored: "0",
    tx_fees_streamed_confirmed: "1116",
    tx_fees_streamed_produced: "0",
    from_stacks_block_hash: null,
    from_index_consensus_hash: null,
  },
];

describe(`stored miner rewards on ${TEST_DB_KIND}`, () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  const sponsored = tx({ txId: hash("a1"), txIndex: 0, fee: "180", sponsor: "SP3SPONSOR" });
  const stored = (height: number, maturedMinerRewards: MaturedMinerReward[]) =>
    block([sponsored], [], height, {
      indexBlockHash: hash(String(height).padStart(2, "0")),
      parentIndexBlockHash: hash(String(height - 1).padStart(2, "0")),
      maturedMinerRewards,
    });

  it("a block's rewards are loaded back as stored, and the backfill reader sees them with each fee and payer", async () => {
    await t.reset();
    await insertBlockRows(t.db, stored(11, REWARDS), true);
    await insertBlockRows(t.db, stored(12, []), true);
    expect((await loadBlock(t.db, hash("11"))).maturedMinerRewards).toEqual(REWARDS);
    expect((await loadBlock(t.db, hash("12"))).maturedMinerRewards).toEqual([]);

    const read = await readCanonicalRange(t.db, 11, 12, ["tx_fee", "miner_reward"], false);
    expect(read.map((b) => b.maturedMinerRewards)).toEqual([REWARDS, []]);
    expect(read.map((b) => b.txs.map((x) => [x.fee, x.sponsor, x.sender, x.burnchainOp]))).toEqual([
      [["180", "SP3SPONSOR", "SP1SENDER", false]],
      [["180", "SP3SPONSOR", "SP1SENDER", false]],
    ]);
    // A subgraph listening to neither reads neither.
    const plain = await readCanonicalRange(t.db, 11, 12, ["stx_transfer"], false);
    expect(plain.map((b) => [b.maturedMinerRewards, b.txs])).toEqual([
      [[], []],
      [[], []],
    ]);
  });

  it("migration 6 keeps blocks stored before it, which load with no rewards", async () => {
    for (const schema of ["chain", "control"]) await t.db.exec(`DROP SCHEMA ${schema} CASCADE`);
    await migrate(
      t.db,
      CORE_MIGRATIONS.filter((m) => m.version < 6),
    );
    await t.db.query(
      `INSERT INTO chain.blocks (index_block_hash, block_hash, block_height, parent_index_block_hash, parent_block_hash,
         burn_block_hash, burn_block_height, burn_block_time, block_time, tx_count, event_count, canonical)
       VALUES ($1, $1, 11, $2, $2, $1, 100, 1, 1, 0, 0, true)`,
      [hash("11"), hash("10")],
    );
    expect(
      await migrate(
        t.db,
        CORE_MIGRATIONS.filter((m) => m.version <= 6),
      ),
    ).toEqual([6]);
    const { rows } = await t.db.query<{ rewards: unknown }>(
      "SELECT matured_miner_rewards AS rewards FROM chain.blocks WHERE index_block_hash = $1",
      [hash("11")],
    );
    expect(rows).toEqual([{ rewards: null }]);
    // The readers are today's: they need the rest of the schema (the block stays as stored).
    await migrate(t.db);
    expect((await loadBlock(t.db, hash("11"))).maturedMinerRewards).toEqual([]);
    expect((await readCanonicalRange(t.db, 11, 11, ["miner_reward"], false))[0].maturedMinerRewards).toEqual([]);
  });
});
