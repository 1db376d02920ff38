/**
 * The transaction wire reader (runtime/chain/decode/tx-wire-reader.ts) against
 * @stacks/transactions: every recorded and simulated transaction decodes to the fields the library
 * gives, and truncated, extended, enum-flipped and byte-mutated transactions are refused exactly
 * when the library refuses them. The expectation is computed here with the library alone.
 */
import {
  AddressHashMode,
  AddressVersion,
  AnchorMode,
  AuthType,
  BytesReader,
  Cl,
  type ClarityValue,
  ClarityType,
  PayloadType,
  Pc,
  PostConditionMode,
  PostConditionType,
  type SpendingCondition,
  addressToString,
  deserializeAddress,
  deserializeCV,
  deserializeLPString,
  deserializeTransaction,
  makeUnsignedContractCall,
  makeContractDeploy,
  makeUnsignedSTXTokenTransfer,
  privateKeyToPublic,
  sponsorTransaction,
} from "@stacks/transactions";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { decodeTx } from "../../../runtime/chain/decode/index.js";
import { MalformedPayloadError } from "../../../runtime/internal/errors.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import type { DecodedTx } from "../../../runtime/chain/types.js";
import { PAYLOAD_TYPE_NAMES } from "../../support/chain-model.js";
import { hasFixtures, listObserverFixtures, newBlockBodies } from "../../support/fixtures.js";

/** The DecodedTx fields read from raw_tx (the tx type as the name the test expects). */
type WireFields = { txType: string } & Pick<
  DecodedTx,
  | "sender"
  | "sponsor"
  | "nonce"
  | "fee"
  | "contractId"
  | "functionName"
  | "functionArgs"
  | "recipient"
  | "amount"
  | "memo"
>;

/** Two microblock headers the library leaves unread after a poison-microblock payload type. */
const POISON_BODY_BYTES = 2 * (1 + 2 + 32 + 32 + 65);

/** A BytesReader noting where the anchor mode, the first post condition and the payload start. */
class MarkingReader extends BytesReader {
  anchorMode = -1;
  payloadStart = -1;
  firstPostCondition = -1;
  override readUInt8Enum<T extends string, TEnumValue extends number>(
    enumVariable: { [key in T]: TEnumValue },
    onInvalid: (val: number) => Error,
  ): TEnumValue {
    const values = enumVariable as unknown;
    if (values === AnchorMode && this.anchorMode < 0) this.anchorMode = this.readOffset;
    if (values === PayloadType && this.payloadStart < 0) this.payloadStart = this.readOffset;
    if (values === PostConditionType && this.firstPostCondition < 0) this.firstPostCondition = this.readOffset;
    return super.readUInt8Enum(enumVariable, onInvalid);
  }
}

interface LibraryDecode {
  fields: WireFields;
  anchorMode: number;
  payloadStart: number;
  firstPostCondition: number;
}

/** The wire fields as @stacks/transactions reads them; throws where it refuses. */
function libraryDecode(bytes: Uint8Array): LibraryDecode {
  const reader = new MarkingReader(bytes);
  const wire = deserializeTransaction(reader);
  const end =
    wire.payload.payloadType === PayloadType.PoisonMicroblock
      ? reader.readOffset + POISON_BODY_BYTES
      : reader.readOffset;
  if (end !== bytes.length) throw new Error(end > bytes.length ? "truncated" : "trailing bytes");
  const mainnet = wire.transactionVersion === 0x00;
  const auth = wire.auth;
  const fields: WireFields = {
    txType: PAYLOAD_TYPE_NAMES[wire.payload.payloadType],
    sender: spender(auth.spendingCondition, mainnet),
    sponsor: auth.authType === AuthType.Sponsored ? spender(auth.sponsorSpendingCondition, mainnet) : null,
    nonce: auth.spendingCondition.nonce.toString(),
    fee: (auth.authType === AuthType.Sponsored ? auth.sponsorSpendingCondition : auth.spendingCondition).fee.toString(),
    contractId: null,
    functionName: null,
    functionArgs: null,
    recipient: null,
    amount: null,
    memo: null,
  };
  const payload = wire.payload;
  switch (payload.payloadType) {
    case PayloadType.TokenTransfer:
      fields.recipient = principalOf(payload.recipient);
      fields.amount = payload.amount.toString();
      fields.memo = `0x${Buffer.from(bytes.subarray(bytes.length - 34)).toString("hex")}`;
      break;
    case PayloadType.ContractCall:
      fields.contractId = `${addressToString(payload.contractAddress)}.${payload.contractName.content}`;
      fields.functionName = payload.functionName.content;
      fields.functionArgs = argSpans(bytes, reader.payloadStart);
      break;
    case PayloadType.SmartContract:
    case PayloadType.VersionedSmartContract:
      fields.contractId = `${fields.sender}.${payload.contractName.content}`;
      break;
    case PayloadType.CoinbaseToAltRecipient:
    case PayloadType.NakamotoCoinbase:
      fields.recipient = payload.recipient === undefined ? null : principalOf(payload.recipient);
      break;
  }
  return {
    fields,
    anchorMode: reader.anchorMode,
    payloadStart: reader.payloadStart,
    firstPostCondition: reader.firstPostCondition,
  };
}

