/**
 * Inclusion proofs for `GET /v1/index/transactions/:tx_id/proof` (SPEC.md "Index and Streams
 * routes"; tree in runtime/chain/merkle.ts, client verifier and how-to in runtime/sdk/).
 *
 * The observer payload carries no `tx_merkle_root`, so the root is recomputed from the txids
 * stored for the block: the block's own transactions in tx_index order, leaving out
 * Bitcoin-originated operations (they have no proof: 404) and transactions a pre-Nakamoto
 * anchored block confirmed from a microblock stream. A microblock transaction is proven against
 * its microblock's tree instead (the microblock's transactions in order; the response names the
 * microblock). A client that wants more than self-consistency compares `merkle.root` with the
 * header's `tx_merkle_root` from a node it trusts (runtime/sdk/README-proof.md).
 */
import type { Queryable } from "../../db/types.js";
import { notFound } from "../../internal/errors.js";
import { merkleProof } from "../../chain/merkle.js";
import type { TxMerkleProof } from "../../sdk/verify-proof.js";

export interface TxProofJson {
  tx_id: string;
  tx_index: number;
  block: { index_block_hash: string; block_hash: string; block_height: number; burn_block_height: number };
  /** Only for a transaction confirmed from a microblock stream: the tree it is proven against. */
  microblock?: { microblock_hash: string; microblock_sequence: number | null };
  merkle: TxMerkleProof;
  verify: string;
}

/** The one-line how-to shipped in every proof. */
export const VERIFY_HOW_TO =
  "h = SHA-512/256(0x00 || merkle.leaf); for each merkle.path step: h = SHA-512/256(0x01 || step.hash || h) if step.position is " +
  '"left", else SHA-512/256(0x01 || h || step.hash); h must equal merkle.root, and merkle.root must equal the tx_merkle_root of ' +
  "block.index_block_hash as served by a stacks-node you trust (GET /v3/blocks/{index_block_hash}); verifyTxProof in the SDK " +
  "(runtime/sdk/verify-proof.ts) does all of this.";

export const FIND_TX_SQL = `SELECT t.index_block_hash, t.tx_index, t.burnchain_op, t.microblock_hash, t.microblock_sequence,
       b.block_hash, b.block_height, b.burn_block_height
  FROM chain.transactions t
  JOIN chain.blocks b ON b.index_block_hash = t.index_block_hash
 WHERE t.tx_id = $1 AND t.canonical
 ORDER BY b.block_height DESC
 LIMIT 1`;

export const TREE_TXIDS_SQL = `SELECT t.tx_id FROM chain.transactions t
 WHERE t.index_block_hash = $1 AND NOT t.burnchain_op AND t.microblock_hash IS NOT DISTINCT FROM $2
 ORDER BY t.tx_index`;

/** The proof of a canonical transaction; throws 404 TX_NOT_FOUND when there is none to give. */
export async function readTxProof(q: Queryable, txId: string): Promise<TxProofJson> {
  const found = await q.query<{
    index_block_hash: string;
    tx_index: number;
    burnchain_op: boolean;
    microblock_hash: string | null;
    microblock_sequence: number | null;
    block_hash: string;
    block_height: number;
    burn_block_height: number;
  }>(FIND_TX_SQL, [txId]);
  const tx = found.rows[0];
  if (!tx) throw notFound("TX_NOT_FOUND", `no canonical transaction ${txId}`, { tx_id: txId });
  if (tx.burnchain_op) {
    throw notFound(
      "TX_NOT_FOUND",
      `${txId} is a Bitcoin-originated operation: it is not a transaction of the Stacks block's Merkle tree and has no proof`,
      { tx_id: txId, reason: "burnchain_op" },
    );
  }
  const { rows } = await q.query<{ tx_id: string }>(TREE_TXIDS_SQL, [tx.index_block_hash, tx.microblock_hash]);
  const txids = rows.map((r) => r.tx_id);
  const index = txids.indexOf(txId);
  if (index < 0) throw new Error(`internal: ${txId} missing from its own block's tree`);
  return {
    tx_id: txId,
    tx_index: Number(tx.tx_index),
    block: {
      index_block_hash: tx.index_block_hash,
      block_hash: tx.block_hash,
      block_height: Number(tx.block_height),
      burn_block_height: Number(tx.burn_block_height),
    },
    ...(tx.microblock_hash === null
      ? {}
      : {
          microblock: {
            microblock_hash: tx.microblock_hash,
            microblock_sequence: tx.microblock_sequence === null ? null : Number(tx.microblock_sequence),
          },
        }),
    merkle: merkleProof(txids, index),
    verify: VERIFY_HOW_TO,
  };
}
