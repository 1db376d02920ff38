/**
 * runtime/chain/nakamoto-block.ts against the raw-block fixtures (fixtures README "raw-blocks/"):
 * header fields, txids, block hash and index block hash, tenure parent links, plus malformed input.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  computeIndexBlockHash,
  parseNakamotoBlock,
  parseNakamotoBlocks,
  readNakamotoBlock,
} from "../../../runtime/chain/nakamoto-block.js";
import { MalformedPayloadError } from "../../../runtime/internal/errors.js";
import {
  haveRawBlocks,
  loadAllFixtureBlocks,
  loadSingleBlockFixtures,
  loadTenureFixtures,
} from "../../support/raw-block-fixtures.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe.skipIf(!haveRawBlocks)("parseNakamotoBlock on the secondlayer mainnet blocks", () => {
  for (const f of loadSingleBlockFixtures()) {
    it(`${f.name}: every stated header field, block hash and index block hash`, () => {
      const block = parseNakamotoBlock(f.bytes);
      const e = f.expect;
      expect(block.header.version).toBe(e.version);
      expect(block.header.chainLength).toBe(BigInt(e.chainLength));
      expect(block.header.consensusHash).toBe(`0x${e.consensusHash}`);
      expect(block.header.txMerkleRoot).toBe(`0x${e.txMerkleRoot}`);
      expect(block.header.timestamp).toBe(BigInt(e.timestamp));
      expect(block.header.signerSignatures).toHaveLength(e.signerCount);
      expect(block.header.problematicTxs).toHaveLength(e.problematicTxCount ?? 0);
      expect(block.txs).toHaveLength(e.txCount);
      expect(block.blockHash).toBe(`0x${e.blockHash}`);
      expect(block.indexBlockHash).toBe(`0x${e.indexBlockHash}`);
      expect(computeIndexBlockHash(block.blockHash, block.header.consensusHash)).toBe(block.indexBlockHash);
      expect(block.isShadow).toBe(false);
      expect(block.byteLength).toBe(f.bytes.length);
      if (f.rawTxs) expect(block.txs.map((tx) => hex(tx.raw))).toEqual(f.rawTxs);
    });
  }

  it("the epoch-4 block has header version 1 and the v0 block version 0", () => {
    const versions = loadSingleBlockFixtures().map((f) => [f.name, parseNakamotoBlock(f.bytes).header.version]);
    expect(versions).toEqual([
      ["secondlayer/nakamoto-block-epoch4.json", 1],
      ["secondlayer/nakamoto-block.json", 0],
    ]);
  });
});

describe.skipIf(!haveRawBlocks)("parseNakamotoBlocks on the sbtc tenures", () => {
  const tenures = loadTenureFixtures();

  it("tenure 0 holds 23 blocks, heights 212 down to 190; tenure 1 the single block 190", () => {
    const [t0, t1] = tenures.map((t) => parseNakamotoBlocks(t.bytes));
    expect(t0.map((b) => Number(b.header.chainLength))).toEqual(Array.from({ length: 23 }, (_, i) => 212 - i));
    expect(t1.map((b) => Number(b.header.chainLength))).toEqual([190]);
    expect(t1[0].indexBlockHash).toBe(t0[22].indexBlockHash);
  });

  for (const t of tenures) {
    it(`${t.name}: the file name is the newest block's index block hash; parents chain`, () => {
      const blocks = parseNakamotoBlocks(t.bytes);
      expect(blocks[0].indexBlockHash).toBe(t.firstIndexBlockHash);
      for (let i = 0; i + 1 < blocks.length; i++) {
        expect(blocks[i].header.parentBlockId).toBe(blocks[i + 1].indexBlockHash);
      }
      expect(blocks.reduce((n, b) => n + b.byteLength, 0)).toBe(t.bytes.length);
      // All blocks of one tenure share its consensus hash.
      expect(new Set(blocks.map((b) => b.header.consensusHash)).size).toBe(1);
    });
  }

  it("readNakamotoBlock reads one block at an offset", () => {
    const t = tenures[0];
    const first = readNakamotoBlock(t.bytes, 0);
    const second = readNakamotoBlock(t.bytes, first.byteLength);
    expect(second.indexBlockHash).toBe(first.header.parentBlockId);
    expect(() => parseNakamotoBlock(t.bytes)).toThrow(/trailing bytes/);
  });
});

describe.skipIf(!haveRawBlocks)("transactions", () => {
  for (const { label, block } of loadAllFixtureBlocks()) {
    it(`${label}: txid = SHA-512/256 of the tx bytes = @stacks/transactions' txid()`, () => {
      for (const tx of block.txs) {
        expect(tx.txid).toBe(`0x${createHash("sha512-256").update(tx.raw).digest("hex")}`);
        expect(tx.txid).toBe(`0x${tx.tx.txid()}`);
      }
    });
  }
});

describe.skipIf(!haveRawBlocks)("header variants built from the fixtures", () => {
  const singles = loadSingleBlockFixtures();
  const v0 = () => singles.find((f) => f.name.endsWith("nakamoto-block.json"));
  const v1 = () => singles.find((f) => f.name.endsWith("epoch4.json"));

  /** Byte offset just after pox_treatment. */
  const poxEnd = (bytes: Uint8Array) => {
    const view = Buffer.from(bytes);
    const signers = view.readUInt32BE(206);
    const at = 206 + 4 + 65 * signers;
    return at + 2 + 4 + view.readUInt32BE(at + 2);
  };

  it("version 1 with problematic_txs entries: parsed, and part of the block hash", () => {
    const f = v1();
    if (!f) throw new Error("missing epoch-4 fixture");
    const cut = poxEnd(f.bytes);
    const original = parseNakamotoBlock(f.bytes);
    // Replace the empty list (u32 0) with two markers: (tx 1, category 2), (tx 0, category 7).
    const markers = Buffer.from("00000002" + "0000000102" + "0000000007", "hex");
    const bytes = Buffer.concat([f.bytes.subarray(0, cut), markers, f.bytes.subarray(cut + 4)]);
    const block = parseNakamotoBlock(bytes);
    expect(block.header.problematicTxs).toEqual([
      { txIndex: 1, category: 2 },
      { txIndex: 0, category: 7 },
    ]);
    expect(block.txs.map((tx) => tx.txid)).toEqual(original.txs.map((tx) => tx.txid));
    expect(block.blockHash).not.toBe(original.blockHash);
    const sigEnd = 206 + 4 + 65 * original.header.signerSignatures.length;
    const preimage = Buffer.concat([bytes.subarray(0, 206), bytes.subarray(sigEnd, cut + markers.length)]);
    expect(block.blockHash).toBe(`0x${createHash("sha512-256").update(preimage).digest("hex")}`);
  });

  it("block hash leaves out exactly the signer signatures", () => {
    for (const f of [v0(), v1()]) {
      if (!f) throw new Error("missing fixture");
      const b = Buffer.from(f.bytes);
      const signers = b.readUInt32BE(206);
      const sigEnd = 206 + 4 + 65 * signers;
      const headerEnd = poxEnd(f.bytes) + (parseNakamotoBlock(f.bytes).header.version >= 1 ? 4 : 0);
      const preimage = Buffer.concat([b.subarray(0, 206), b.subarray(sigEnd, headerEnd)]);
      expect(parseNakamotoBlock(f.bytes).blockHash).toBe(
        `0x${createHash("sha512-256").update(preimage).digest("hex")}`,
      );
    }
  });

  it("the shadow flag (0x80) is reported and does not change the header layout", () => {
    const f = v0();
    if (!f) throw new Error("missing v0 fixture");
    const bytes = Buffer.from(f.bytes);
    bytes[0] |= 0x80;
    const block = parseNakamotoBlock(bytes);
    expect(block.isShadow).toBe(true);
    expect(block.header.problematicTxs).toEqual([]);
    expect(block.txs).toHaveLength(2);
  });
});

