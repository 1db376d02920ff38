// The fast encoders against @stacks/transactions: Clarity values, transaction bytes, real signatures, the PRNG.
import {
  AddressHashMode,
  Cl,
  type ClarityValue,
  PostConditionMode,
  StacksTransactionWire,
  type TenureChangeCause,
  createContractCallPayload,
  createMessageSignature,
  createNakamotoCoinbasePayload,
  createSingleSigSpendingCondition,
  createSmartContractPayload,
  createStandardAuth,
  createTenureChangePayload,
  createTokenTransferPayload,
  deserializeTransaction,
  hexToCV,
  serializeCV,
} from "@stacks/transactions";
import { describe, expect, it } from "vitest";
import { type Account, accountFromKey, derivePrivateKey } from "../../../runtime/simulator/accounts.js";
import { cvHex, cvToPlainJson, principalCv } from "../../../runtime/simulator/clarity-hex.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { Prng } from "../../../runtime/simulator/prng.js";
import {
  assembleTx,
  contractCallPayload,
  nakamotoCoinbasePayload,
  tenureChangePayload,
  tokenTransferPayload,
  versionedContractPayload,
} from "../../../runtime/simulator/tx-wire.js";
import { blocksOf } from "../../support/simulator-blocks.js";

describe("cvHex", () => {
  const values: ClarityValue[] = [
    Cl.uint(0),
    Cl.uint(2n ** 128n - 1n),
    Cl.int(-5),
    Cl.int(2n ** 127n - 1n),
    Cl.bool(true),
    Cl.bool(false),
    Cl.bufferFromHex("00ff10"),
    Cl.bufferFromUtf8(""),
    Cl.stringAscii("completed-deposit"),
    Cl.stringUtf8("naïve ✓"),
    Cl.standardPrincipal("ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM"),
    Cl.standardPrincipal("SP2QEZ06AGJ3RKJPBV14SY1V5BBFNAW33D96YPGZF"),
    principalCv("SN3R84XZYA63QS28932XQF3G1J8R9PC3W76P9CSQS"),
    Cl.contractPrincipal("SM3VDXK3WZZSA84XXFKAFAF15NNZX32CTSG82JFQ4", "sbtc-registry"),
    Cl.none(),
    Cl.some(Cl.list([Cl.uint(1), Cl.uint(2)])),
    Cl.ok(
      Cl.tuple({
        topic: Cl.stringAscii("x"),
        "burn-height": Cl.uint(3),
        "burn-hash": Cl.bufferFromHex("01"),
        amount: Cl.uint(9),
      }),
    ),
    Cl.error(Cl.uint(404)),
    Cl.tuple({
      "new-keys": Cl.list([]),
      "new-address": Cl.standardPrincipal("ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG"),
      a: Cl.none(),
    }),
  ];

  it("serializes exactly like serializeCV", () => {
    for (const value of values)
      expect(
        cvHex(value),
        JSON.stringify(value, (_, v) => (typeof v === "bigint" ? String(v) : v)),
      ).toBe(serializeCV(value));
  });

  it("gives the DESIGN §3 plain JSON view", () => {
    const value = hexToCV(
      `0x${cvHex(Cl.tuple({ id: Cl.some(Cl.uint(7)), name: Cl.bufferFromHex("6869"), owner: Cl.none(), ok: Cl.ok(Cl.bool(true)) }))}`,
    );
    expect(cvToPlainJson(value)).toEqual({ id: "7", name: "0x6869", owner: null, ok: { ok: true } });
  });
});

type Payload = ConstructorParameters<typeof StacksTransactionWire>[0]["payload"];

/** The same transaction built by @stacks/transactions, carrying the account's template signature. */
function libraryTx(
  network: "mainnet" | "testnet",
  account: Account,
  nonce: number,
  fee: number,
  payload: Payload,
  mode: PostConditionMode,
  anchor: number,
): string {
  const condition = createSingleSigSpendingCondition(AddressHashMode.P2PKH, account.publicKey, nonce, fee);
  condition.signature = createMessageSignature(account.templateSignature);
  const tx = new StacksTransactionWire({
    auth: createStandardAuth(condition),
    payload,
    network,
    postConditionMode: mode,
  });
  tx.anchorMode = anchor;
  return `0x${tx.serialize()}`;
}

