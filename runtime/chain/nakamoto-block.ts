/**
 * Parser for consensus-serialized Nakamoto blocks, as a stacks-node serves them from
 * `/v3/blocks/...` and `/v3/tenures/...` (SPEC.md `GET /v1/index/transactions/:tx_id/proof`:
 * the proof's block identity and leaves come from here). Pure: bytes in, data out.
 *
 * Layout (all integers big-endian):
 *
 *   header  version u8 · chain_length u64 · burn_spent u64 · consensus_hash [20] ·
 *           parent_block_id [32] · tx_merkle_root [32] · state_index_root [32] · timestamp u64 ·
 *           miner_signature [65] · signer_signature (u32 count, [65] each) ·
 *           pox_treatment (u16 bit length, u32 byte length, bytes) ·
 *           problematic_txs (header version ≥ 1 only — Epoch 4.0: u32 count, then per entry
 *           tx_index u32 · category u8)
 *   body    u32 tx count, then each transaction consensus-serialized, back to back.
 *
 * The version byte's high bit (0x80) flags a shadow block; the low 7 bits are the header version.
 *
 * Derived values:
 * - txid = SHA-512/256 of the transaction's exact bytes in the block;
 * - block_hash = SHA-512/256 of the header bytes with the signer_signature vector left out
 *   (stacks-core's signer signature hash; signers sign it, so it cannot cover their signatures);
 * - index_block_hash (the block id) = SHA-512/256(block_hash ‖ consensus_hash).
 * All three are checked against the fixtures in test/unit/chain/nakamoto-block.test.ts.
 */
import { createHash } from "node:crypto";
import { BytesReader, type StacksTransactionWire, deserializeTransaction } from "@stacks/transactions";
import { MalformedPayloadError, errorMessage } from "../internal/errors.js";

export interface ProblematicTxMarker {
  txIndex: number;
  category: number;
}

/** Hashes and signatures are 0x-prefixed lowercase hex. */
export interface NakamotoBlockHeader {
  /** The raw version byte (shadow flag included). */
  version: number;
  chainLength: bigint;
  burnSpent: bigint;
  consensusHash: string;
  parentBlockId: string;
  txMerkleRoot: string;
  stateIndexRoot: string;
  /** Unix seconds. */
  timestamp: bigint;
  minerSignature: string;
  signerSignatures: string[];
  poxTreatment: { bitLength: number; bytes: string };
  /** Always empty for version-0 headers. */
  problematicTxs: ProblematicTxMarker[];
}

export interface NakamotoBlockTx {
  txid: string;
  /** The transaction's exact bytes in the block. */
  raw: Uint8Array;
  tx: StacksTransactionWire;
}

export interface NakamotoBlock {
  header: NakamotoBlockHeader;
  blockHash: string;
  indexBlockHash: string;
  isShadow: boolean;
  txs: NakamotoBlockTx[];
  /** Bytes this block occupies in its source, header and body. */
  byteLength: number;
}

const SHADOW_FLAG = 0x80;
const HEADER_VERSION_MASK = 0x7f;
/** First header version that serializes `problematic_txs` (Epoch 4.0). */
const HEADER_VERSION_WITH_PROBLEMATIC_TXS = 1;
const SIGNATURE_BYTES = 65;
/** pox_treatment is a BitVec<4000>; signer counts are bounded the same way. */
const MAX_BITVEC_BITS = 4000;

/** Parses exactly one block; trailing bytes are an error. */
export function parseNakamotoBlock(bytes: Uint8Array): NakamotoBlock {
  const block = readNakamotoBlock(bytes, 0);
  if (block.byteLength !== bytes.length) {
    throw new MalformedPayloadError(
      `Nakamoto block: ${bytes.length - block.byteLength} trailing bytes after the block`,
    );
  }
  return block;
}

/** Parses blocks laid end to end (a tenure as `/v3/tenures/...` returns it), in source order. */
export function parseNakamotoBlocks(bytes: Uint8Array): NakamotoBlock[] {
  const blocks: NakamotoBlock[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const block = readNakamotoBlock(bytes, offset);
    blocks.push(block);
    offset += block.byteLength;
  }
  return blocks;
}

