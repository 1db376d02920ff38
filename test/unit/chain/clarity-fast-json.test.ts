/**
 * The direct bytes → JSON decoder against the library path it stands in for: on random values
 * (serialized by the library) both give the same JSON, and on random corruptions of them the fast
 * decoder never answers where the library refuses, nor answers differently where it accepts.
 */
import { BytesReader, Cl, type ClarityValue, deserializeCV, serializeCVBytes } from "@stacks/transactions";
import { describe, expect, it } from "vitest";
import { fastClarityJson, NotFast } from "../../../runtime/chain/decode/clarity-fast-json.js";
import { clarityToJson } from "../../../runtime/chain/decode/index.js";
import type { ClarityJson } from "../../../runtime/chain/types.js";
import { prng } from "../../support/subgraph-read.js";

const ADDRESSES = [
  "SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7",
  "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM",
  "SN3R84XZYA63QS28932XQF3G1J8R9PC3W76P9CSQS",
  "SM3VDXK3WZZSA84XXFKAFAF15NNZX32CTSG82JFQ4",
];
const NAMES = ["a", "amount", "request-id", "x!", "is-ok?", "<=", "+", "hash-bytes", "k9_z"];

function randomValue(next: () => number, depth: number): ClarityValue {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)];
  const big = () =>
    BigInt(Math.floor(next() * 2 ** 53)) * BigInt(Math.floor(next() * 2 ** 53)) * BigInt(Math.floor(next() * 2 ** 22));
  const kinds = depth > 3 ? 10 : 16;
  switch (Math.floor(next() * kinds)) {
    case 0:
      return Cl.int((next() < 0.5 ? -1n : 1n) * (big() % 2n ** 127n));
    case 1:
      return Cl.uint(big());
    case 2:
      return Cl.bool(next() < 0.5);
    case 3:
      return Cl.buffer(Uint8Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 256)));
    case 4:
      return Cl.stringAscii(
        String.fromCharCode(...Array.from({ length: Math.floor(next() * 30) }, () => 32 + Math.floor(next() * 95))),
      );
    case 5:
      return Cl.stringUtf8(pick(["", "héllo ✓", "plain", "日本語", "emoji 🚀"]));
    case 6:
      return Cl.standardPrincipal(pick(ADDRESSES));
    case 7:
      return Cl.contractPrincipal(pick(ADDRESSES), pick(["token", "sbtc-token", "a-b-c", "x".repeat(40)]));
    case 8:
      return Cl.none();
    case 9:
      return Cl.uint(Math.floor(next() * 1000));
    case 10:
      return Cl.some(randomValue(next, depth + 1));
    case 11:
      return Cl.ok(randomValue(next, depth + 1));
    case 12:
      return Cl.error(randomValue(next, depth + 1));
    case 13:
      return Cl.list(Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1)));
    default: {
      const fields: Record<string, ClarityValue> = {};
      for (let i = Math.floor(next() * 4); i > 0; i--) fields[pick(NAMES)] = randomValue(next, depth + 1);
      return Cl.tuple(fields);
    }
  }
}

type Outcome = { ok: true; json: ClarityJson } | { ok: false };

function library(bytes: Uint8Array): Outcome {
  try {
    const reader = new BytesReader(bytes);
    const cv = deserializeCV(reader);
    if (reader.readOffset !== bytes.length) return { ok: false };
    return { ok: true, json: clarityToJson(cv) };
  } catch {
    return { ok: false };
  }
}

function fast(bytes: Uint8Array): Outcome | "not-fast" {
  try {
    return { ok: true, json: fastClarityJson(bytes) };
  } catch (err) {
    if (err instanceof NotFast) return "not-fast";
    throw err;
  }
}

describe("fastClarityJson", () => {
  it("gives the library's JSON for 3,000 random values", () => {
    const next = prng("clarity-values"); // deterministic: failures reproduce
    for (let i = 0; i < 3000; i++) {
      const cv = randomValue(next, 0);
      const bytes = serializeCVBytes(cv);
      const want = library(bytes);
      expect(want.ok).toBe(true);
      expect(fast(bytes), `value ${i}`).toEqual(want);
    }
  });

  it("never answers where the library refuses, nor differently where it accepts, on 20,000 corruptions", () => {
    const next = prng("clarity-corruptions");
    let refused = 0;
    for (let i = 0; i < 20_000; i++) {
      const bytes = serializeCVBytes(randomValue(next, 0)).slice();
      const how = next();
      let input: Uint8Array;
      if (how < 0.3) input = bytes.subarray(0, Math.floor(next() * bytes.length));
      else if (how < 0.45) input = Uint8Array.from([...bytes, Math.floor(next() * 256)]);
      else {
        input = bytes;
        for (let k = 1 + Math.floor(next() * 3); k > 0; k--) {
          input[Math.floor(next() * input.length)] = Math.floor(next() * 256);
        }
      }
      const want = library(input);
      const got = fast(input);
      if (!want.ok) refused++;
      if (got !== "not-fast") expect(got, `corruption ${i}`).toEqual(want);
    }
    expect(refused).toBeGreaterThan(1000); // the corruptions did exercise refusals
  });
});
