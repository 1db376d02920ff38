/**
 * Bitcoin-originated operation details (runtime/chain/decode/burnchain-op.ts, pox-address.ts):
 * the node's `burnchain_op` shapes (as stacks-node serializes them: `{ <kind>: { sender: {address,
 * address_version, address_hash_bytes}, … } }`), the events-only rule of older nodes, and PoX
 * reward addresses from published BIP-173/350 and base58check vectors.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeBurnchainOp } from "../../../runtime/chain/decode/burnchain-op.js";
import { poxAddressFromBitcoin, poxAddressFromStacks } from "../../../runtime/chain/decode/pox-address.js";
import type { DecodedEvent } from "../../../runtime/chain/types.js";

const SENDER = "SP2ZP4GJDZJ1FDHTQ963F0292PE9J9752TZJ68F21";
const DELEGATE = "SP3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8QJ5SVTE";
const addr = (address: string) => ({ address, address_version: 22, address_hash_bytes: "0x00" });
/** hash160 of secp256k1's generator point: BIP-173's vector program and 1BgGZ9…'s hash. */
const G_HASH160 = "751e76e8199196d454941c45d1b3a323f1433bd6";

function event(e: Partial<DecodedEvent>): DecodedEvent {
  return {
    eventIndex: 0,
    nodeEventIndex: 0,
    txId: `0x${"11".repeat(32)}`,
    txIndex: 0,
    committed: true,
    type: "print",
    contractId: null,
    assetIdentifier: null,
    sender: null,
    recipient: null,
    amount: null,
    topic: null,
    payload: {},
    ...e,
  };
}