/** Reads one block starting at `offset`; `byteLength` says where the next one starts. */
export function readNakamotoBlock(bytes: Uint8Array, offset = 0): NakamotoBlock {
  const r = new Cursor(bytes, offset);
  const start = offset;

  const version = r.u8();
  const chainLength = r.u64();
  const burnSpent = r.u64();
  const consensusHash = r.hex(20);
  const parentBlockId = r.hex(32);
  const txMerkleRoot = r.hex(32);
  const stateIndexRoot = r.hex(32);
  const timestamp = r.u64();
  const minerSignature = r.hex(SIGNATURE_BYTES);

  const signaturesStart = r.pos;
  const signerCount = r.u32();
  if (signerCount > MAX_BITVEC_BITS) r.fail(`${signerCount} signer signatures`);
  const signerSignatures: string[] = [];
  for (let i = 0; i < signerCount; i++) signerSignatures.push(r.hex(SIGNATURE_BYTES));
  const signaturesEnd = r.pos;

  const bitLength = r.u16();
  const byteLength = r.u32();
  if (bitLength === 0 || bitLength > MAX_BITVEC_BITS || byteLength !== Math.ceil(bitLength / 8)) {
    r.fail(`pox_treatment of ${bitLength} bits in ${byteLength} bytes`);
  }
  const poxTreatment = { bitLength, bytes: r.hex(byteLength) };

  const problematicTxs: ProblematicTxMarker[] = [];
  if ((version & HEADER_VERSION_MASK) >= HEADER_VERSION_WITH_PROBLEMATIC_TXS) {
    const count = r.u32();
    r.need(count * 5, `${count} problematic_txs entries`);
    for (let i = 0; i < count; i++) problematicTxs.push({ txIndex: r.u32(), category: r.u8() });
  }
  const headerEnd = r.pos;

  const blockHash = sha512_256(bytes.subarray(start, signaturesStart), bytes.subarray(signaturesEnd, headerEnd));
  const indexBlockHash = sha512_256(blockHash, bytes.subarray(start + 17, start + 37));

  const txCount = r.u32();
  // Each transaction takes well over one byte; this only stops absurd counts early.
  r.need(txCount, `${txCount} transactions`);
  const txs: NakamotoBlockTx[] = [];
  for (let i = 0; i < txCount; i++) {
    const txStart = r.pos;
    const reader = new BytesReader(bytes.subarray(txStart));
    let tx: StacksTransactionWire;
    try {
      tx = deserializeTransaction(reader);
    } catch (err) {
      throw new MalformedPayloadError(`Nakamoto block: transaction ${i} at byte ${txStart}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    // BytesReader does not bounds-check; a truncated tx shows up as reading past the end.
    r.need(reader.consumed, `transaction ${i}`);
    const raw = r.take(reader.consumed).slice();
    txs.push({ txid: toHex(sha512_256(raw)), raw, tx });
  }

  return {
    header: {
      version,
      chainLength,
      burnSpent,
      consensusHash,
      parentBlockId,
      txMerkleRoot,
      stateIndexRoot,
      timestamp,
      minerSignature,
      signerSignatures,
      poxTreatment,
      problematicTxs,
    },
    blockHash: toHex(blockHash),
    indexBlockHash: toHex(indexBlockHash),
    isShadow: (version & SHADOW_FLAG) !== 0,
    txs,
    byteLength: r.pos - start,
  };
}

/** The block id: SHA-512/256(block_hash ‖ consensus_hash), both 0x-hex (prefix optional). */
export function computeIndexBlockHash(blockHash: string, consensusHash: string): string {
  const bh = Buffer.from(blockHash.replace(/^0x/, ""), "hex");
  const ch = Buffer.from(consensusHash.replace(/^0x/, ""), "hex");
  if (bh.length !== 32 || ch.length !== 20)
    throw new TypeError("expected a 32-byte block hash and a 20-byte consensus hash");
  return toHex(sha512_256(bh, ch));
}

/** Bounds-checked big-endian reads over a byte array. */
class Cursor {
  private readonly view: DataView;
  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  fail(what: string): never {
    throw new MalformedPayloadError(`Nakamoto block: bad ${what} at byte ${this.pos}`);
  }
  need(n: number, what: string): void {
    if (this.pos + n > this.bytes.length) {
      throw new MalformedPayloadError(
        `Nakamoto block: truncated — ${what} needs ${n} bytes at byte ${this.pos}, ${this.bytes.length - this.pos} left`,
      );
    }
  }
  take(n: number): Uint8Array {
    this.need(n, `a ${n}-byte field`);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  hex(n: number): string {
    return toHex(this.take(n));
  }
  u8(): number {
    this.need(1, "a u8");
    return this.view.getUint8(this.pos++);
  }
  u16(): number {
    this.need(2, "a u16");
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }
  u32(): number {
    this.need(4, "a u32");
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }
  u64(): bigint {
    this.need(8, "a u64");
    const v = this.view.getBigUint64(this.pos);
    this.pos += 8;
    return v;
  }
}

function sha512_256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash("sha512-256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

function toHex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes).toString("hex")}`;
}
