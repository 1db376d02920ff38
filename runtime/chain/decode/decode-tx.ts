/** One `/new_block` transaction → DecodedTx: raw_tx via @stacks/transactions (DESIGN.md §2). */
import {
  AddressHashMode,
  AddressVersion,
  AuthType,
  BytesReader,
  type ClarityValue,
  ClarityType,
  PayloadType,
  type SpendingCondition,
  type StacksTransactionWire,
  deserializeTransaction,
  serializeCV,
} from "@stacks/transactions";
import type { DecodedEvent, DecodedTx, ExecutionCost, TxType } from "../types.js";
import { c32Address } from "./address-cache.js";
import { decodeClarityHex } from "./clarity-json.js";
import { clarityValueEnd } from "./clarity-wire.js";
import { isRecord, type JsonObject, malformed, requireHash, requireIndex, requireString } from "./fields.js";
import { bytesToHex0x, hexToBytesStrict } from "./hex.js";

/** `raw_tx` of a Bitcoin-originated operation (the node has no Stacks transaction for it). */
const BURNCHAIN_OP_RAW_TX = "0x00";
/** Transaction version byte of mainnet transactions (anything else is a testnet flavour). */
const MAINNET_TX_VERSION = 0x00;
/** Poison-microblock payload body: two microblock headers of version(1) + sequence(2) +
 * prev_block(32) + tx_merkle_root(32) + signature(65) bytes. */
const POISON_PAYLOAD_BODY_BYTES = 2 * (1 + 2 + 32 + 32 + 65);
/** A token-transfer memo is the last field of the payload, which is last in the tx: 34 bytes. */
const MEMO_BYTES = 34;

/**
 * Decodes one element of a `/new_block` body's `transactions`. `path` names it in errors
 * (e.g. `transactions[3]`). `firstEvent` is the tx's first decoded event, used only to find
 * the sender of a Bitcoin-originated op whose `burnchain_op` field is absent.
 * Throws MalformedPayloadError on a missing/ill-typed field or an undecodable raw_tx/raw_result.
 */
export function decodeTx(raw: unknown, path: string, firstEvent?: DecodedEvent | null): DecodedTx {
  if (!isRecord(raw)) throw malformed(path, "must be an object", raw);
  const at = `${path}.`;
  const txId = requireHash(raw, "txid", at);
  const txIndex = requireIndex(raw, "tx_index", at);
  const rawTx = requireString(raw, "raw_tx", at);
  const status = requireString(raw, "status", at);
  const rawResult = requireString(raw, "raw_result", at);
  let result: DecodedTx["result"];
  try {
    result = decodeClarityHex(rawResult);
  } catch (err) {
    throw malformed(`${at}raw_result`, `is not a Clarity value (${errorText(err)})`, rawResult);
  }
  const microblockSequence = optionalIndex(raw, "microblock_sequence", at);
  const microblockHash = optionalString(raw, "microblock_hash", at);
  const vmError = optionalString(raw, "vm_error", at);
  const contractInterface = raw.contract_interface ?? raw.contract_abi ?? null;

  const tx: DecodedTx = {
    txId,
    txIndex,
    txType: "burnchain_op",
    status,
    sender: null,
    sponsor: null,
    nonce: null,
    fee: null,
    contractId: null,
    functionName: null,
    functionArgs: null,
    recipient: null,
    amount: null,
    memo: null,
    rawResult,
    result,
    rawTx,
    burnchainOp: false,
    microblockSequence,
    microblockHash,
    contractInterface,
    vmError,
    executionCost: executionCost(raw.execution_cost),
  };

  if (rawTx === BURNCHAIN_OP_RAW_TX) {
    tx.burnchainOp = true;
    tx.sender = burnchainOpSender(raw.burnchain_op) ?? firstEvent?.sender ?? null;
    return tx;
  }

  let bytes: Uint8Array;
  let wire: StacksTransactionWire;
  let payloadStart: number;
  try {
    bytes = hexToBytesStrict(rawTx);
    const reader = new PayloadMarkingReader(bytes);
    wire = deserializeTransaction(reader);
    payloadStart = reader.payloadStart;
    // The library does not read a poison-microblock payload's two microblock headers.
    const end =
      wire.payload.payloadType === PayloadType.PoisonMicroblock
        ? reader.readOffset + POISON_PAYLOAD_BODY_BYTES
        : reader.readOffset;
    if (end > bytes.length) throw new Error("truncated transaction");
    if (end < bytes.length) throw new Error(`${bytes.length - end} trailing byte(s) after the transaction`);
  } catch (err) {
    throw malformed(`${at}raw_tx`, `is not a Stacks transaction (${errorText(err)})`, rawTx);
  }
  fillFromWire(tx, wire, bytes, payloadStart);
  return tx;
}

