/** Decoding one `/new_block` transaction (DESIGN.md §2). Transactions are built with
 * @stacks/transactions and the expectations come from the builder inputs and key derivation. */
import {
  AddressHashMode,
  AddressVersion,
  Cl,
  type StacksTransactionWire,
  addressFromPublicKeys,
  addressToString,
  createStacksPublicKey,
  makeContractCall,
  makeUnsignedContractCall,
  makeUnsignedContractDeploy,
  makeUnsignedSTXTokenTransfer,
  privateKeyToAddress,
  privateKeyToPublic,
  sponsorTransaction,
} from "@stacks/transactions";
import { describe, expect, it } from "vitest";
import { decodeTx } from "../../../runtime/chain/decode/index.js";
import { MalformedPayloadError } from "../../../runtime/internal/errors.js";
import type { DecodedEvent } from "../../../runtime/chain/types.js";

const KEY_A = "edf9aee84d9b7abc145504dde6726c64f369d37ee34ded868fabd876c26570bc01";
const KEY_B = "7287ba251d44a4d3fd9276c88ce34c5c52a038955511cccaf77e61068649c17801";
const PUB_A = privateKeyToPublic(KEY_A) as string;
const PUB_B = privateKeyToPublic(KEY_B) as string;
const RECIPIENT = "SP3FGQ8Z7JY9BWYZ5WM53E0M9NK7WHJF0691NZ159";
const TXID = `0x${"ab".repeat(32)}`;

/** A node transaction object around a built transaction. */
function nodeTx(wire: StacksTransactionWire | string, extra: Record<string, unknown> = {}) {
  return {
    txid: TXID,
    tx_index: 3,
    raw_tx: typeof wire === "string" ? wire : `0x${wire.serialize()}`,
    status: "success",
    raw_result: "0x0703",
    contract_abi: null,
    execution_cost: { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 },
    microblock_sequence: null,
    microblock_hash: null,
    microblock_parent_hash: null,
    ...extra,
  };
}

