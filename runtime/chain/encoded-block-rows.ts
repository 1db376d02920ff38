/**
 * A block's chain rows in the binary array form (runtime/db/binary-array.ts), encoded by the
 * import's decoder thread right after decoding: building the rows (JSON of payloads, balance
 * changes, execution costs) and encoding them was about a seventh of the main thread's work, and
 * the main thread is what an import waits on. The main thread then only joins the blocks of a
 * statement (block-store.ts insertBlocksRows) and adds what depends on the statement: each block's
 * `canonical` flag and the block ordinals of its rows. The joined parameters are the bytes
 * `binaryParams(blocksRowsParams(blocks))` gives. Pure, no I/O.
 */
import { encodeArray, encodeElements, type EncodedElements, joinElements } from "../db/binary-array.js";
import { type BlockRows, blocksRowsParams, PARAM_LAYOUT, PARAM_TYPES } from "./block-store.js";
import type { DecodedBlock } from "./types.js";

/**
 * One block's elements of every INSERT_BLOCKS_ROWS parameter, packed in one exactly sized buffer
 * (a structured clone copies a view's whole backing buffer): `index` holds, per parameter, the
 * offset, byte length, element count and has-null flag (0 or 1) of its elements in `bytes`.
 */
export interface EncodedBlockRows {
  bytes: Uint8Array;
  index: Int32Array;
}

/** The block's rows encoded, or null when a value has no binary form (the text path then lets the database judge it). */
export function encodeBlockRows(block: DecodedBlock): EncodedBlockRows | null {
  let runs: EncodedElements[];
  try {
    const params = blocksRowsParams([{ block, canonical: false }]);
    runs = params.map((values, i) => encodeElements(PARAM_TYPES[i], values as unknown[]));
  } catch (err) {
    if (err instanceof RangeError) return null;
    throw err;
  }
  let total = 0;
  for (const r of runs) total += r.bytes.byteLength;
  const bytes = new Uint8Array(total);
  const index = new Int32Array(4 * runs.length);
  let pos = 0;
  runs.forEach((r, i) => {
    bytes.set(r.bytes, pos);
    index.set([pos, r.bytes.byteLength, r.count, r.hasNull ? 1 : 0], 4 * i);
    pos += r.bytes.byteLength;
  });
  return { bytes, index };
}

/** The parameters of INSERT_BLOCKS_ROWS from blocks that all carry their encoded rows; null if one does not. */
export function encodedBlocksRowsParams(blocks: readonly BlockRows[]): Buffer[] | null {
  const encoded: EncodedBlockRows[] = [];
  for (const { block } of blocks) {
    if (!block.encodedRows) return null;
    encoded.push(block.encodedRows);
  }
  const ordinals = new Set<number>(PARAM_LAYOUT.ordinals);
  return PARAM_TYPES.map((type, i) => {
    if (i === PARAM_LAYOUT.canonical)
      return encodeArray(
        "bool",
        blocks.map((b) => b.canonical),
      );
    if (ordinals.has(i)) {
      const values: number[] = [];
      encoded.forEach((e, k) => {
        for (let n = e.index[4 * i + 2]; n > 0; n--) values.push(k + 1);
      });
      return encodeArray("int4", values);
    }
    return joinElements(
      type,
      encoded.map((e) => elementsOf(e, i)),
    );
  });
}

function elementsOf(e: EncodedBlockRows, param: number): EncodedElements {
  const [offset, length, count, hasNull] = e.index.subarray(4 * param, 4 * param + 4);
  return { bytes: e.bytes.subarray(offset, offset + length), count, hasNull: hasNull === 1 };
}