/**
 * A BytesReader that notes where the payload starts: deserializePayload reads the payload type
 * byte through `readUInt8Enum(PayloadType, …)`, and nothing before the payload uses that enum.
 */
class PayloadMarkingReader extends BytesReader {
  payloadStart = -1;

  override readUInt8Enum<T extends string, TEnumValue extends number>(
    enumVariable: { [key in T]: TEnumValue },
    invalidEnumErrorFormatter: (val: number) => Error,
  ): TEnumValue {
    if ((enumVariable as unknown) === PayloadType && this.payloadStart < 0) this.payloadStart = this.readOffset;
    return super.readUInt8Enum(enumVariable, invalidEnumErrorFormatter);
  }
}

function fillFromWire(tx: DecodedTx, wire: StacksTransactionWire, bytes: Uint8Array, payloadStart: number): void {
  const mainnet = wire.transactionVersion === MAINNET_TX_VERSION;
  const auth = wire.auth;
  const origin = auth.spendingCondition;
  tx.sender = spenderAddress(origin, mainnet);
  tx.nonce = origin.nonce.toString();
  if (auth.authType === AuthType.Sponsored) {
    tx.sponsor = spenderAddress(auth.sponsorSpendingCondition, mainnet);
    tx.fee = auth.sponsorSpendingCondition.fee.toString();
  } else {
    tx.fee = origin.fee.toString();
  }

  const payload = wire.payload;
  tx.txType = TX_TYPES[payload.payloadType];
  switch (payload.payloadType) {
    case PayloadType.TokenTransfer:
      tx.recipient = principalOf(payload.recipient);
      tx.amount = payload.amount.toString();
      // The library decodes the memo as text; keep the exact bytes instead.
      tx.memo = bytesToHex0x(bytes.subarray(bytes.length - MEMO_BYTES));
      break;
    case PayloadType.ContractCall: {
      const contract = payload.contractAddress;
      tx.contractId = `${c32Address(contract.version, contract.hash160)}.${payload.contractName.content}`;
      tx.functionName = payload.functionName.content;
      tx.functionArgs =
        rawFunctionArgs(bytes, payloadStart, payload.functionArgs.length) ?? reserialize(payload.functionArgs);
      break;
    }
    case PayloadType.SmartContract:
    case PayloadType.VersionedSmartContract:
      tx.contractId = `${tx.sender}.${payload.contractName.content}`;
      break;
    case PayloadType.CoinbaseToAltRecipient:
    case PayloadType.NakamotoCoinbase:
      // The coinbase's alternative reward recipient, when one is named.
      tx.recipient = payload.recipient === undefined ? null : principalOf(payload.recipient);
      break;
    default:
      break;
  }
}

/**
 * The contract-call arguments exactly as sent (0x-hex each), sliced from the raw tx: re-serializing
 * the decoded values is slower and not always byte-identical (the library orders tuple keys with
 * localeCompare, Clarity orders them bytewise). Null when the layout is not as expected.
 */