/** Contract-call argument bytes, delimited by the library's own Clarity deserializer. */
function argSpans(bytes: Uint8Array, payloadStart: number): string[] {
  const reader = new BytesReader(bytes);
  reader.readOffset = payloadStart + 1;
  deserializeAddress(reader);
  deserializeLPString(reader);
  deserializeLPString(reader);
  const count = reader.readUInt32BE();
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const start = reader.readOffset;
    deserializeCV(reader);
    out.push(`0x${Buffer.from(bytes.subarray(start, reader.readOffset)).toString("hex")}`);
  }
  return out;
}

function principalOf(cv: ClarityValue): string | null {
  if (cv.type === ClarityType.PrincipalStandard || cv.type === ClarityType.PrincipalContract) return cv.value;
  if (cv.type === ClarityType.OptionalSome) return principalOf(cv.value);
  return null;
}

function spender(condition: SpendingCondition, mainnet: boolean): string {
  const single = condition.hashMode === AddressHashMode.P2PKH;
  const version = mainnet
    ? single
      ? AddressVersion.MainnetSingleSig
      : AddressVersion.MainnetMultiSig
    : single
      ? AddressVersion.TestnetSingleSig
      : AddressVersion.TestnetMultiSig;
  return addressToString({ type: 0 as never, version, hash160: condition.signer });
}

function libraryAccepts(bytes: Uint8Array): boolean {
  try {
    libraryDecode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The wire fields decodeTx gives for raw transaction bytes, or "refused" (MalformedPayloadError). */
function ours(bytes: Uint8Array): WireFields | "refused" {
  try {
    const tx = decodeTx(nodeTx(`0x${Buffer.from(bytes).toString("hex")}`), "transactions[0]");
    return {
      txType: tx.txType,
      sender: tx.sender,
      sponsor: tx.sponsor,
      nonce: tx.nonce,
      fee: tx.fee,
      contractId: tx.contractId,
      functionName: tx.functionName,
      functionArgs: tx.functionArgs,
      recipient: tx.recipient,
      amount: tx.amount,
      memo: tx.memo,
    };
  } catch (err) {
    if (err instanceof MalformedPayloadError) return "refused";
    throw err;
  }
}

function nodeTx(rawTx: string) {
  return { txid: `0x${"ab".repeat(32)}`, tx_index: 0, raw_tx: rawTx, status: "success", raw_result: "0x0703" };
}

function hexBytes(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex.startsWith("0x") ? hex.slice(2) : hex, "hex"));
}

/** Every raw_tx (not Bitcoin-originated ops) of the recorded fixtures. */
function fixtureTransactions(): string[] {
  const out: string[] = [];
  for (const fixture of listObserverFixtures()) {
    for (const body of newBlockBodies(fixture)) {
      for (const tx of JSON.parse(body).transactions ?? []) if (tx.raw_tx !== "0x00") out.push(tx.raw_tx);
    }
  }
  return out;
}

function simulatedTransactions(network: "devnet" | "mainnet", seed: string): string[] {
  const out: string[] = [];
  for (const payload of simulateChain({ blocks: 40, eventsPerBlock: 30, network, seed }).payloads) {
    if (payload.path !== "/new_block") continue;
    const txs = (payload.body as { transactions?: { raw_tx: string }[] }).transactions ?? [];
    for (const tx of txs) if (tx.raw_tx !== "0x00") out.push(tx.raw_tx);
  }
  return out;
}

