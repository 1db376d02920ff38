/**
 * Stacks transaction wire format: assembles single-sig standard transactions from a payload and an
 * account's template signature (tests check the bytes against @stacks/transactions), computes txids,
 * and re-signs a transaction for real when full signing is asked for.
 */
import { createHash } from "node:crypto";
import { TransactionSigner, createAddress, deserializeTransaction } from "@stacks/transactions";
import type { Network } from "../config/networks.js";
import type { Account } from "./accounts.js";
import { asciiHex, u8Hex, u32Hex, u64Hex } from "./clarity-hex.js";

export const ANCHOR_ON_CHAIN_ONLY = 1;
export const ANCHOR_ANY = 3;
export const POST_CONDITION_ALLOW = 1;
export const POST_CONDITION_DENY = 2;

export interface TxEnvelope {
  nonce: number;
  fee: number;
  anchorMode: typeof ANCHOR_ON_CHAIN_ONLY | typeof ANCHOR_ANY;
  postConditionMode: typeof POST_CONDITION_ALLOW | typeof POST_CONDITION_DENY;
  /** Serialized payload, hex without 0x. */
  payloadHex: string;
}

/** Raw transaction (0x-hex): version, chain id, standard P2PKH auth carrying the template signature, payload. */
export function assembleTx(network: Network, sender: Account, envelope: TxEnvelope): string {
  const mainnet = network === "mainnet";
  return (
    (mainnet ? "0x0000000001" : "0x8080000000") +
    "0400" +
    sender.hash160 +
    u64Hex(envelope.nonce) +
    u64Hex(envelope.fee) +
    "00" +
    sender.templateSignature +
    u8Hex(envelope.anchorMode) +
    u8Hex(envelope.postConditionMode) +
    "00000000" +
    envelope.payloadHex
  );
}

/** txid = SHA-512/256 of the raw transaction bytes. */
export function txidOf(rawTx: string): string {
  return `0x${createHash("sha512-256")
    .update(Buffer.from(rawTx.slice(2), "hex"))
    .digest("hex")}`;
}

/** Signs `rawTx` for real with the sender's key (the slow path: ~1 ms per transaction). */
export function resignTx(rawTx: string, privateKey: string): string {
  const tx = deserializeTransaction(rawTx);
  new TransactionSigner(tx).signOrigin(privateKey);
  return `0x${tx.serialize()}`;
}

const addressHexCache = new Map<string, string>();

/** Version byte + hash160 of a c32 address, as payloads embed it. */
export function addressHex(address: string): string {
  let hex = addressHexCache.get(address);
  if (hex === undefined) {
    const wire = createAddress(address);
    hex = u8Hex(wire.version) + wire.hash160;
    addressHexCache.set(address, hex);
  }
  return hex;
}

/** Token transfer: recipient principal value, amount, 34-byte memo. */
export function tokenTransferPayload(
  recipientPrincipalHex: string,
  amount: bigint | number,
  memoHex34: string,
): string {
  return `00${recipientPrincipalHex}${u64Hex(amount)}${memoHex34}`;
}

const callPrefixCache = new Map<string, string>();

/** Contract call: contract address, contract name, function name, serialized arguments. */
export function contractCallPayload(contractId: string, functionName: string, argsHex: readonly string[]): string {
  const key = `${contractId}::${functionName}`;
  let prefix = callPrefixCache.get(key);
  if (prefix === undefined) {
    const [address, name] = contractId.split(".");
    prefix = `02${addressHex(address)}${lpString(name)}${lpString(functionName)}`;
    callPrefixCache.set(key, prefix);
  }
  let out = prefix + u32Hex(argsHex.length);
  for (const arg of argsHex) out += arg;
  return out;
}

/** Versioned smart contract (Clarity version byte, name, code). */
export function versionedContractPayload(contractName: string, code: string, clarityVersion: number): string {
  const codeHex = Buffer.from(code, "utf8").toString("hex");
  return `06${u8Hex(clarityVersion)}${lpString(contractName)}${u32Hex(codeHex.length / 2)}${codeHex}`;
}

export interface TenureChangeFields {
  tenureConsensusHash: string;
  previousTenureConsensusHash: string;
  burnViewConsensusHash: string;
  previousTenureEnd: string;
  previousTenureBlocks: number;
  /** 0 = block found, 1 = extended. */
  cause: number;
  pubkeyHash: string;
}

/** Tenure change (hashes as hex without 0x). */
export function tenureChangePayload(f: TenureChangeFields): string {
  return (
    "07" +
    f.tenureConsensusHash +
    f.previousTenureConsensusHash +
    f.burnViewConsensusHash +
    f.previousTenureEnd +
    u32Hex(f.previousTenureBlocks) +
    u8Hex(f.cause) +
    f.pubkeyHash
  );
}

/** Nakamoto coinbase: 32-byte coinbase buffer, optional alternate recipient, 80-byte VRF proof. */
export function nakamotoCoinbasePayload(
  coinbaseHex32: string,
  recipientPrincipalHex: string | null,
  vrfProofHex80: string,
): string {
  return `08${coinbaseHex32}${recipientPrincipalHex ? `0a${recipientPrincipalHex}` : "09"}${vrfProofHex80}`;
}

function lpString(text: string): string {
  return u8Hex(text.length) + asciiHex(text);
}
