/**
 * The Stacks transaction Merkle tree (SPEC.md `GET /v1/index/transactions/:tx_id/proof`): the
 * root a block header commits to as `tx_merkle_root`, and inclusion proofs against it. Pure.
 *
 * Construction (as stacks-core builds `tx_merkle_root`; confirmed on every block in
 * `fixtures/raw-blocks`, see test/unit/chain/merkle.test.ts):
 * - leaves are the block's txids in block order — each the 32-byte SHA-512/256 of the
 *   consensus-serialized transaction — hashed as SHA-512/256(0x00 ‖ txid);
 * - inner nodes are SHA-512/256(0x01 ‖ left ‖ right);
 * - any level with an odd number of hashes duplicates its last hash before pairing. This includes
 *   the leaf level of a one-transaction block, so its root is H(0x01 ‖ leaf ‖ leaf), not the leaf
 *   hash (the 1-transaction fixture blocks confirm it).
 * - Bitcoin-originated operations are not block transactions: leave them out of `txids`.
 *
 * Empty block: no tree. `merkleRoot([])` returns 32 zero bytes, the empty-tree root stacks-core
 * uses (a Nakamoto block always carries at least one transaction, so this never reaches a real
 * header and is not fixture-confirmed); `merkleProof` on an empty list throws (nothing to prove).
 *
 * Hashes are 0x-prefixed lowercase hex on output; inputs may omit the prefix.
 * The proof shape and the leaf and node hashing are the SDK's (runtime/sdk/verify-proof.ts, the
 * standalone module clients verify with): one definition of the format for both sides.
 */
import { type MerklePathStep, merkleLeafHash, merkleNodeHash, type TxMerkleProof } from "../sdk/verify-proof.js";

export type { MerklePathStep, TxMerkleProof };

export const EMPTY_MERKLE_ROOT = `0x${"00".repeat(32)}`;

/** tx_merkle_root of a block whose transactions have these txids, in block order. */
export function merkleRoot(txids: readonly string[]): string {
  if (txids.length === 0) return EMPTY_MERKLE_ROOT;
  const levels = buildLevels(txids.map((t, i) => parseHash(t, `txids[${i}]`)));
  return toHex(levels[levels.length - 1][0]);
}

/** Inclusion proof for `txids[index]`. Throws RangeError when index is not a position in txids. */
export function merkleProof(txids: readonly string[], index: number): TxMerkleProof {
  if (!Number.isInteger(index) || index < 0 || index >= txids.length) {
    throw new RangeError(`index ${index} is not a transaction position in a block of ${txids.length}`);
  }
  const leaves = txids.map((t, i) => parseHash(t, `txids[${i}]`));
  const levels = buildLevels(leaves);
  const path: MerklePathStep[] = [];
  let position = index;
  // Every level but the root contributes the sibling of the running node.
  for (let depth = 0; depth < levels.length - 1; depth++) {
    const isRight = position % 2 === 1;
    path.push({
      hash: toHex(levels[depth][isRight ? position - 1 : position + 1]),
      position: isRight ? "left" : "right",
    });
    position = Math.floor(position / 2);
  }
  return { root: toHex(levels[levels.length - 1][0]), leaf: toHex(leaves[index]), index, path };
}

/**
 * All levels from the leaf hashes (index 0) to the root (last, length 1). Levels below the root
 * are stored already evened out, so the sibling of position i is always present.
 */
function buildLevels(txids: Uint8Array[]): Uint8Array[][] {
  const levels: Uint8Array[][] = [];
  let level = txids.map(merkleLeafHash);
  for (;;) {
    if (level.length % 2 === 1) level.push(level[level.length - 1]);
    levels.push(level);
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(merkleNodeHash(level[i], level[i + 1]));
    if (next.length === 1) {
      levels.push(next);
      return levels;
    }
    level = next;
  }
}

function parseHash(hex: string, what: string): Uint8Array {
  const body = hex.replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]{64}$/.test(body)) throw new TypeError(`${what} is not 32 bytes of hex: ${JSON.stringify(hex)}`);
  return new Uint8Array(Buffer.from(body, "hex"));
}

function toHex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes).toString("hex")}`;
}
