/**
 * The details of a Bitcoin-originated operation (`raw_tx` "0x00"): the node's `burnchain_op`
 * field when it sends one (`{ <kind>: { sender: {address}, … } }` for transfer_stx, stack_stx,
 * delegate_stx, vote_for_aggregate_key), otherwise what the op's receipt and events show (older
 * nodes): an STX transfer event, an STX lock with the PoX call's `(ok {lock-amount, stacker,
 * unlock-burn-height})` result, or a PoX `delegate-stx` print. Pure; null when neither tells
 * (a failed op from a node that sends no `burnchain_op` has no event). Never throws: the details
 * are informational, a block is never refused for them.
 */
import { AddressVersion, createAddress } from "@stacks/transactions";
import type { BurnchainOpDetails, ClarityJson, DecodedEvent } from "../types.js";
import { isRecord } from "./fields.js";
import { type PoxAddress, poxAddressFromBitcoin, poxAddressFromStacks, poxAddressFromTuple } from "./pox-address.js";

/** Reward cycle length (burn blocks) the events-only rule assumes: mainnet's, else the test networks'. */
const MAINNET_REWARD_CYCLE = 2100;
const TESTNET_REWARD_CYCLE = 50;
/** The PoX contract of a call when nothing names it: the first one. */
const FIRST_POX_CONTRACT = "pox";
const BOOT_ADDRESSES = new Set(["SP000000000000000000002Q6VF78", "ST000000000000000000002AMW42H"]);

export interface BurnchainOpInput {
  /** The node's `burnchain_op` field (undefined or null when not sent). */
  nodeOp: unknown;
  /** The transaction's decoded result. */
  result: ClarityJson;
  /** The transaction's events. */
  events: readonly DecodedEvent[];
  /** Burn height of the block that holds the op. */
  burnBlockHeight: number;
}

export function decodeBurnchainOp(input: BurnchainOpInput): BurnchainOpDetails | null {
  try {
    return (isRecord(input.nodeOp) ? fromNodeOp(input.nodeOp, input.events) : null) ?? fromEvents(input);
  } catch {
    return null;
  }
}

function fromNodeOp(op: Record<string, unknown>, events: readonly DecodedEvent[]): BurnchainOpDetails | null {
  const print = poxPrint(events);
  if (isRecord(op.transfer_stx)) {
    const o = op.transfer_stx;
    const sender = address(o.sender);
    const recipient = address(o.recipient);
    const amount = decimal(o.transfered_ustx ?? o.transferred_ustx);
    if (sender === null || recipient === null || amount === null) return null;
    return { op: "transfer_stx", source: "node", sender, recipient, amount, memo: hex0x(o.memo) };
  }
  if (isRecord(op.stack_stx)) {
    const o = op.stack_stx;
    const sender = address(o.sender);
    const amount = decimal(o.stacked_ustx);
    const start = integer(o.burn_block_height);
    const period = integer(o.num_cycles);
    if (sender === null || amount === null || start === null || period === null) return null;
    const signerKey = hex0x(o.signer_key);
    const rewardAddress = typeof o.reward_addr === "string" ? poxAddressFromBitcoin(o.reward_addr) : null;
    return {
      op: "stack_stx",
      source: "node",
      sender,
      amount,
      pox_addr: rewardAddress ?? printPoxAddress(print),
      start_burn_height: start,
      lock_period: period,
      signer_key: signerKey,
      max_amount: signerKey === null ? null : decimal(o.max_amount),
      auth_id: signerKey === null ? null : decimal(o.auth_id),
      // Only pox-4's stack-stx takes a signer key.
      contract: signerKey !== null ? "pox-4" : (print?.contract ?? FIRST_POX_CONTRACT),
    };
  }
  if (isRecord(op.delegate_stx)) {
    const o = op.delegate_stx;
    const sender = address(o.sender);
    const delegateTo = address(o.delegate_to);
    const amount = decimal(o.delegated_ustx);
    if (sender === null || delegateTo === null || amount === null) return null;
    // reward_addr: [output index, address] or null
    const reward = Array.isArray(o.reward_addr) && typeof o.reward_addr[1] === "string" ? o.reward_addr[1] : null;
    return {
      op: "delegate_stx",
      source: "node",
      sender,
      amount,
      delegate_to: delegateTo,
      until_burn_height: integer(o.until_burn_height),
      pox_addr: reward === null ? null : poxAddressFromBitcoin(reward),
      contract: print?.contract ?? FIRST_POX_CONTRACT,
    };
  }
  if (isRecord(op.vote_for_aggregate_key)) {
    const o = op.vote_for_aggregate_key;
    const sender = address(o.sender);
    const signerIndex = integer(o.signer_index);
    const aggregateKey = hex0x(o.aggregate_key);
    const round = integer(o.round);
    const rewardCycle = integer(o.reward_cycle);
    const signerKey = hex0x(o.signer_key);
    if (
      sender === null ||
      signerIndex === null ||
      aggregateKey === null ||
      round === null ||
      rewardCycle === null ||
      signerKey === null
    )
      return null;
    return {
      op: "vote_for_aggregate_key",
      source: "node",
      sender,
      signer_index: signerIndex,
      aggregate_key: aggregateKey,
      round,
      reward_cycle: rewardCycle,
      signer_key: signerKey,
    };
  }
  return null;
}

