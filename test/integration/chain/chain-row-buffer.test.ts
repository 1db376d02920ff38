/**
 * A transaction's chain rows written several blocks to a statement (runtime/chain/chain-row-buffer.ts):
 * every row lands with its own block's hash, height and canonical flag; a statement sent through
 * the buffer sees every block added before it; a refused insert is the error reported, not the
 * "transaction is aborted" of the statements after it. Both drivers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBlock } from "../../../runtime/chain/block-store.js";
import { createChainRowBuffer } from "../../../runtime/chain/chain-row-buffer.js";
import type { DecodedBlock } from "../../../runtime/chain/types.js";
import { type TestDb, TEST_DB_KIND, createTestDb } from "../../support/db.js";
import { block, ev, tx } from "../../support/decoded-chain.js";

const hash = (byte: string) => `0x${byte.repeat(32)}`;
const A = "SP2KVQZA2FQNH90SNC9VQQQQH5ZWYANC08EZQQ14";
const B = "SP3SPONSOR0000000000000000000000000000000";

/** Block `height` with `txCount` transactions of two events each, the amounts telling them apart. */
function numbered(height: number, txCount: number): DecodedBlock {
  const txs = Array.from({ length: txCount }, (_, i) =>
    tx({ txId: hash(`${height}${i}`.padStart(2, "0").slice(-2)), txIndex: i, fee: String(100 * height + i) }),
  );
  const events = txs.flatMap((x) =>
    [1, 2].map((k) =>
      ev({
        type: "stx_transfer",
        txId: x.txId,
        txIndex: x.txIndex,
        sender: A,
        recipient: B,
        amount: String(1000 * height + 10 * x.txIndex + k),
        payload: { sender: A, recipient: B, amount: String(1000 * height + 10 * x.txIndex + k) },
      }),
    ),
  );
  return block(txs, events, height, {
    indexBlockHash: hash(`b${height}`),
    parentIndexBlockHash: hash(`b${height - 1}`),
  });
}

describe(`chain row buffer on ${TEST_DB_KIND}`, () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("stores each block's rows under its own hash, height and flag; later statements see earlier blocks", async () => {
    await t.reset();
    const blocks = [numbered(1, 2), numbered(2, 0), numbered(3, 3)];
    const canonical = [true, false, true];
    const seen = await t.db.transaction(async (q) => {
      const rows = createChainRowBuffer(q);
      rows.add(blocks[0], canonical[0]);
      rows.add(blocks[1], canonical[1]);
      const { rows: counted } = await rows.queryable.query<{ n: string }>("SELECT count(*) AS n FROM chain.blocks");
      rows.add(blocks[2], canonical[2]);
      await rows.drain();
      return Number(counted[0].n);
    });
    expect(seen).toBe(2);

    for (const [i, b] of blocks.entries()) {
      const loaded = await loadBlock(t.db, b.indexBlockHash);
      expect(loaded.height).toBe(b.height);
      expect(loaded.txs.map((x) => [x.txId, x.txIndex, x.fee])).toEqual(b.txs.map((x) => [x.txId, x.txIndex, x.fee]));
      expect(loaded.events.map((e) => [e.eventIndex, e.txId, e.amount])).toEqual(
        b.events.map((e) => [e.eventIndex, e.txId, e.amount]),
      );
      for (const table of ["chain.blocks", "chain.transactions", "chain.events"]) {
        const { rows } = await t.db.query<{ canonical: boolean; block_height: number }>(
          `SELECT DISTINCT canonical, block_height FROM ${table} WHERE index_block_hash = $1`,
          [b.indexBlockHash],
        );
        const expected =
          table === "chain.blocks" || b.txs.length > 0 ? [{ canonical: canonical[i], block_height: b.height }] : [];
        expect(rows, `${table} of block ${b.height}`).toEqual(expected);
      }
    }
    // Balance rows (address-activity.ts) carry their block's height and flag too.
    const { rows: activity } = await t.db.query<{ index_block_hash: string; block_height: number; canonical: boolean }>(
      "SELECT DISTINCT index_block_hash, block_height, canonical FROM chain.address_activity ORDER BY block_height",
    );
    expect(activity).toEqual([
      { index_block_hash: hash("b1"), block_height: 1, canonical: true },
      { index_block_hash: hash("b3"), block_height: 3, canonical: true },
    ]);
  });

  it("reports the refused insert itself, from the next statement and from drain", async () => {
    await t.reset();
    await t.db.transaction(async (q) => {
      const rows = createChainRowBuffer(q);
      rows.add(numbered(1, 1), true);
      await rows.drain();
    });
    // From the next statement: the insert's unique violation (23505), not 25P02 (transaction aborted).
    await expect(
      t.db.transaction(async (q) => {
        const rows = createChainRowBuffer(q);
        rows.add(numbered(1, 1), true);
        await rows.queryable.query("SELECT 1");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    // From drain, when no statement follows.
    await expect(
      t.db.transaction(async (q) => {
        const rows = createChainRowBuffer(q);
        rows.add(numbered(1, 1), true);
        await rows.drain();
      }),
    ).rejects.toMatchObject({ code: "23505" });
    const { rows: stored } = await t.db.query<{ n: string }>("SELECT count(*) AS n FROM chain.blocks");
    expect(Number(stored[0].n)).toBe(1);
  });
});
