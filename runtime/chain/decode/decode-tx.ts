/** One `/new_block` transaction → DecodedTx: raw_tx read by tx-wire-reader.ts (DESIGN.md §2). */
import type { DecodedEvent, DecodedTx, ExecutionCost } from "../types.js";
import { decodeClarityHex } from "./clarity-json.js";
import { isRecord, type JsonObject, malformed, requireHash, requireIndex, requireString } from "./fields.js";
import { hexToBytesStrict } from "./hex.js";
import { readTransactionWire, type TransactionWire } from "./tx-wire-reader.js";

/** `raw_tx` of a Bitcoin-originated operation (the node has no Stacks transaction for it). */
const BURNCHAIN_OP_RAW_TX = "0x00";

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

  let wire: TransactionWire;
  try {
    wire = readTransactionWire(hexToBytesStrict(rawTx), lowercaseHexBody(rawTx));
  } catch (err) {
    throw malformed(`${at}raw_tx`, `is not a Stacks transaction (${errorText(err)})`, rawTx);
  }
  fillFromWire(tx, wire);
  return tx;
}

/** The hex digits of a (validated) hex string, without `0x`, in lowercase as the library gives them. */
function lowercaseHexBody(hex: string): string {
  const body = hex.startsWith("0x") || hex.startsWith("0X") ? hex.slice(2) : hex;
  return UPPERCASE_HEX.test(body) ? body.toLowerCase() : body;
}

const UPPERCASE_HEX = /[A-F]/;

function fillFromWire(tx: DecodedTx, wire: TransactionWire): void {
  tx.sender = wire.origin.address;
  tx.nonce = wire.origin.nonce;
  if (wire.sponsor !== null) {
    tx.sponsor = wire.sponsor.address;
    tx.fee = wire.sponsor.fee;
  } else {
    tx.fee = wire.origin.fee;
  }
  tx.txType = wire.txType;
  switch (wire.txType) {
    case "token_transfer":
      tx.recipient = wire.recipient;
      tx.amount = wire.amount;
      tx.memo = wire.memo;
      break;
    case "contract_call":
      tx.contractId = `${wire.contractAddress}.${wire.contractName}`;
      tx.functionName = wire.functionName;
      tx.functionArgs = wire.functionArgs;
      break;
    case "smart_contract":
    case "versioned_smart_contract":
      tx.contractId = `${tx.sender}.${wire.contractName}`;
      break;
    case "coinbase_to_alt_recipient":
    case "nakamoto_coinbase":
      // The coinbase's alternative reward recipient, when one is named.
      tx.recipient = wire.recipient;
      break;
    default:
      break;
  }
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