const KEY_A = "edf9aee84d9b7abc145504dde6726c64f369d37ee34ded868fabd876c26570bc01";
const KEY_B = "7287ba251d44a4d3fd9276c88ce34c5c52a038955511cccaf77e61068649c17801";
const PUB_A = privateKeyToPublic(KEY_A) as string;
const PUB_B = privateKeyToPublic(KEY_B) as string;
const CONTRACT = "SP3FGQ8Z7JY9BWYZ5WM53E0M9NK7WHJF0691NZ159.market";

/** Built transactions covering shapes the recordings may lack: multisig, sponsorship, every
 * post-condition kind, tuple/list/principal arguments, a contract-principal recipient. */
async function builtTransactions(): Promise<string[]> {
  const postConditions = [
    Pc.principal("SP3FGQ8Z7JY9BWYZ5WM53E0M9NK7WHJF0691NZ159").willSendEq(10n).ustx(),
    Pc.principal(CONTRACT).willSendGte(5n).ft(`${CONTRACT}`, "coin"),
    Pc.principal(CONTRACT)
      .willSendAsset()
      .nft(`${CONTRACT}::ticket`, Cl.tuple({ id: Cl.uint(7), "a-b": Cl.none() })),
    Pc.origin().willNotSendAsset().nft(`${CONTRACT}::ticket`, Cl.uint(1)),
  ];
  const call = await makeUnsignedContractCall({
    contractAddress: "SP3FGQ8Z7JY9BWYZ5WM53E0M9NK7WHJF0691NZ159",
    contractName: "market",
    functionName: "buy",
    functionArgs: [
      Cl.tuple({ zeta: Cl.uint(1), alpha: Cl.list([Cl.int(-5), Cl.int(5)]) }),
      Cl.principal(CONTRACT),
      Cl.some(Cl.stringUtf8("héllo")),
      Cl.bufferFromHex("00ff"),
      Cl.ok(Cl.stringAscii("x")),
      Cl.error(Cl.bool(false)),
    ],
    postConditions,
    postConditionMode: PostConditionMode.Deny,
    fee: 2n ** 60n,
    nonce: 2n ** 53n + 1n,
    publicKey: PUB_A,
    network: "mainnet",
  });
  const multisig = await makeUnsignedSTXTokenTransfer({
    recipient: CONTRACT,
    amount: 2n ** 64n - 1n,
    fee: 1,
    nonce: 0,
    memo: "memo",
    numSignatures: 2,
    publicKeys: [PUB_A, PUB_B],
    network: "testnet",
  });
  const sponsoredDeploy = await makeContractDeploy({
    contractName: "kv",
    codeBody: "(define-data-var v uint u0)",
    clarityVersion: 2,
    fee: 0,
    nonce: 3,
    senderKey: KEY_B,
    sponsored: true,
    network: "mainnet",
  });
  const sponsored = await sponsorTransaction({
    transaction: sponsoredDeploy,
    sponsorPrivateKey: KEY_A,
    fee: 77,
    sponsorNonce: 9,
  });
  return [call, multisig, sponsoredDeploy, sponsored].map((t) => t.serialize());
}

/** Deterministic pseudo-random numbers for the mutation rounds (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One transaction per shape (payload type, auth, hash mode, post-condition count), for the
 * byte-level refusal checks that would be slow over every transaction. */
function oneOfEachShape(raws: string[]): Uint8Array[] {
  const shapes = new Map<string, Uint8Array>();
  for (const raw of raws) {
    const bytes = hexBytes(raw);
    const wire = deserializeTransaction(bytes);
    const key = [
      wire.payload.payloadType,
      wire.auth.authType,
      wire.auth.spendingCondition.hashMode,
      Math.min(wire.postConditions.values.length, 2),
      wire.postConditions.values.map((p) => p.conditionType).join(","),
    ].join("/");
    if (!shapes.has(key)) shapes.set(key, bytes);
  }
  return [...shapes.values()];
}

/** Every offset of a short transaction; of a long one (a deploy) the head, the tail and a
 * sample between: each cut costs a full library decode. */