describe("decodeTx", () => {
  it("decodes a mainnet token transfer, taking txid from the payload", async () => {
    const wire = await makeUnsignedSTXTokenTransfer({
      recipient: RECIPIENT,
      amount: 12345n,
      fee: 200,
      nonce: 7,
      memo: "hi",
      publicKey: PUB_A,
      network: "mainnet",
    });
    expect(`0x${wire.txid()}`).not.toBe(TXID);
    const tx = decodeTx(nodeTx(wire), "transactions[0]");
    expect(tx).toMatchObject({
      txId: TXID,
      txIndex: 3,
      txType: "token_transfer",
      status: "success",
      sender: privateKeyToAddress(KEY_A, "mainnet"),
      sponsor: null,
      nonce: "7",
      fee: "200",
      recipient: RECIPIENT,
      amount: "12345",
      // the 34-byte memo field: "hi" then zero padding
      memo: `0x6869${"00".repeat(32)}`,
      contractId: null,
      functionName: null,
      functionArgs: null,
      rawResult: "0x0703",
      result: { ok: true },
      rawTx: `0x${wire.serialize()}`,
      burnchainOp: false,
      microblockSequence: null,
      microblockHash: null,
      contractInterface: null,
      vmError: null,
    });
    expect(tx.sender).toMatch(/^SP/);
  });

  it("decodes a sponsored testnet contract call with raw hex args", async () => {
    const args = [
      Cl.uint(10n ** 30n),
      Cl.standardPrincipal(privateKeyToAddress(KEY_B, "testnet")),
      Cl.tuple({ amount: Cl.uint(5), memo: Cl.some(Cl.bufferFromHex("beef")), name: Cl.stringUtf8("ñ") }),
      Cl.list([Cl.none(), Cl.ok(Cl.int(-1))]),
    ];
    const signed = await makeContractCall({
      contractAddress: "ST000000000000000000002AMW42H",
      contractName: "pox-4",
      functionName: "stack-stx",
      functionArgs: args,
      fee: 0,
      nonce: 2,
      senderKey: KEY_A,
      network: "testnet",
      sponsored: true,
    });
    const wire = await sponsorTransaction({
      transaction: signed,
      sponsorPrivateKey: KEY_B,
      fee: 999,
      sponsorNonce: 3,
      network: "testnet",
    });
    const tx = decodeTx(
      nodeTx(wire, { raw_result: `0x${Cl.serialize(Cl.error(Cl.uint(3)))}`, status: "abort_by_response" }),
      "t",
    );
    expect(tx).toMatchObject({
      txType: "contract_call",
      status: "abort_by_response",
      sender: privateKeyToAddress(KEY_A, "testnet"),
      sponsor: privateKeyToAddress(KEY_B, "testnet"),
      nonce: "2",
      fee: "999",
      contractId: "ST000000000000000000002AMW42H.pox-4",
      functionName: "stack-stx",
      functionArgs: args.map((a) => `0x${Cl.serialize(a)}`),
      result: { err: "3" },
    });
    expect(tx.sender).toMatch(/^ST/);
  });

  it("keeps contract-call args as the exact bytes sent (Clarity orders tuple keys bytewise)", async () => {
    const u128 = (n: number) => `01${n.toString(16).padStart(32, "0")}`;
    const name = (s: string) => `${s.length.toString(16).padStart(2, "0")}${Buffer.from(s).toString("hex")}`;
    // As a Clarity node serializes (tuple { a: u1, B: u2 }): keys in byte order, "B" (0x42) before "a".
    const clarityOrder = `0c00000002${name("B")}${u128(2)}${name("a")}${u128(1)}`;
    const call = await makeUnsignedContractCall({
      contractAddress: RECIPIENT,
      contractName: "c",
      functionName: "f",
      functionArgs: [Cl.tuple({ a: Cl.uint(1), B: Cl.uint(2) }), Cl.uint(9)],
      fee: 1,
      nonce: 1,
      publicKey: PUB_A,
    });
    const libraryOrder = Cl.serialize(Cl.tuple({ a: Cl.uint(1), B: Cl.uint(2) }));
    expect(libraryOrder).not.toBe(clarityOrder);
    const raw = `0x${call.serialize().replace(libraryOrder, clarityOrder)}`;
    expect(raw).toContain(clarityOrder);
    const tx = decodeTx(nodeTx(raw), "t");
    expect(tx.functionArgs).toEqual([`0x${clarityOrder}`, `0x${Cl.serialize(Cl.uint(9))}`]);
  });

  it("decodes a versioned deploy: contract id, interface (new and old field name), vm_error", async () => {
    const wire = await makeUnsignedContractDeploy({
      contractName: "hello-world",
      codeBody: "(define-read-only (hi) (ok u1))",
      clarityVersion: 2,
      fee: 10,
      nonce: 0,
      publicKey: PUB_A,
      network: "mainnet",
    });
    const iface = { functions: [{ name: "hi" }] };
    const sender = privateKeyToAddress(KEY_A, "mainnet");
    const a = decodeTx(nodeTx(wire, { contract_interface: iface, contract_abi: undefined, vm_error: "boom" }), "t");
    expect(a).toMatchObject({
      txType: "versioned_smart_contract",
      contractId: `${sender}.hello-world`,
      contractInterface: iface,
      vmError: "boom",
    });
    const b = decodeTx(nodeTx(wire, { contract_abi: iface }), "t");
    expect(b.contractInterface).toEqual(iface);
    expect(b.vmError).toBeNull();
  });

  it("gives multisig senders the multisig address version (SM/SN)", async () => {
    const pubs = [PUB_A, PUB_B];
    for (const [network, version] of [
      ["mainnet", AddressVersion.MainnetMultiSig],
      ["testnet", AddressVersion.TestnetMultiSig],
    ] as const) {
      const wire = await makeUnsignedSTXTokenTransfer({
        recipient: RECIPIENT,
        amount: 1n,
        fee: 1,
        nonce: 4,
        numSignatures: 2,
        publicKeys: pubs,
        network,
      });
      const want = addressToString(
        addressFromPublicKeys(
          version,
          AddressHashMode.P2SH,
          2,
          pubs.map((p) => createStacksPublicKey(p)),
        ),
      );
      const tx = decodeTx(nodeTx(wire), "t");
      expect(tx.sender).toBe(want);
      expect(tx.sender).toMatch(network === "mainnet" ? /^SM/ : /^SN/);
    }
  });

  it("keeps microblock fields", async () => {
    const wire = await makeUnsignedSTXTokenTransfer({
      recipient: RECIPIENT,
      amount: 1n,
      fee: 1,
      nonce: 1,
      publicKey: PUB_A,
    });
    const mb = `0x${"cd".repeat(32)}`;
    const tx = decodeTx(nodeTx(wire, { microblock_sequence: 4, microblock_hash: mb, microblock_parent_hash: mb }), "t");
    expect(tx.microblockSequence).toBe(4);
    expect(tx.microblockHash).toBe(mb);
  });

  describe("Bitcoin-originated ops (raw_tx 0x00)", () => {
    const lockEvent = { sender: "SM3KJBA4RZ7Z20KD2HBXNSXVPCR1D3CRAV6Q05MKT" } as DecodedEvent;

    it("takes the sender from the burnchain_op field", () => {
      const op = {
        transfer_stx: {
          sender: { address: "SP1Z7V02CJRY3G5R2RDG7SFAZA8VGH0Y44NC2NAJN", address_version: 22 },
          recipient: { address: RECIPIENT },
          transfered_ustx: 100,
        },
      };
      const tx = decodeTx(nodeTx("0x00", { burnchain_op: op }), "t", lockEvent);
      expect(tx).toMatchObject({
        txId: TXID,
        txType: "burnchain_op",
        burnchainOp: true,
        sender: "SP1Z7V02CJRY3G5R2RDG7SFAZA8VGH0Y44NC2NAJN",
        nonce: null,
        fee: null,
        rawTx: "0x00",
        result: { ok: true },
      });
    });

    it("falls back to the first event's sender, else null", () => {
      expect(decodeTx(nodeTx("0x00", { burnchain_op: null }), "t", lockEvent).sender).toBe(lockEvent.sender);
      expect(decodeTx(nodeTx("0x00"), "t", null).sender).toBeNull();
    });
  });

  describe("malformed transactions throw MalformedPayloadError naming the field", () => {
    const good = async () =>
      `0x${(await makeUnsignedSTXTokenTransfer({ recipient: RECIPIENT, amount: 1n, fee: 1, nonce: 1, publicKey: PUB_A })).serialize()}`;

    const cases: { name: string; make: (raw: string) => Record<string, unknown>; field: RegExp }[] = [
      { name: "non-hex raw_tx", make: (raw) => nodeTx(`${raw.slice(0, -2)}zz`), field: /^t\.raw_tx: .*non-hex/ },
      { name: "odd-length raw_tx", make: (raw) => nodeTx(raw.slice(0, -1)), field: /^t\.raw_tx: .*odd/ },
      { name: "truncated raw_tx", make: (raw) => nodeTx(raw.slice(0, -20)), field: /^t\.raw_tx: .*truncated/ },
      { name: "trailing bytes", make: (raw) => nodeTx(`${raw}00`), field: /^t\.raw_tx: .*1 trailing byte/ },
      { name: "unknown payload", make: () => nodeTx("0x0000000001"), field: /^t\.raw_tx: is not a Stacks transaction/ },
      { name: "missing txid", make: (raw) => nodeTx(raw, { txid: undefined }), field: /^t\.txid: .*field missing/ },
      {
        name: "short txid",
        make: (raw) => nodeTx(raw, { txid: "0x1234" }),
        field: /^t\.txid: must be 0x followed by 64 hex/,
      },
      { name: "tx_index not an integer", make: (raw) => nodeTx(raw, { tx_index: "1" }), field: /^t\.tx_index:/ },
      { name: "missing raw_result", make: (raw) => nodeTx(raw, { raw_result: undefined }), field: /^t\.raw_result:/ },
      {
        name: "undecodable raw_result",
        make: (raw) => nodeTx(raw, { raw_result: "0x07" }),
        field: /^t\.raw_result: is not a Clarity value/,
      },
      {
        name: "status not a string",
        make: (raw) => nodeTx(raw, { status: 1 }),
        field: /^t\.status: must be a string, got 1/,
      },
      {
        name: "bad microblock_sequence",
        make: (raw) => nodeTx(raw, { microblock_sequence: -1 }),
        field: /^t\.microblock_sequence:/,
      },
    ];
    it.each(cases)("$name", async ({ make, field }) => {
      const raw = await good();
      expect(() => decodeTx(make(raw), "t")).toThrow(MalformedPayloadError);
      expect(() => decodeTx(make(raw), "t")).toThrow(field);
    });

    it("a non-object transaction", () => {
      expect(() => decodeTx("nope", "transactions[2]")).toThrow(/^transactions\[2\]: must be an object/);
    });
  });
});
