import nacl from "tweetnacl";
import { describe, expect, it } from "vitest";
import {
  type PartitionEntry,
  canonicalJson,
  checkPartitionChain,
  keyFromSeed,
  keyIdOf,
  publicKeyEntry,
  sign,
  trustedKeys,
  verifySigned,
} from "../../../runtime/archive/manifest.js";

const k1 = keyFromSeed(Buffer.alloc(32, 1));
const k2 = keyFromSeed(Buffer.alloc(32, 2));
const k3 = keyFromSeed(Buffer.alloc(32, 3));
const b64 = (k: { publicKey: Uint8Array }) => Buffer.from(k.publicKey).toString("base64");

describe("archive signatures", () => {
  it("sign the canonical JSON (sorted keys, no spaces) with ed25519", () => {
    expect(canonicalJson({ b: [1, { d: null, c: "x" }], a: true })).toBe('{"a":true,"b":[1,{"c":"x","d":null}]}');
    const doc = sign({ z: 1, a: "two" }, k1);
    const ok = nacl.sign.detached.verify(
      Buffer.from('{"a":"two","z":1}'),
      Buffer.from(doc.signature.value, "base64"),
      k1.publicKey,
    );
    expect(ok).toBe(true);
    expect(doc.signature.key_id).toBe(keyIdOf(k1.publicKey));
  });

  it("refuse edited bodies and untrusted keys", () => {
    const trusted = new Map([[k1.keyId, k1.publicKey]]);
    const doc = sign({ a: 1 }, k1);
    expect(verifySigned(doc, trusted, "doc")).toEqual({ a: 1 });
    expect(() => verifySigned({ ...doc, body: { a: 2 } }, trusted, "doc")).toThrow(/bad signature/);
    expect(() => verifySigned(sign({ a: 1 }, k2), trusted, "doc")).toThrow(/not trusted/);
    expect(() => verifySigned({ body: { a: 1 } } as never, trusted, "doc")).toThrow(/not signed/);
  });

  it("trust a rotated key through its endorsement, and keep old key ids verifiable", () => {
    const list = { keys: [publicKeyEntry(k1, null), publicKeyEntry(k2, k1)] };
    const pinnedOld = trustedKeys(list, [b64(k1)]);
    expect([...pinnedOld.keys()].sort()).toEqual([k1.keyId, k2.keyId].sort());
    // An entry endorsed by an untrusted key, or with a forged endorsement, is not trusted.
    const forged = { ...publicKeyEntry(k3, k1), endorsement: publicKeyEntry(k3, k2).endorsement };
    expect(trustedKeys({ keys: [...list.keys, publicKeyEntry(k3, k3), forged] }, [b64(k1)]).has(k3.keyId)).toBe(false);
    // Without pins the first listed key is taken on trust.
    expect([...trustedKeys(list, []).keys()].sort()).toEqual([k1.keyId, k2.keyId].sort());
  });

  it("checks that partitions chain by block hash", () => {
    const p = (index: number, first: number, last: number, parent: string, lastHash: string): PartitionEntry =>
      ({
        index,
        first_height: first,
        last_height: last,
        first_block: { height: first, index_block_hash: `f${index}`, parent_index_block_hash: parent },
        last_block: { height: last, index_block_hash: lastHash },
      }) as PartitionEntry;
    expect(checkPartitionChain([p(0, 0, 9, "x", "h9"), p(1, 10, 19, "h9", "h19")])).toBeNull();
    expect(checkPartitionChain([p(0, 0, 9, "x", "h9"), p(1, 10, 19, "other", "h19")])).toMatch(/does not build on/);
    expect(checkPartitionChain([p(0, 0, 9, "x", "h9"), p(1, 5, 19, "h9", "h19")])).toMatch(/overlaps/);
  });
});
