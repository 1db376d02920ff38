/**
 * Client-side verifier for transaction inclusion proofs (SPEC.md "Index and Streams routes",
 * `GET /v1/index/transactions/:tx_id/proof`). Published in the SDK, so it is standalone: it
 * imports nothing from the service runtime, only `node:crypto`.
 *
 * ## The tree
 *
 * A Stacks block commits to its transactions with `tx_merkle_root`, the root of a binary Merkle
 * tree hashed with SHA-512/256:
 *
 * - leaf  = SHA-512/256(0x00 ‖ txid)            — txid is the 32-byte SHA-512/256 of the raw tx
 * - node  = SHA-512/256(0x01 ‖ left ‖ right)
 * - a level with an odd number of hashes (the leaf level included, even when it holds a single
 *   leaf) is evened out by duplicating its last hash; the root is the first level of one hash.
 *
 * Only the block's own transactions are leaves, in block order. Bitcoin-originated operations
 * (stack-stx, transfer-stx, … sent on Bitcoin) show up in the node's event stream with txids but
 * are not part of the block and have no proof.
 *
 * ## How a client verifies a proof
 *
 * 1. Recompute the root: start from `SHA-512/256(0x00 ‖ leaf)` and, for each path step, hash
 *    `0x01 ‖ step.hash ‖ current` when `step.position` is `"left"`, or `0x01 ‖ current ‖ step.hash`
 *    when it is `"right"` ({@link computeRootFromProof}).
 * 2. Check it equals `proof.root`, that `proof.leaf` is the txid you asked about, and that the
 *    path is the canonical one for `proof.index` ({@link verifyTxProof} does all three).
 * 3. Trust comes from the last step, which this service cannot do for you: compare `proof.root`
 *    with the `tx_merkle_root` of the block taken from a source you trust, e.g. any stacks-node's
 *    `GET /v3/blocks/{index_block_hash}` (raw consensus bytes; {@link txMerkleRootFromRawBlock}
 *    reads the field). Pass it as `expected.txMerkleRoot`. Without that comparison a proof only
 *    shows the service is self-consistent.
 */
import { createHash } from "node:crypto";

/** One step up the tree: the sibling hash and which side of the running hash it sits on. */
export interface MerklePathStep {
  /** 0x-prefixed hex of the 32-byte sibling hash. */
  hash: string;
  /** `"left"`: node = H(0x01 ‖ hash ‖ current); `"right"`: node = H(0x01 ‖ current ‖ hash). */
  position: "left" | "right";
}

/** The Merkle part of an inclusion proof. */
export interface TxMerkleProof {
  /** 0x-hex tx_merkle_root of the block. */
  root: string;
  /** 0x-hex txid being proven (the leaf's data; its leaf hash is SHA-512/256(0x00 ‖ txid)). */
  leaf: string;
  /** Position of the transaction in the block (0-based). */
  index: number;
  /** Sibling hashes from the leaf level up to just below the root. */
  path: MerklePathStep[];
}

/** What the caller independently knows; any field given must match the proof. */
export interface ExpectedProofValues {
  /** The txid the caller asked about (0x prefix optional). */
  txId?: string;
  /** The block's tx_merkle_root from a trusted node (0x prefix optional). */
  txMerkleRoot?: string;
}

const LEAF_PREFIX = 0x00;
const NODE_PREFIX = 0x01;
/** Far above any real block (2^32 leaves); bounds the work a hostile proof can ask for. */
const MAX_PATH_LENGTH = 32;
/** tx_merkle_root's offset in a consensus-serialized Nakamoto block: version u8, chain_length
 * u64, burn_spent u64, consensus_hash 20 bytes, parent_block_id 32 bytes. */
const TX_MERKLE_ROOT_OFFSET = 1 + 8 + 8 + 20 + 32;

/** SHA-512/256(0x00 ‖ txid): a leaf of the tree. The service builds its trees with it too. */
export function merkleLeafHash(txid: Uint8Array): Uint8Array {
  return sha512_256(Uint8Array.of(LEAF_PREFIX), txid);
}

/** SHA-512/256(0x01 ‖ left ‖ right): an inner node of the tree. */
export function merkleNodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha512_256(Uint8Array.of(NODE_PREFIX), left, right);
}