/** Base58check of version + payload, written here apart from the decoder. */
function base58check(version: number, payloadHex: string): string {
  const body = Buffer.concat([Buffer.of(version), Buffer.from(payloadHex, "hex")]);
  const sum = createHash("sha256").update(createHash("sha256").update(body).digest()).digest().subarray(0, 4);
  const bytes = Buffer.concat([body, sum]);
  const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  let n = BigInt(`0x${bytes.toString("hex")}`);
  let out = "";
  while (n > 0n) {
    out = alphabet[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

describe("PoX reward addresses", () => {
  it("reads base58check p2pkh / p2sh on mainnet and testnet", () => {
    expect(poxAddressFromBitcoin("1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH")).toEqual({
      version: "0x00",
      hashbytes: `0x${G_HASH160}`,
    });
    expect(poxAddressFromBitcoin(base58check(0x05, G_HASH160))).toEqual({
      version: "0x01",
      hashbytes: `0x${G_HASH160}`,
    });
    expect(poxAddressFromBitcoin(base58check(0x6f, G_HASH160))).toEqual({
      version: "0x00",
      hashbytes: `0x${G_HASH160}`,
    });
    expect(poxAddressFromBitcoin(base58check(0xc4, G_HASH160))).toEqual({
      version: "0x01",
      hashbytes: `0x${G_HASH160}`,
    });
  });

  it("reads segwit v0 (p2wpkh, p2wsh) and taproot addresses", () => {
    expect(poxAddressFromBitcoin("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4")).toEqual({
      version: "0x04",
      hashbytes: `0x${G_HASH160}`,
    });
    expect(poxAddressFromBitcoin("BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4")?.version).toBe("0x04");
    expect(poxAddressFromBitcoin("tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7")).toEqual({
      version: "0x05",
      hashbytes: "0x1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262",
    });
    expect(poxAddressFromBitcoin("bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0")).toEqual({
      version: "0x06",
      hashbytes: "0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
    });
  });

  it("refuses a bad checksum, an unknown version or garbage", () => {
    expect(poxAddressFromBitcoin("1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMJ")).toBeNull();
    expect(poxAddressFromBitcoin(base58check(0x30, G_HASH160))).toBeNull();
    expect(poxAddressFromBitcoin("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5")).toBeNull();
    expect(poxAddressFromBitcoin("not an address")).toBeNull();
    expect(poxAddressFromBitcoin("")).toBeNull();
  });

  it("maps a Stacks address to the Bitcoin script of its kind", () => {
    // SM… is a mainnet multisig address (version 20) → p2sh
    expect(poxAddressFromStacks("SM3KJBA4RZ7Z20KD2HBXNSXVPCR1D3CRAV6Q05MKT")).toEqual({
      version: "0x01",
      hashbytes: "0xe725a898f9fe204da28afb5cf7766602d1b30ad9",
    });
    expect(poxAddressFromStacks(SENDER)).toEqual({
      version: "0x00",
      hashbytes: "0xbf62424dfc82f6c7574986f00922b393249ca2d7",
    });
    expect(poxAddressFromStacks("nope")).toBeNull();
  });
});

describe("decodeBurnchainOp from the node's burnchain_op", () => {
  const base = { result: { ok: true }, events: [] as DecodedEvent[], burnBlockHeight: 800 };

  it("transfer_stx", () => {
    const nodeOp = {
      transfer_stx: {
        sender: addr(SENDER),
        recipient: addr(DELEGATE),
        transfered_ustx: 1234,
        memo: "0x0102",
        burn_block_height: 799,
        vtxindex: 3,
      },
    };
    expect(decodeBurnchainOp({ ...base, nodeOp })).toEqual({
      op: "transfer_stx",
      source: "node",
      sender: SENDER,
      recipient: DELEGATE,
      amount: "1234",
      memo: "0x0102",
    });
  });

  it("stack_stx with a signer key is pox-4's, with its extra arguments", () => {
    const signerKey = `02${"ab".repeat(32)}`;
    const nodeOp = {
      stack_stx: {
        sender: addr(SENDER),
        reward_addr: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
        stacked_ustx: 5_000_000_000,
        num_cycles: 6,
        burn_block_height: 799,
        signer_key: signerKey,
        max_amount: 9_000_000_000,
        auth_id: 42,
      },
    };
    expect(decodeBurnchainOp({ ...base, nodeOp })).toEqual({
      op: "stack_stx",
      source: "node",
      sender: SENDER,
      amount: "5000000000",
      pox_addr: { version: "0x04", hashbytes: `0x${G_HASH160}` },
      start_burn_height: 799,
      lock_period: 6,
      signer_key: `0x${signerKey}`,
      max_amount: "9000000000",
      auth_id: "42",
      contract: "pox-4",
    });
  });

  it("stack_stx without a signer key names the PoX contract that printed, else pox", () => {
    const nodeOp = {
      stack_stx: {
        sender: addr(SENDER),
        reward_addr: "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH",
        stacked_ustx: 10,
        num_cycles: 1,
        burn_block_height: 799,
        signer_key: null,
        max_amount: null,
        auth_id: null,
      },
    };
    const print = event({
      type: "print",
      contractId: "SP000000000000000000002Q6VF78.pox-3",
      payload: { value: { ok: { name: "stack-stx", stacker: SENDER, data: {} } } },
    });
    const withPrint = decodeBurnchainOp({ ...base, nodeOp, events: [print] });
    expect(withPrint).toMatchObject({ contract: "pox-3", signer_key: null, max_amount: null, auth_id: null });
    expect(withPrint).toMatchObject({ pox_addr: { version: "0x00", hashbytes: `0x${G_HASH160}` } });
    expect(decodeBurnchainOp({ ...base, nodeOp })).toMatchObject({ contract: "pox" });
  });

  it("delegate_stx, with and without the optional values", () => {
    const nodeOp = {
      delegate_stx: {
        sender: addr(SENDER),
        delegate_to: addr(DELEGATE),
        delegated_ustx: 77,
        reward_addr: [1, "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH"],
        until_burn_height: 900,
        burn_block_height: 799,
      },
    };
    const print = event({
      contractId: "ST000000000000000000002AMW42H.pox-4",
      payload: { value: { name: "delegate-stx" } },
    });
    expect(decodeBurnchainOp({ ...base, nodeOp, events: [print] })).toEqual({
      op: "delegate_stx",
      source: "node",
      sender: SENDER,
      amount: "77",
      delegate_to: DELEGATE,
      until_burn_height: 900,
      pox_addr: { version: "0x00", hashbytes: `0x${G_HASH160}` },
      contract: "pox-4",
    });
    const bare = { delegate_stx: { ...nodeOp.delegate_stx, reward_addr: null, until_burn_height: null } };
    expect(decodeBurnchainOp({ ...base, nodeOp: bare })).toMatchObject({ until_burn_height: null, pox_addr: null });
  });

  it("vote_for_aggregate_key", () => {
    const nodeOp = {
      vote_for_aggregate_key: {
        sender: addr(SENDER),
        aggregate_key: "03".padEnd(66, "c"),
        reward_cycle: 90,
        round: 2,
        signer_index: 7,
        signer_key: "02".padEnd(66, "d"),
        burn_block_height: 799,
      },
    };
    expect(decodeBurnchainOp({ ...base, nodeOp })).toEqual({
      op: "vote_for_aggregate_key",
      source: "node",
      sender: SENDER,
      signer_index: 7,
      aggregate_key: `0x${"03".padEnd(66, "c")}`,
      round: 2,
      reward_cycle: 90,
      signer_key: `0x${"02".padEnd(66, "d")}`,
    });
  });

  it("an op of another shape, or with a missing value, falls back to the events (null without)", () => {
    expect(decodeBurnchainOp({ ...base, nodeOp: { pre_stx: { output: addr(SENDER) } } })).toBeNull();
    expect(decodeBurnchainOp({ ...base, nodeOp: { stack_stx: { sender: addr(SENDER) } } })).toBeNull();
    expect(decodeBurnchainOp({ ...base, nodeOp: { transfer_stx: "x" } })).toBeNull();
    expect(decodeBurnchainOp({ ...base, nodeOp: [1, 2] })).toBeNull();
  });
});

describe("decodeBurnchainOp from the events (nodes that send no burnchain_op)", () => {
  it("an STX transfer event is a transfer_stx op", () => {
    const transfer = event({ type: "stx_transfer", sender: SENDER, recipient: DELEGATE, amount: "5" });
    expect(
      decodeBurnchainOp({ nodeOp: undefined, result: { ok: true }, events: [transfer], burnBlockHeight: 1 }),
    ).toEqual({ op: "transfer_stx", source: "events", sender: SENDER, recipient: DELEGATE, amount: "5", memo: null });
  });

  it("an STX lock with the PoX result is a stack-stx: whole reward cycles to the unlock height", () => {
    const lock = event({ type: "stx_lock", sender: SENDER, amount: "70" });
    const result = { ok: { "lock-amount": "70", stacker: SENDER, "unlock-burn-height": String(1000 + 2 * 2100 + 5) } };
    expect(decodeBurnchainOp({ nodeOp: null, result, events: [lock], burnBlockHeight: 1000 })).toEqual({
      op: "stack_stx",
      source: "events",
      sender: SENDER,
      amount: "70",
      pox_addr: { version: "0x00", hashbytes: "0xbf62424dfc82f6c7574986f00922b393249ca2d7" },
      start_burn_height: 1000,
      lock_period: 2,
      signer_key: null,
      max_amount: null,
      auth_id: null,
      contract: "pox",
    });
    // a failed call's result names nothing
    expect(decodeBurnchainOp({ nodeOp: null, result: { err: "1" }, events: [lock], burnBlockHeight: 1000 })).toBeNull();
  });

  it("a PoX stack-stx print gives the PoX address and the contract", () => {
    const testnet = "ST2ZP4GJDZJ1FDHTQ963F0292PE9J9752TYN9S2B9";
    const lock = event({ type: "stx_lock", sender: testnet, amount: "70" });
    const print = event({
      contractId: "ST000000000000000000002AMW42H.pox-2",
      payload: {
        value: {
          ok: { name: "stack-stx", stacker: testnet, data: { "pox-addr": { version: "0x04", hashbytes: "0xaa" } } },
        },
      },
    });
    const result = { ok: { "lock-amount": "70", stacker: testnet, "unlock-burn-height": "260" } };
    expect(decodeBurnchainOp({ nodeOp: null, result, events: [print, lock], burnBlockHeight: 100 })).toMatchObject({
      pox_addr: { version: "0x04", hashbytes: "0xaa" },
      contract: "pox-2",
      // testnet reward cycles are 50 burn blocks
      lock_period: 3,
    });
  });

  it("a PoX delegate-stx print is a delegate_stx op", () => {
    const print = event({
      contractId: "SP000000000000000000002Q6VF78.pox-2",
      payload: {
        value: {
          ok: {
            name: "delegate-stx",
            stacker: SENDER,
            data: { "amount-ustx": "9", "delegate-to": DELEGATE, "unlock-burn-height": null, "pox-addr": null },
          },
        },
      },
    });
    expect(decodeBurnchainOp({ nodeOp: null, result: { ok: true }, events: [print], burnBlockHeight: 1 })).toEqual({
      op: "delegate_stx",
      source: "events",
      sender: SENDER,
      amount: "9",
      delegate_to: DELEGATE,
      until_burn_height: null,
      pox_addr: null,
      contract: "pox-2",
    });
  });

  it("no event and no op: null", () => {
    expect(decodeBurnchainOp({ nodeOp: undefined, result: { err: "11" }, events: [], burnBlockHeight: 1 })).toBeNull();
  });
});
