/**
 * runtime/chain/merkle.ts: hand-made trees against a literal, independent computation, and every
 * block of the raw-block fixtures against its header's tx_merkle_root (SPEC.md proof route).
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { EMPTY_MERKLE_ROOT, merkleProof, merkleRoot } from "../../../runtime/chain/merkle.js";
import { haveRawBlocks, loadAllFixtureBlocks } from "../../support/raw-block-fixtures.js";

// The independent computation, spelled out on hex strings.
const sha512_256 = (hex: string) => createHash("sha512-256").update(Buffer.from(hex, "hex")).digest("hex");
const leaf = (txid: string) => sha512_256(`00${txid}`);
const node = (left: string, right: string) => sha512_256(`01${left}${right}`);

const t = [0, 1, 2, 3, 4].map((i) => sha512_256(Buffer.from(`tx${i}`).toString("hex")));
const [L0, L1, L2, L3, L4] = t.map(leaf);

describe("merkleRoot on hand-made trees", () => {
  it("1 leaf: the leaf is paired with itself", () => {
    expect(merkleRoot(t.slice(0, 1))).toBe(`0x${node(L0, L0)}`);
    expect(merkleRoot(t.slice(0, 1))).not.toBe(`0x${L0}`);
  });

  it("2 leaves", () => {
    expect(merkleRoot(t.slice(0, 2))).toBe(`0x${node(L0, L1)}`);
  });

  it("3 leaves: the third leaf is duplicated", () => {
    expect(merkleRoot(t.slice(0, 3))).toBe(`0x${node(node(L0, L1), node(L2, L2))}`);
  });

  it("4 leaves", () => {
    expect(merkleRoot(t.slice(0, 4))).toBe(`0x${node(node(L0, L1), node(L2, L3))}`);
  });

  it("5 leaves: duplication on the leaf level and again one level up", () => {
    const A = node(L0, L1);
    const B = node(L2, L3);
    const C = node(L4, L4);
    const D = node(A, B);
    const E = node(C, C);
    expect(merkleRoot(t)).toBe(`0x${node(D, E)}`);
  });

  it("accepts txids with or without 0x, in either case", () => {
    expect(merkleRoot(t.map((x) => `0x${x.toUpperCase()}`))).toBe(merkleRoot(t));
  });

  it("empty block: 32 zero bytes", () => {
    expect(merkleRoot([])).toBe(EMPTY_MERKLE_ROOT);
    expect(EMPTY_MERKLE_ROOT).toBe(`0x${"00".repeat(32)}`);
  });

  it("rejects txids that are not 32 bytes of hex", () => {
    expect(() => merkleRoot(["abcd"])).toThrow(TypeError);
    expect(() => merkleRoot([`${"zz".repeat(32)}`])).toThrow(TypeError);
  });
});

describe("merkleProof on hand-made trees", () => {
  it("5 leaves, index 4: path is L4 (right), C (right), D (left)", () => {
    const A = node(L0, L1);
    const B = node(L2, L3);
    const C = node(L4, L4);
    const D = node(A, B);
    expect(merkleProof(t, 4)).toEqual({
      root: `0x${node(D, node(C, C))}`,
      leaf: `0x${t[4]}`,
      index: 4,
      path: [
        { hash: `0x${L4}`, position: "right" },
        { hash: `0x${C}`, position: "right" },
        { hash: `0x${D}`, position: "left" },
      ],
    });
  });

  it("3 leaves, index 1: L0 (left), then the duplicated pair (right)", () => {
    expect(merkleProof(t.slice(0, 3), 1).path).toEqual([
      { hash: `0x${L0}`, position: "left" },
      { hash: `0x${node(L2, L2)}`, position: "right" },
    ]);
  });

  it("1 leaf: a single step with the leaf's own hash on the right", () => {
    expect(merkleProof(t.slice(0, 1), 0)).toEqual({
      root: `0x${node(L0, L0)}`,
      leaf: `0x${t[0]}`,
      index: 0,
      path: [{ hash: `0x${L0}`, position: "right" }],
    });
  });

  it("every proof's root is merkleRoot, for 1..40 leaves", () => {
    const ids = Array.from({ length: 40 }, (_, i) => sha512_256(Buffer.from(`id${i}`).toString("hex")));
    for (let n = 1; n <= ids.length; n++) {
      const root = merkleRoot(ids.slice(0, n));
      for (let i = 0; i < n; i++) expect(merkleProof(ids.slice(0, n), i).root).toBe(root);
    }
  });

  it("rejects an index outside the block, and an empty block", () => {
    expect(() => merkleProof(t, 5)).toThrow(RangeError);
    expect(() => merkleProof(t, -1)).toThrow(RangeError);
    expect(() => merkleProof(t, 1.5)).toThrow(RangeError);
    expect(() => merkleProof([], 0)).toThrow(RangeError);
  });
});

describe.skipIf(!haveRawBlocks)("merkleRoot on the raw-block fixtures", () => {
  const blocks = loadAllFixtureBlocks();

  it("covers all 26 fixture blocks, with 1-, 2- and 4-transaction blocks among them", () => {
    expect(blocks).toHaveLength(26);
    expect(new Set(blocks.map((b) => b.block.txs.length))).toEqual(new Set([1, 2, 4]));
  });

  for (const { label, block, statedTxMerkleRoot } of blocks) {
    it(`${label}: recomputed root equals the header's tx_merkle_root`, () => {
      const root = merkleRoot(block.txs.map((tx) => tx.txid));
      expect(root).toBe(block.header.txMerkleRoot);
      if (statedTxMerkleRoot) expect(root).toBe(statedTxMerkleRoot);
    });
  }

  it("a 1-transaction block's root is H(0x01 ‖ leaf ‖ leaf), not the leaf hash", () => {
    const single = blocks.find((b) => b.block.txs.length === 1);
    if (!single) throw new Error("no 1-transaction fixture block");
    const txid = single.block.txs[0].txid.slice(2);
    expect(single.block.header.txMerkleRoot).toBe(`0x${node(leaf(txid), leaf(txid))}`);
  });
});