function fromEvents({ result, events, burnBlockHeight }: BurnchainOpInput): BurnchainOpDetails | null {
  const transfer = events.find((e) => e.type === "stx_transfer");
  if (transfer?.sender && transfer.recipient && transfer.amount !== null) {
    return {
      op: "transfer_stx",
      source: "events",
      sender: transfer.sender,
      recipient: transfer.recipient,
      amount: transfer.amount,
      memo: null,
    };
  }
  const print = poxPrint(events);
  const lock = events.find((e) => e.type === "stx_lock");
  if (lock?.sender) {
    // The PoX call's result: (ok { lock-amount, stacker, unlock-burn-height })
    const ok = isRecord(result) ? result.ok : undefined;
    if (!isRecord(ok)) return null;
    const amount = decimal(ok["lock-amount"]);
    const unlock = integer(ok["unlock-burn-height"]);
    const stacker = typeof ok.stacker === "string" ? ok.stacker : lock.sender;
    if (amount === null || unlock === null) return null;
    const cycle = isMainnet(lock.sender) ? MAINNET_REWARD_CYCLE : TESTNET_REWARD_CYCLE;
    return {
      op: "stack_stx",
      source: "events",
      sender: lock.sender,
      amount,
      pox_addr: (print?.name === "stack-stx" ? printPoxAddress(print) : null) ?? poxAddressFromStacks(stacker),
      start_burn_height: burnBlockHeight,
      lock_period: Math.floor((unlock - burnBlockHeight) / cycle),
      signer_key: null,
      max_amount: null,
      auth_id: null,
      contract: print?.contract ?? FIRST_POX_CONTRACT,
    };
  }
  if (print?.name === "delegate-stx" && print.stacker !== null && isRecord(print.data)) {
    const amount = decimal(print.data["amount-ustx"]);
    const delegateTo = print.data["delegate-to"];
    if (amount === null || typeof delegateTo !== "string") return null;
    return {
      op: "delegate_stx",
      source: "events",
      sender: print.stacker,
      amount,
      delegate_to: delegateTo,
      until_burn_height: integer(print.data["unlock-burn-height"]),
      pox_addr: poxAddressFromTuple(print.data["pox-addr"]),
      contract: print.contract,
    };
  }
  return null;
}

interface PoxPrint {
  contract: string;
  name: string | null;
  stacker: string | null;
  data: ClarityJson;
}

/** The op's print from a boot PoX contract (pox-2 onwards print `{ name, stacker, data, … }`, possibly as `(ok …)`). */
function poxPrint(events: readonly DecodedEvent[]): PoxPrint | null {
  for (const e of events) {
    if (e.type !== "print" || e.contractId === null) continue;
    const [deployer, name] = e.contractId.split(".");
    if (!BOOT_ADDRESSES.has(deployer) || !/^pox(-\d+)?$/.test(name ?? "")) continue;
    let value = e.payload.value;
    if (isRecord(value) && "ok" in value) value = value.ok;
    if (!isRecord(value)) continue;
    return {
      contract: name,
      name: typeof value.name === "string" ? value.name : null,
      stacker: typeof value.stacker === "string" ? value.stacker : null,
      data: value.data ?? null,
    };
  }
  return null;
}

function printPoxAddress(print: PoxPrint | null): PoxAddress | null {
  if (!print || !isRecord(print.data)) return null;
  return poxAddressFromTuple(print.data["pox-addr"]);
}

/** `{ address, … }` as the node serializes a Stacks address, or the address itself. */
function address(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (isRecord(v) && typeof v.address === "string") return v.address;
  return null;
}

function decimal(v: unknown): string | null {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return String(v);
  if (typeof v === "string" && /^\d+$/.test(v)) return v.replace(/^0+(?=\d)/, "");
  return null;
}

function integer(v: unknown): number | null {
  const d = decimal(v);
  return d === null || !Number.isSafeInteger(Number(d)) ? null : Number(d);
}

function hex0x(v: unknown): string | null {
  if (typeof v !== "string" || !/^(0x)?([0-9a-fA-F]{2})*$/.test(v)) return null;
  return (v.startsWith("0x") ? v : `0x${v}`).toLowerCase();
}

function isMainnet(stacksAddress: string): boolean {
  const { version } = createAddress(stacksAddress);
  return version === AddressVersion.MainnetSingleSig || version === AddressVersion.MainnetMultiSig;
}
