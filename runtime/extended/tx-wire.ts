/**
 * What a transaction's Extended rendering needs from its raw bytes and nothing stored holds: post
 * conditions and their mode, the anchor mode, contract source and Clarity version, call arguments,
 * coinbase and tenure-change payloads (Hiro field names and enums). Pure; decoding with
 * @stacks/transactions, as ingestion does.
 */
import {
  AnchorMode,
  type ClarityValue,
  PayloadType,
  PostConditionMode,
  TenureChangeCause,
  cvToString,
  deserializeTransaction,
  type PostCondition,
  wireToPostCondition,
} from "@stacks/transactions";
import { fromValue, type HexRepr } from "./clarity.js";

const bytesToHex = (b: Uint8Array) => Buffer.from(b).toString("hex");

type Principal =
  | { type_id: "principal_origin" }
  | { type_id: "principal_standard"; address: string }
  | { type_id: "principal_contract"; address: string; contract_name: string };

/** Hiro's post condition object. */
export type HiroPostCondition = Record<string, unknown> & { type: "stx" | "fungible" | "non_fungible" };

export interface TxWireFacts {
  postConditionMode: "allow" | "deny" | "originator";
  anchorMode: "on_chain_only" | "off_chain_only" | "any";
  postConditions: HiroPostCondition[];
  sponsorNonce: number | null;
  payload:
    | { kind: "smart_contract"; sourceCode: string; clarityVersion: number | null }
    | { kind: "contract_call"; args: ClarityValue[] }
    | { kind: "coinbase"; data: string; altRecipient: string | null; vrfProof: string | null }
    | {
        kind: "tenure_change";
        tenureConsensusHash: string;
        prevTenureConsensusHash: string;
        burnViewConsensusHash: string;
        previousTenureEnd: string;
        previousTenureBlocks: number;
        cause: string;
        pubkeyHash: string;
      }
    | { kind: "poison_microblock"; header1: string; header2: string }
    | { kind: "other" };
}

const ANCHOR: Record<number, TxWireFacts["anchorMode"]> = {
  [AnchorMode.OnChainOnly]: "on_chain_only",
  [AnchorMode.OffChainOnly]: "off_chain_only",
  [AnchorMode.Any]: "any",
};
const PC_MODE: Record<number, TxWireFacts["postConditionMode"]> = {
  [PostConditionMode.Allow]: "allow",
  [PostConditionMode.Deny]: "deny",
  [PostConditionMode.Originator]: "originator",
};
const COMPARATOR: Record<string, string> = {
  eq: "sent_equal_to",
  gt: "sent_greater_than",
  gte: "sent_greater_than_or_equal_to",
  lt: "sent_less_than",
  lte: "sent_less_than_or_equal_to",
  sent: "sent",
  "not-sent": "not_sent",
  "maybe-sent": "maybe_sent",
};
/** A poison-microblock payload: two microblock headers, 132 bytes each, ending the transaction. */
const MICROBLOCK_HEADER_BYTES = 132;

/** Decodes a stored raw transaction; null for a Bitcoin-originated operation (no Stacks bytes). */
export function readTxWire(rawTx: string): TxWireFacts | null {
  if (rawTx === "0x00") return null;
  const wire = deserializeTransaction(rawTx.startsWith("0x") ? rawTx.slice(2) : rawTx);
  const auth = wire.auth as { authType: number; sponsorSpendingCondition?: { nonce: bigint } };
  return {
    postConditionMode: PC_MODE[wire.postConditionMode] ?? "deny",
    anchorMode: ANCHOR[wire.anchorMode] ?? "any",
    postConditions: wire.postConditions.values
      .map((pc) => toHiro(wireToPostCondition(pc as Parameters<typeof wireToPostCondition>[0])))
      .filter((pc): pc is HiroPostCondition => pc !== null),
    sponsorNonce: auth.sponsorSpendingCondition ? Number(auth.sponsorSpendingCondition.nonce) : null,
    payload: payloadFacts(wire.payload, rawTx),
  };
}