function rawFunctionArgs(bytes: Uint8Array, payloadStart: number, count: number): string[] | null {
  if (payloadStart < 0) return null;
  try {
    // payload type(1) + contract address version(1) + hash160(20), then two length-prefixed names
    let pos = payloadStart + 22;
    pos += 1 + bytes[pos];
    pos += 1 + bytes[pos];
    const declared = ((bytes[pos] << 24) >>> 0) + (bytes[pos + 1] << 16) + (bytes[pos + 2] << 8) + bytes[pos + 3];
    if (declared !== count) return null;
    pos += 4;
    const out: string[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const end = clarityValueEnd(bytes, pos);
      out[i] = bytesToHex0x(bytes.subarray(pos, end));
      pos = end;
    }
    return pos === bytes.length ? out : null;
  } catch {
    return null;
  }
}

function reserialize(args: ClarityValue[]): string[] {
  const out: string[] = new Array(args.length);
  for (let i = 0; i < args.length; i++) out[i] = `0x${serializeCV(args[i])}`;
  return out;
}

const TX_TYPES: Record<PayloadType, TxType> = {
  [PayloadType.TokenTransfer]: "token_transfer",
  [PayloadType.ContractCall]: "contract_call",
  [PayloadType.SmartContract]: "smart_contract",
  [PayloadType.VersionedSmartContract]: "versioned_smart_contract",
  [PayloadType.Coinbase]: "coinbase",
  [PayloadType.CoinbaseToAltRecipient]: "coinbase_to_alt_recipient",
  [PayloadType.NakamotoCoinbase]: "nakamoto_coinbase",
  [PayloadType.PoisonMicroblock]: "poison_microblock",
  [PayloadType.TenureChange]: "tenure_change",
};

/** A principal CV (possibly wrapped in an optional, as the Nakamoto coinbase recipient is). */
function principalOf(cv: ClarityValue): string | null {
  switch (cv.type) {
    case ClarityType.PrincipalStandard:
    case ClarityType.PrincipalContract:
      return cv.value;
    case ClarityType.OptionalSome:
      return principalOf(cv.value);
    default:
      return null;
  }
}

/**
 * The address of a spending condition: single-sig P2PKH → SP/ST, every other hash mode
 * (multisig, and P2WPKH which is P2SH-wrapped) → the multisig version SM/SN.
 */
function spenderAddress(condition: SpendingCondition, mainnet: boolean): string {
  const singleSig = condition.hashMode === AddressHashMode.P2PKH;
  const version = mainnet
    ? singleSig
      ? AddressVersion.MainnetSingleSig
      : AddressVersion.MainnetMultiSig
    : singleSig
      ? AddressVersion.TestnetSingleSig
      : AddressVersion.TestnetMultiSig;
  return c32Address(version, condition.signer);
}

/**
 * Sender of a Bitcoin-originated op from the node's `burnchain_op` field, shaped
 * `{ <op kind>: { sender: { address, … } | "<address>", … } }` (transfer_stx, stack_stx,
 * delegate_stx, vote_for_aggregate_key, …). Null when absent or of another shape.
 */
function burnchainOpSender(op: unknown): string | null {
  if (!isRecord(op)) return null;
  for (const kind of Object.keys(op)) {
    const body = op[kind];
    if (!isRecord(body)) continue;
    const sender = body.sender;
    if (typeof sender === "string") return sender;
    if (isRecord(sender) && typeof sender.address === "string") return sender.address;
  }
  return null;
}

function optionalIndex(raw: JsonObject, key: string, at: string): number | null {
  const v = raw[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    throw malformed(`${at}${key}`, "must be a non-negative integer or null", v);
  }
  return v;
}

const COST_FIELDS = ["read_count", "read_length", "runtime", "write_count", "write_length"] as const;

/** The receipt's execution cost when every field is a non-negative integer; otherwise null (it
 * is informational: a block is never refused for it). */
function executionCost(v: unknown): ExecutionCost | null {
  if (!isRecord(v)) return null;
  for (const k of COST_FIELDS) {
    const n = v[k];
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) return null;
  }
  return {
    read_count: v.read_count as number,
    read_length: v.read_length as number,
    runtime: v.runtime as number,
    write_count: v.write_count as number,
    write_length: v.write_length as number,
  };
}

function optionalString(raw: JsonObject, key: string, at: string): string | null {
  const v = raw[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw malformed(`${at}${key}`, "must be a string or null", v);
  return v;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
