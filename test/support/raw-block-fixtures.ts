/**
 * Loads the consensus-serialized Nakamoto blocks in `../shared/fixtures/raw-blocks` (fixtures
 * README "raw-blocks/") for the Merkle, block-parser and proof-verifier tests. Every loader
 * returns an empty list when the fixtures are absent, so callers can build test lists and skip.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type NakamotoBlock, parseNakamotoBlock, parseNakamotoBlocks } from "../../runtime/chain/nakamoto-block.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const rawBlocksDir = path.resolve(repoRoot, "../shared/fixtures/raw-blocks");
export const haveRawBlocks = existsSync(rawBlocksDir);

/** Header fields the secondlayer fixtures state (hashes without 0x). */
export interface SecondlayerExpect {
  version: number;
  chainLength: number;
  consensusHash: string;
  txMerkleRoot: string;
  timestamp: number;
  signerCount: number;
  blockHash: string;
  indexBlockHash: string;
  txCount: number;
  problematicTxCount?: number;
}

export interface SingleBlockFixture {
  name: string;
  bytes: Uint8Array;
  expect: SecondlayerExpect;
  rawTxs?: string[];
}

export interface TenureFixture {
  name: string;
  bytes: Uint8Array;
  /** The 0x-hex hash in the file name: the index block hash of the newest (first) block. */
  firstIndexBlockHash: string;
}

export function loadSingleBlockFixtures(): SingleBlockFixture[] {
  const dir = path.join(rawBlocksDir, "secondlayer");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const data = JSON.parse(readFileSync(path.join(dir, f), "utf8"));
      return {
        name: `secondlayer/${f}`,
        bytes: new Uint8Array(Buffer.from(data.rawBlockHex, "hex")),
        expect: data.expect,
        rawTxs: data.rawTxs,
      };
    });
}

export function loadTenureFixtures(): TenureFixture[] {
  const dir = path.join(rawBlocksDir, "sbtc");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".bin"))
    .sort()
    .map((f) => {
      const hash = /([0-9a-f]{64})\.bin$/.exec(f)?.[1];
      if (!hash) throw new Error(`unexpected fixture name ${f}`);
      return {
        name: `sbtc/${f}`,
        bytes: new Uint8Array(readFileSync(path.join(dir, f))),
        firstIndexBlockHash: `0x${hash}`,
      };
    });
}

export interface FixtureBlock {
  /** e.g. `sbtc/tenure-blocks-0-….bin #3 (height 209)`. */
  label: string;
  block: NakamotoBlock;
  /** 0x-hex tx_merkle_root the fixture states independently of the header bytes, when it does. */
  statedTxMerkleRoot?: string;
}

/** Every block of every raw-block fixture, parsed (26 blocks when the fixtures are present). */
export function loadAllFixtureBlocks(): FixtureBlock[] {
  const singles = loadSingleBlockFixtures().map((f) => {
    const block = parseNakamotoBlock(f.bytes);
    return {
      label: `${f.name} (height ${block.header.chainLength})`,
      block,
      statedTxMerkleRoot: `0x${f.expect.txMerkleRoot}`,
    };
  });
  const tenures = loadTenureFixtures().flatMap((f) =>
    parseNakamotoBlocks(f.bytes).map((block, i) => ({
      label: `${f.name} #${i} (height ${block.header.chainLength})`,
      block,
    })),
  );
  return [...singles, ...tenures];
}