/** Recomputes the root a proof commits to (step 1 above). Throws on malformed hex. */
export function computeRootFromProof(proof: Pick<TxMerkleProof, "leaf" | "path">): string {
  let current = merkleLeafHash(hash32(proof.leaf, "leaf"));
  for (const [i, step] of proof.path.entries()) {
    const sibling = hash32(step.hash, `path[${i}].hash`);
    if (step.position === "left") current = merkleNodeHash(sibling, current);
    else if (step.position === "right") current = merkleNodeHash(current, sibling);
    else throw new TypeError(`path[${i}].position must be "left" or "right"`);
  }
  return `0x${Buffer.from(current).toString("hex")}`;
}

/**
 * True when the proof is well-formed, canonical for its index, recomputes to `proof.root`, and
 * matches every value in `expected`. Never throws: anything malformed is simply `false`.
 *
 * "Canonical" means: the index fits the path (`index < 2^path.length`), each step's position is
 * the one the index's bits dictate (bit k = 0 → sibling on the right at level k), and no
 * left-hand sibling equals the running hash. The last rule rejects proofs for phantom positions
 * in the duplicated tail of an odd level (e.g. "index 3" of a 3-transaction block), which would
 * otherwise recompute the same root, since a real duplicate is always the right-hand sibling.
 */
export function verifyTxProof(proof: TxMerkleProof, expected: ExpectedProofValues = {}): boolean {
  try {
    if (!proof || typeof proof !== "object" || !Array.isArray(proof.path)) return false;
    const { index, path } = proof;
    if (!Number.isSafeInteger(index) || index < 0 || path.length < 1 || path.length > MAX_PATH_LENGTH) return false;
    if (Math.floor(index / 2 ** path.length) !== 0) return false;

    let current = sha512_256(Uint8Array.of(LEAF_PREFIX), hash32(proof.leaf, "leaf"));
    let position = index;
    for (const [i, step] of path.entries()) {
      const sibling = hash32(step.hash, `path[${i}].hash`);
      const wanted = position % 2 === 1 ? "left" : "right";
      if (step.position !== wanted) return false;
      if (wanted === "left") {
        if (bytesEqual(sibling, current)) return false;
        current = sha512_256(Uint8Array.of(NODE_PREFIX), sibling, current);
      } else {
        current = sha512_256(Uint8Array.of(NODE_PREFIX), current, sibling);
      }
      position = Math.floor(position / 2);
    }

    if (!bytesEqual(current, hash32(proof.root, "root"))) return false;
    if (expected.txId !== undefined && !bytesEqual(hash32(expected.txId, "txId"), hash32(proof.leaf, "leaf"))) {
      return false;
    }
    if (
      expected.txMerkleRoot !== undefined &&
      !bytesEqual(hash32(expected.txMerkleRoot, "txMerkleRoot"), hash32(proof.root, "root"))
    ) {
      return false;
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads `tx_merkle_root` (0x-hex) from a consensus-serialized Nakamoto block or header, as a
 * stacks-node serves it from `GET /v3/blocks/{index_block_hash}`. The field sits at a fixed
 * offset, so no full parse is needed. Check separately that the node is one you trust.
 */
export function txMerkleRootFromRawBlock(raw: Uint8Array): string {
  if (raw.length < TX_MERKLE_ROOT_OFFSET + 32) throw new RangeError("too short to be a Nakamoto block header");
  return `0x${Buffer.from(raw.subarray(TX_MERKLE_ROOT_OFFSET, TX_MERKLE_ROOT_OFFSET + 32)).toString("hex")}`;
}

function sha512_256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash("sha512-256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/** Parses a 32-byte hash from hex, `0x` prefix optional, either case. */
function hash32(hex: unknown, what: string): Uint8Array {
  if (typeof hex !== "string") throw new TypeError(`${what} must be a hex string`);
  const body = hex.startsWith("0x") || hex.startsWith("0X") ? hex.slice(2) : hex;
  if (!/^[0-9a-fA-F]{64}$/.test(body)) throw new TypeError(`${what} must be 32 bytes of hex`);
  return new Uint8Array(Buffer.from(body, "hex"));
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