function cutOffsets(length: number): number[] {
  const out: number[] = [];
  for (let cut = 0; cut < length; cut++) {
    if (cut < 600 || cut >= length - 200 || cut % 97 === 0) out.push(cut);
  }
  return out;
}

/** The library's fields for `bytes`, or "refused". */
function libraryVerdict(bytes: Uint8Array): WireFields | "refused" {
  try {
    return libraryDecode(bytes).fields;
  } catch {
    return "refused";
  }
}

/** Expects our verdict on `bytes` to be the library's, and returns it. The assertion (and its
 * hex message) is built only when the two differ: it runs tens of thousands of times. */
function expectSameVerdict(bytes: Uint8Array): WireFields | "refused" {
  const expected = libraryVerdict(bytes);
  const actual = ours(bytes);
  if (!isDeepStrictEqual(actual, expected)) expect(actual, Buffer.from(bytes).toString("hex")).toEqual(expected);
  return expected;
}

describe("transaction wire reader", () => {
  it.skipIf(!hasFixtures)("decodes every recorded transaction as @stacks/transactions does", () => {
    const raws = fixtureTransactions();
    expect(raws.length).toBeGreaterThan(1000);
    for (const raw of raws) expect(ours(hexBytes(raw)), raw).toEqual(libraryDecode(hexBytes(raw)).fields);
  });

  it("decodes every simulated and built transaction as @stacks/transactions does", async () => {
    const raws = [
      ...simulatedTransactions("devnet", "wire-a"),
      ...simulatedTransactions("mainnet", "wire-b"),
      ...(await builtTransactions()),
    ];
    expect(raws.length).toBeGreaterThan(500);
    const types = new Set<string>();
    for (const raw of raws) {
      const expected = libraryDecode(hexBytes(raw)).fields;
      types.add(expected.txType);
      expect(ours(hexBytes(raw)), raw).toEqual(expected);
    }
    // raw_tx in uppercase hex: the same fields, hex fields in lowercase as the library gives them
    for (const raw of await builtTransactions()) {
      const upper = `0x${raw.toUpperCase()}`;
      expect(ours(hexBytes(raw)), raw).toEqual(libraryDecode(hexBytes(raw)).fields);
      expect(decodeTx(nodeTx(upper), "transactions[0]").functionArgs).toEqual(
        libraryDecode(hexBytes(raw)).fields.functionArgs,
      );
    }
    expect(types).toContain("contract_call");
    expect(types).toContain("token_transfer");
  });

  it("refuses truncations and trailing bytes, and flipped enum bytes as the library does", {
    timeout: 300_000,
  }, async () => {
    const raws = [
      ...(hasFixtures ? fixtureTransactions() : []),
      ...simulatedTransactions("devnet", "wire-c"),
      ...(await builtTransactions()),
    ];
    const samples = oneOfEachShape(raws);
    expect(samples.length).toBeGreaterThan(5);
    for (const bytes of samples) {
      for (const cut of cutOffsets(bytes.length)) {
        const head = bytes.subarray(0, cut);
        const verdicts = {
          cut,
          library: libraryAccepts(head) ? "accepted" : "refused",
          // a lone 0x00 is the raw_tx of a Bitcoin-originated operation, not a truncation
          ours: cut === 1 && bytes[0] === 0x00 ? "refused" : ours(head),
        };
        // asserted only on a difference: this loop runs thousands of times
        if (verdicts.library !== "refused" || verdicts.ours !== "refused") {
          expect(verdicts).toEqual({ cut, library: "refused", ours: "refused" });
        }
      }
      for (const extra of [[0x00], [0x01, 0x02], new Array(34).fill(0)]) {
        const longer = new Uint8Array([...bytes, ...extra]);
        expect(libraryAccepts(longer)).toBe(false);
        expect(ours(longer)).toBe("refused");
      }
      const { anchorMode, payloadStart, firstPostCondition } = libraryDecode(bytes);
      // transaction version, auth type, origin hash mode, anchor mode, post-condition mode,
      // payload type, first post-condition type
      const enumOffsets = [0, 5, 6, anchorMode, anchorMode + 1, payloadStart];
      if (firstPostCondition >= 0) enumOffsets.push(firstPostCondition);
      for (const offset of enumOffsets) {
        for (let value = 0; value < 256; value++) {
          const flipped = bytes.slice();
          flipped[offset] = value;
          expectSameVerdict(flipped);
        }
      }
    }
  });

  it("agrees with the library on randomly mutated transactions", { timeout: 300_000 }, async () => {
    const raws = [
      ...(hasFixtures ? fixtureTransactions() : []),
      ...simulatedTransactions("devnet", "wire-d"),
      ...(await builtTransactions()),
    ];
    const samples = oneOfEachShape(raws);
    const random = rng(20_261_129);
    let refused = 0;
    for (const bytes of samples) {
      for (let round = 0; round < 300; round++) {
        const mutated = bytes.slice();
        const flips = 1 + Math.floor(random() * 3);
        for (let f = 0; f < flips; f++) mutated[Math.floor(random() * mutated.length)] = Math.floor(random() * 256);
        if (expectSameVerdict(mutated) === "refused") refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it("refuses what only a full decode catches: bad tuple keys, principal versions, long names", async () => {
    const call = await makeUnsignedContractCall({
      contractAddress: "SP3FGQ8Z7JY9BWYZ5WM53E0M9NK7WHJF0691NZ159",
      contractName: "market",
      functionName: "f",
      functionArgs: [Cl.tuple({ ab: Cl.principal("SP3FGQ8Z7JY9BWYZ5WM53E0M9NK7WHJF0691NZ159") })],
      fee: 1,
      nonce: 1,
      publicKey: PUB_A,
      network: "mainnet",
    });
    const bytes = hexBytes(call.serialize());
    const hex = Buffer.from(bytes).toString("hex");
    // tuple key "ab" → "1b" (not a Clarity name)
    const keyAt = hex.indexOf("026162") / 2 + 1;
    const badKey = bytes.slice();
    badKey[keyAt] = 0x31;
    expect(libraryAccepts(badKey)).toBe(false);
    expect(ours(badKey)).toBe("refused");
    // the principal's version byte (22) → 32
    const versionAt = keyAt + 2 + 1;
    expect(bytes[versionAt]).toBe(22);
    const badVersion = bytes.slice();
    badVersion[versionAt] = 32;
    expect(libraryAccepts(badVersion)).toBe(false);
    expect(ours(badVersion)).toBe("refused");
  });

  it("reads long string-ascii arguments only as far as the library can", { timeout: 60_000 }, async () => {
    for (const length of [40_000, 400_000]) {
      const call = await makeUnsignedContractCall({
        contractAddress: "SP3FGQ8Z7JY9BWYZ5WM53E0M9NK7WHJF0691NZ159",
        contractName: "market",
        functionName: "note",
        functionArgs: [Cl.stringAscii("a".repeat(length))],
        fee: 1,
        nonce: 1,
        publicKey: PUB_A,
        network: "mainnet",
      });
      const bytes = hexBytes(call.serialize());
      expect(libraryAccepts(bytes)).toBe(length === 40_000);
      expectSameVerdict(bytes);
    }
  });

  it.skipIf(!hasFixtures)("checks multisig public keys as the library does", () => {
    // order-independent P2SH multisig: signature, compressed public key, signature
    const raw = fixtureTransactions().find((r) => r.startsWith("0x808000000004050a80ffdb0ad53af6"));
    expect(raw).toBeDefined();
    const bytes = hexBytes(raw as string);
    const secondField = 47 + 1 + 65;
    expect([bytes[47], bytes[secondField]]).toEqual([0x02, 0x00]);
    const uncompressed = bytes.slice();
    uncompressed[secondField] = 0x01; // same key, declared uncompressed: allowed in P2SH
    expect(libraryAccepts(uncompressed)).toBe(true);
    expectSameVerdict(uncompressed);
    const witness = uncompressed.slice();
    witness[6] = 0x07; // order-independent P2WSH refuses uncompressed keys
    expect(libraryAccepts(witness)).toBe(false);
    expectSameVerdict(witness);
    const offCurve = uncompressed.slice();
    offCurve.fill(0xff, secondField + 2, secondField + 34); // x beyond the field prime: no point
    expect(libraryAccepts(offCurve)).toBe(false);
    expectSameVerdict(offCurve);
  });
});