describe("assembleTx", () => {
  for (const network of ["mainnet", "devnet"] as const) {
    const libNetwork = network === "mainnet" ? "mainnet" : "testnet";
    const sender = accountFromKey("sender", derivePrivateKey("wire-test", "sender"), network);
    const other = accountFromKey("other", derivePrivateKey("wire-test", "other"), network);

    it(`matches the library's bytes for every payload kind (${network})`, () => {
      const memo = "6869".padEnd(68, "0");
      expect(
        assembleTx(network, sender, {
          nonce: 3,
          fee: 180,
          anchorMode: 3,
          postConditionMode: 2,
          payloadHex: tokenTransferPayload(other.principalHex, 12345, memo),
        }),
      ).toBe(
        libraryTx(
          libNetwork,
          sender,
          3,
          180,
          createTokenTransferPayload(other.address, 12345, "hi"),
          PostConditionMode.Deny,
          3,
        ),
      );
      const args = [Cl.uint(5), principalCv(sender.address), Cl.some(Cl.bufferFromHex("abcd"))];
      expect(
        assembleTx(network, sender, {
          nonce: 9,
          fee: 2500,
          anchorMode: 3,
          postConditionMode: 1,
          payloadHex: contractCallPayload(`${other.address}.sim-token-alpha`, "transfer", args.map(cvHex)),
        }),
      ).toBe(
        libraryTx(
          libNetwork,
          sender,
          9,
          2500,
          createContractCallPayload(other.address, "sim-token-alpha", "transfer", args),
          PostConditionMode.Allow,
          3,
        ),
      );
      const code = "(define-read-only (get-value) u7)\n";
      expect(
        assembleTx(network, sender, {
          nonce: 0,
          fee: 9000,
          anchorMode: 3,
          postConditionMode: 2,
          payloadHex: versionedContractPayload("sim-contract-1", code, 3),
        }),
      ).toBe(
        libraryTx(
          libNetwork,
          sender,
          0,
          9000,
          createSmartContractPayload("sim-contract-1", code, 3),
          PostConditionMode.Deny,
          3,
        ),
      );
      const tenure = { tenure: "11".repeat(20), previous: "22".repeat(20), end: "33".repeat(32) };
      expect(
        assembleTx(network, sender, {
          nonce: 1,
          fee: 0,
          anchorMode: 1,
          postConditionMode: 2,
          payloadHex: tenureChangePayload({
            tenureConsensusHash: tenure.tenure,
            previousTenureConsensusHash: tenure.previous,
            burnViewConsensusHash: tenure.tenure,
            previousTenureEnd: tenure.end,
            previousTenureBlocks: 4,
            cause: 0,
            pubkeyHash: sender.hash160,
          }),
        }),
      ).toBe(
        libraryTx(
          libNetwork,
          sender,
          1,
          0,
          createTenureChangePayload(
            tenure.tenure,
            tenure.previous,
            tenure.tenure,
            tenure.end,
            4,
            0 as TenureChangeCause,
            sender.hash160,
          ),
          PostConditionMode.Deny,
          1,
        ),
      );
      const vrf = "ab".repeat(80);
      expect(
        assembleTx(network, sender, {
          nonce: 2,
          fee: 0,
          anchorMode: 1,
          postConditionMode: 2,
          payloadHex: nakamotoCoinbasePayload("00".repeat(32), other.principalHex, vrf),
        }),
      ).toBe(
        libraryTx(
          libNetwork,
          sender,
          2,
          0,
          createNakamotoCoinbasePayload(
            new Uint8Array(32),
            Cl.some(Cl.standardPrincipal(other.address)),
            Buffer.from(vrf, "hex"),
          ),
          PostConditionMode.Deny,
          1,
        ),
      );
    });
  }

  it("signs every transaction for real in full signing mode", () => {
    const { payloads } = simulateChain({
      seed: "full-signing",
      blocks: 4,
      eventsPerBlock: 6,
      accounts: 3,
      signing: "full",
    });
    let verified = 0;
    let boot = 0;
    for (const block of blocksOf(payloads)) {
      for (const tx of block.transactions) {
        const decoded = deserializeTransaction(tx.raw_tx);
        // The genesis transaction comes from the boot address, which has no key: an all-zero signature, as on mainnet.
        if (decoded.auth.spendingCondition.signer === "00".repeat(20)) {
          boot++;
          continue;
        }
        expect(() => decoded.verifyOrigin()).not.toThrow();
        verified++;
      }
    }
    expect(boot).toBe(1);
    expect(verified).toBeGreaterThan(15);
  });

  it("uses a real signature of the account as the template", () => {
    const account = accountFromKey("x", derivePrivateKey("wire-test", "x"), "testnet");
    const template = libraryTx(
      "testnet",
      account,
      0,
      180,
      createTokenTransferPayload(account.address, 1, ""),
      PostConditionMode.Deny,
      3,
    );
    expect(() => deserializeTransaction(template).verifyOrigin()).not.toThrow();
  });
});

describe("Prng", () => {
  it("is deterministic per seed and stays in range", () => {
    const a = new Prng("s");
    const b = new Prng("s");
    const c = new Prng("t");
    const seqA = Array.from({ length: 50 }, () => a.u32());
    expect(Array.from({ length: 50 }, () => b.u32())).toEqual(seqA);
    expect(Array.from({ length: 50 }, () => c.u32())).not.toEqual(seqA);
    for (let i = 0; i < 1000; i++) {
      const n = a.between(3, 7);
      expect(n >= 3 && n <= 7 && Number.isInteger(n)).toBe(true);
    }
    expect(a.hex(65)).toMatch(/^[0-9a-f]{130}$/);
  });
});