describe.skipIf(!haveRawBlocks)("malformed input", () => {
  const f = loadSingleBlockFixtures()[0];

  it("every truncation throws MalformedPayloadError", () => {
    const ends = [0, 1, 50, 206, 300, f.bytes.length - 1];
    for (const end of ends) {
      expect(() => parseNakamotoBlock(f.bytes.subarray(0, end)), `truncated at ${end}`).toThrow(MalformedPayloadError);
    }
  });

  it("trailing bytes after a single block throw", () => {
    const bytes = Buffer.concat([f.bytes, Buffer.from([0])]);
    expect(() => parseNakamotoBlock(bytes)).toThrow(MalformedPayloadError);
  });

  it("an absurd signer count or pox_treatment length throws", () => {
    const bytes = Buffer.from(f.bytes);
    bytes.writeUInt32BE(0xffffffff, 206);
    expect(() => parseNakamotoBlock(bytes)).toThrow(MalformedPayloadError);
  });

  it("an undecodable transaction throws, naming the transaction", () => {
    const block = parseNakamotoBlock(f.bytes);
    const firstTx = f.bytes.length - block.txs.reduce((n, tx) => n + tx.raw.length, 0);
    const bytes = Buffer.from(f.bytes);
    bytes[firstTx] = 0x42; // not a transaction version
    expect(() => parseNakamotoBlock(bytes)).toThrow(/transaction 0/);
  });
});

describe("computeIndexBlockHash", () => {
  it("is SHA-512/256(block_hash ‖ consensus_hash)", () => {
    const bh = "11".repeat(32);
    const ch = "22".repeat(20);
    const want = createHash("sha512-256")
      .update(Buffer.from(bh + ch, "hex"))
      .digest("hex");
    expect(computeIndexBlockHash(`0x${bh}`, ch)).toBe(`0x${want}`);
    expect(() => computeIndexBlockHash(bh, bh)).toThrow(TypeError);
  });
});
