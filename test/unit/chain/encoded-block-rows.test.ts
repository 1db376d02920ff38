/**
 * Chain rows encoded by the import's decoder thread (runtime/chain/encoded-block-rows.ts): after a
 * structured clone (what crossing to the main thread does), the joined parameters of any grouping
 * of blocks, canonical or not, are byte for byte the parameters encoded from the blocks at once
 * (block-store.ts binaryParams over blocksRowsParams).
 */
import { describe, expect, it } from "vitest";
import { type BlockRows, binaryParams, blocksRowsParams } from "../../../runtime/chain/block-store.js";
import { tryDecode } from "../../../runtime/chain/decode-request.js";
import { encodeBlockRows, encodedBlocksRowsParams } from "../../../runtime/chain/encoded-block-rows.js";
import type { DecodedBlock } from "../../../runtime/chain/types.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { block, ev, tx } from "../../support/decoded-chain.js";

/** Decoded blocks of a simulated chain with forks (every event type the simulator makes), and an empty block. */
function simulatedBlocks(): DecodedBlock[] {
  const { payloads } = simulateChain({ seed: "encoded-rows", blocks: 40, eventsPerBlock: 20, forkRate: 0.2 });
  const out: DecodedBlock[] = [];
  for (const p of payloads) {
    if (p.path !== "/new_block") continue;
    const decoded = tryDecode(p.path, JSON.stringify(p.body));
    if (decoded.kind === "block") out.push(decoded.block);
  }
  // And a block without transactions or events (no rows but its own).
  out.push(block([], [], 1_000, { indexBlockHash: `0x${"e0".repeat(32)}` }));
  return out;
}

/** A copy as the decoder thread sends it: encoded, then structured-cloned. */
function fromDecoderThread(b: DecodedBlock): DecodedBlock {
  const encoded = encodeBlockRows(b);
  if (encoded === null) throw new Error("block has no binary form");
  return structuredClone({ ...b, encodedRows: encoded });
}

const hex = (params: readonly Buffer[]) => params.map((p) => p.toString("hex"));

describe("chain rows encoded on the decoder thread", () => {
  const blocks = simulatedBlocks();

  it("the chain covers what the rows hold: transactions, events and empty blocks", () => {
    expect(blocks.length).toBeGreaterThan(40);
    expect(blocks.some((b) => b.txs.length === 0 || b.events.length === 0)).toBe(true);
    expect(blocks.reduce((n, b) => n + b.events.length, 0)).toBeGreaterThan(400);
  });

  it("joined, they are the parameters encoded from the blocks at once, for every grouping", () => {
    const cloned = blocks.map(fromDecoderThread);
    for (const size of [1, 3, 8, blocks.length]) {
      for (let i = 0; i < blocks.length; i += size) {
        // Canonical flags vary within a statement (the ordinals and flags are the statement's own).
        const rows = (list: DecodedBlock[]): BlockRows[] =>
          list.slice(i, i + size).map((b, k) => ({ block: b, canonical: (i + k) % 3 !== 1 }));
        const joined = encodedBlocksRowsParams(rows(cloned));
        expect(joined).not.toBeNull();
        expect(hex(joined as Buffer[])).toEqual(hex(binaryParams(blocksRowsParams(rows(blocks)))));
      }
    }
  });

  it("a block with a value the binary form cannot carry is left to the usual path", () => {
    const A = "SP2KVQZA2FQNH90SNC9VQQQQH5ZWYANC08EZQQ14";
    const odd = block([tx({ txId: `0x${"a1".repeat(32)}`, txIndex: 0, sender: A })], [], 7, { blockTime: 2 ** 60 });
    expect(() => binaryParams(blocksRowsParams([{ block: odd, canonical: true }]))).toThrow(RangeError);
    expect(encodeBlockRows(odd)).toBeNull();
    const good = fromDecoderThread(blocks[0]);
    expect(
      encodedBlocksRowsParams([
        { block: good, canonical: true },
        { block: odd, canonical: true },
      ]),
    ).toBeNull();
    expect(encodedBlocksRowsParams([{ block: blocks[0], canonical: true }])).toBeNull(); // not encoded
  });

  it("an event with awkward text and bytes survives the clone", () => {
    const A = "SP2KVQZA2FQNH90SNC9VQQQQH5ZWYANC08EZQQ14";
    const text = 'naïve ✓ 𝔘 \u0000 \\ "q"';
    const b = block(
      [tx({ txId: `0x${"a1".repeat(32)}`, txIndex: 0, sender: A, memo: text })],
      [
        ev({
          type: "print",
          txId: `0x${"a1".repeat(32)}`,
          contractId: `${A}.c`,
          topic: "print",
          payload: { raw_value: "0x0d00000003616263", value: { k: text } },
        }),
      ],
      9,
    );
    const rows = (x: DecodedBlock): BlockRows[] => [{ block: x, canonical: true }];
    expect(hex(encodedBlocksRowsParams(rows(fromDecoderThread(b))) as Buffer[])).toEqual(
      hex(binaryParams(blocksRowsParams(rows(b)))),
    );
  });
});
