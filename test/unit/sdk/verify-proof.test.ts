/**
 * runtime/sdk/verify-proof.ts, the client-side verifier for the proof route (SPEC.md
 * `GET /v1/index/transactions/:tx_id/proof`): every transaction of every raw-block fixture
 * proves, and any tampering fails.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { merkleProof, merkleRoot } from "../../../runtime/chain/merkle.js";
import {
  type TxMerkleProof,
  computeRootFromProof,
  txMerkleRootFromRawBlock,
  verifyTxProof,
} from "../../../runtime/sdk/verify-proof.js";
import {
  haveRawBlocks,
  loadAllFixtureBlocks,
  loadSingleBlockFixtures,
  loadTenureFixtures,
  repoRoot,
} from "../../support/raw-block-fixtures.js";

/** Flips the lowest bit of the last byte of a 0x-hex hash. */
const flip = (h: string) => {
  const b = Buffer.from(h.slice(2), "hex");
  b[b.length - 1] ^= 1;
  return `0x${b.toString("hex")}`;
};
const clone = (p: TxMerkleProof): TxMerkleProof => structuredClone(p);

/** Every way of tampering with one field of a valid proof; each must make it fail. */
function tamperings(proof: TxMerkleProof): [string, TxMerkleProof][] {
  const out: [string, TxMerkleProof][] = [];
  proof.path.forEach((_, i) => {
    const p = clone(proof);
    p.path[i].hash = flip(p.path[i].hash);
    out.push([`path[${i}].hash`, p]);
    const q = clone(proof);
    q.path[i].position = q.path[i].position === "left" ? "right" : "left";
    out.push([`path[${i}].position`, q]);
  });
  out.push(["leaf", { ...clone(proof), leaf: flip(proof.leaf) }]);
  out.push(["root", { ...clone(proof), root: flip(proof.root) }]);
  for (let index = -1; index <= 2 ** proof.path.length; index++) {
    if (index !== proof.index) out.push([`index ${index}`, { ...clone(proof), index }]);
  }
  out.push(["index 0.5", { ...clone(proof), index: proof.index + 0.5 }]);
  out.push(["path dropped a step", { ...clone(proof), path: proof.path.slice(0, -1) }]);
  out.push([
    "path grew a step",
    { ...clone(proof), path: [...clone(proof).path, { hash: proof.root, position: "right" }] },
  ]);
  return out;
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => createHash("sha512-256").update(`tx${i}`).digest("hex"));

describe("verifyTxProof on hand-made trees", () => {
  it("accepts every proof for 1..17 leaves and rejects every tampering", () => {
    for (let n = 1; n <= 17; n++) {
      const txids = ids(n);
      const root = merkleRoot(txids);
      for (let i = 0; i < n; i++) {
        const proof = merkleProof(txids, i);
        expect(verifyTxProof(proof, { txId: txids[i], txMerkleRoot: root }), `n=${n} i=${i}`).toBe(true);
        expect(computeRootFromProof(proof)).toBe(root);
        for (const [what, bad] of tamperings(proof)) {
          expect(verifyTxProof(bad), `n=${n} i=${i} tampered ${what}`).toBe(false);
        }
      }
    }
  });

  it("rejects a proof for a phantom position in the duplicated tail, though it recomputes the root", () => {
    const txids = ids(3);
    const real = merkleProof(txids, 2); // [L2 right, node(L0,L1) left]
    const phantom: TxMerkleProof = {
      ...real,
      index: 3,
      path: [{ hash: real.path[0].hash, position: "left" }, real.path[1]],
    };
    expect(computeRootFromProof(phantom)).toBe(real.root);
    expect(verifyTxProof(phantom)).toBe(false);
    expect(verifyTxProof(real)).toBe(true);
  });

  it("checks the expected txid and root when given, 0x prefix optional", () => {
    const txids = ids(4);
    const proof = merkleProof(txids, 2);
    expect(verifyTxProof(proof, { txId: txids[2], txMerkleRoot: proof.root.slice(2) })).toBe(true);
    expect(verifyTxProof(proof, { txId: txids[1] })).toBe(false);
    expect(verifyTxProof(proof, { txMerkleRoot: flip(proof.root) })).toBe(false);
  });

  it("returns false, never throws, on malformed proofs", () => {
    const good = merkleProof(ids(2), 0);
    const bad: unknown[] = [
      null,
      undefined,
      {},
      { ...good, path: "x" },
      { ...good, path: [] },
      { ...good, leaf: "0x1234" },
      { ...good, root: 42 },
      { ...good, path: [{ hash: "zz", position: "right" }] },
      { ...good, path: [{ hash: good.path[0].hash, position: "up" }] },
      { ...good, index: "0" },
      { ...good, path: Array.from({ length: 33 }, () => good.path[0]) },
    ];
    for (const p of bad) expect(verifyTxProof(p as TxMerkleProof), JSON.stringify(p)).toBe(false);
    expect(() => computeRootFromProof({ leaf: "nope", path: [] })).toThrow(TypeError);
  });
});

describe.skipIf(!haveRawBlocks)("verifyTxProof on every transaction of every fixture block", () => {
  for (const { label, block } of loadAllFixtureBlocks()) {
    it(`${label}: all ${block.txs.length} proofs verify against the header root; tampering fails`, () => {
      const txids = block.txs.map((tx) => tx.txid);
      txids.forEach((txid, i) => {
        const proof = merkleProof(txids, i);
        expect(proof.root).toBe(block.header.txMerkleRoot);
        expect(verifyTxProof(proof, { txId: txid, txMerkleRoot: block.header.txMerkleRoot })).toBe(true);
        expect(computeRootFromProof(proof)).toBe(block.header.txMerkleRoot);
        for (const [what, bad] of tamperings(proof)) expect(verifyTxProof(bad), `tampered ${what}`).toBe(false);
      });
    });
  }

  it("txMerkleRootFromRawBlock reads the header field from raw block bytes", () => {
    for (const f of loadSingleBlockFixtures())
      expect(txMerkleRootFromRawBlock(f.bytes)).toBe(`0x${f.expect.txMerkleRoot}`);
    const tenure = loadTenureFixtures()[0];
    const first = loadAllFixtureBlocks().find((b) => b.label.startsWith(tenure.name));
    expect(txMerkleRootFromRawBlock(tenure.bytes)).toBe(first?.block.header.txMerkleRoot);
    expect(() => txMerkleRootFromRawBlock(new Uint8Array(100))).toThrow(RangeError);
  });
});

describe("the SDK module stays standalone", () => {
  it("imports nothing but node:crypto", () => {
    const src = readFileSync(path.join(repoRoot, "runtime/sdk/verify-proof.ts"), "utf8");
    const imports = [...src.matchAll(/^import\s[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1]);
    expect(imports).toEqual(["node:crypto"]);
  });
});