function payloadFacts(p: ReturnType<typeof deserializeTransaction>["payload"], rawTx: string): TxWireFacts["payload"] {
  switch (p.payloadType) {
    case PayloadType.SmartContract:
      return { kind: "smart_contract", sourceCode: p.codeBody.content, clarityVersion: null };
    case PayloadType.VersionedSmartContract:
      return { kind: "smart_contract", sourceCode: p.codeBody.content, clarityVersion: p.clarityVersion };
    case PayloadType.ContractCall:
      return { kind: "contract_call", args: p.functionArgs };
    case PayloadType.Coinbase:
      return { kind: "coinbase", data: hex0x(p.coinbaseBytes), altRecipient: null, vrfProof: null };
    case PayloadType.CoinbaseToAltRecipient:
      return { kind: "coinbase", data: hex0x(p.coinbaseBytes), altRecipient: cvToString(p.recipient), vrfProof: null };
    case PayloadType.NakamotoCoinbase:
      return {
        kind: "coinbase",
        data: hex0x(p.coinbaseBytes),
        altRecipient: p.recipient ? cvToString(p.recipient) : null,
        vrfProof: hex0x(p.vrfProof),
      };
    case PayloadType.TenureChange:
      return {
        kind: "tenure_change",
        tenureConsensusHash: prefixed(p.tenureHash),
        prevTenureConsensusHash: prefixed(p.previousTenureHash),
        burnViewConsensusHash: prefixed(p.burnViewHash),
        previousTenureEnd: prefixed(p.previousTenureEnd),
        previousTenureBlocks: p.previousTenureBlocks,
        cause: p.cause === TenureChangeCause.BlockFound ? "block_found" : "extended",
        pubkeyHash: prefixed(p.publicKeyHash),
      };
    case PayloadType.PoisonMicroblock: {
      const hex = rawTx.startsWith("0x") ? rawTx.slice(2) : rawTx;
      const n = MICROBLOCK_HEADER_BYTES * 2;
      const body = hex.slice(hex.length - 2 * n);
      return { kind: "poison_microblock", header1: `0x${body.slice(0, n)}`, header2: `0x${body.slice(n)}` };
    }
    default:
      return { kind: "other" };
  }
}

/** Hiro's shape of a post condition; null for staking and PoX post conditions, which it has none for. */
function toHiro(pc: PostCondition): HiroPostCondition | null {
  if (pc.type !== "stx-postcondition" && pc.type !== "ft-postcondition" && pc.type !== "nft-postcondition") return null;
  const principal = principalOf(pc.address);
  switch (pc.type) {
    case "stx-postcondition":
      return { type: "stx", principal, condition_code: COMPARATOR[pc.condition], amount: String(pc.amount) };
    case "ft-postcondition":
      return {
        type: "fungible",
        principal,
        condition_code: COMPARATOR[pc.condition],
        amount: String(pc.amount),
        asset: assetOf(pc.asset),
      };
    case "nft-postcondition":
      return {
        type: "non_fungible",
        principal,
        condition_code: COMPARATOR[pc.condition],
        asset: assetOf(pc.asset),
        asset_value: fromValue(pc.assetId) satisfies HexRepr,
      };
  }
}

function principalOf(address: string): Principal {
  if (address === "origin") return { type_id: "principal_origin" };
  const [addr, name] = address.split(".");
  return name === undefined
    ? { type_id: "principal_standard", address: addr }
    : { type_id: "principal_contract", address: addr, contract_name: name };
}

function assetOf(asset: string): { asset_name: string; contract_address: string; contract_name: string } {
  const [contract, assetName] = asset.split("::");
  const [address, name] = contract.split(".");
  return { asset_name: assetName ?? "", contract_address: address, contract_name: name ?? "" };
}

const hex0x = (b: Uint8Array) => `0x${bytesToHex(b)}`;
const prefixed = (h: string) => (h.startsWith("0x") ? h : `0x${h}`);
