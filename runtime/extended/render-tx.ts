/**
 * Transactions in Hiro's `Transaction` shape: the common fields from the stored row and its block,
 * what only the raw bytes hold (post conditions, anchor mode, payloads; tx-wire.ts), and the
 * call's function signature and argument names from the called contract's stored interface. Pure.
 */
import { type ClarityAbiType, type ClarityValue, getCVTypeString, getTypeString } from "@stacks/transactions";
import { fromHex, fromValue } from "./clarity.js";
import { syntheticContractId, syntheticPayload } from "./render-burnchain-op.js";
import { renderEvent } from "./render-event.js";
import { isoTime } from "./render-block.js";
import type { EventRow } from "./event-reads.js";
import type { TxRow } from "./tx-reads.js";
import { readTxWire } from "./tx-wire.js";

/** Hiro's microblock fields of a transaction mined in an anchor block. */
const NO_MICROBLOCK = { hash: "0x", sequence: 2_147_483_647 };

interface AbiFunction {
  name: string;
  access: string;
  args: { name: string; type: ClarityAbiType }[];
}

export interface TxRenderInput {
  row: TxRow;
  events: EventRow[];
  /** The called contract's stored interface (contract calls), or null when it is not stored. */
  calledInterface?: unknown;
}

/** The contract whose interface names a transaction's call arguments, or null when it calls none. */
export function calledContractId(t: TxRow): string | null {
  if (t.burnchain_op) return syntheticContractId(t.burnchain_op_details);
  return t.tx_type === "contract_call" ? t.contract_id : null;
}

export function renderTx({ row: t, events, calledInterface }: TxRenderInput): Record<string, unknown> {
  if (t.burnchain_op) return renderBurnchainOp(t, events, calledInterface);
  const wire = readTxWire(t.raw_tx);
  return { ...renderTxBase(t, events, wire), ...payloadFields(t, wire, calledInterface) };
}

/** The fields every transaction type has. */
function renderTxBase(t: TxRow, events: EventRow[], wire: ReturnType<typeof readTxWire>): Record<string, unknown> {
  const cost = t.execution_cost ?? [0, 0, 0, 0, 0];
  const blockTime = Number(t.block_time);
  const burnTime = Number(t.burn_block_time);
  const parentBurnTime = t.parent_burn_block_time === null ? 0 : Number(t.parent_burn_block_time);
  const base: Record<string, unknown> = {
    tx_id: t.tx_id,
    nonce: t.nonce === null ? 0 : Number(t.nonce),
    fee_rate: t.fee ?? "0",
    sender_address: t.sender ?? "",
    sponsored: t.sponsor !== null,
    post_condition_mode: wire?.postConditionMode ?? "allow",
    post_conditions: wire?.postConditions ?? [],
    anchor_mode: wire?.anchorMode ?? "on_chain_only",
    block_hash: t.block_hash,
    block_height: Number(t.block_height),
    block_time: blockTime,
    block_time_iso: isoTime(blockTime),
    burn_block_height: Number(t.burn_block_height),
    burn_block_time: burnTime,
    burn_block_time_iso: isoTime(burnTime),
    parent_burn_block_time: parentBurnTime,
    parent_burn_block_time_iso: isoTime(parentBurnTime),
    canonical: t.canonical,
    tx_index: Number(t.tx_index),
    tx_status: t.status,
    tx_result: fromHex(t.raw_result),
    event_count: Number(t.event_count),
    parent_block_hash: t.parent_block_hash,
    is_unanchored: false,
    microblock_hash: t.microblock_hash ?? NO_MICROBLOCK.hash,
    microblock_sequence: t.microblock_sequence ?? NO_MICROBLOCK.sequence,
    microblock_canonical: true,
    execution_cost_read_count: cost[0],
    execution_cost_read_length: cost[1],
    execution_cost_runtime: cost[2],
    execution_cost_write_count: cost[3],
    execution_cost_write_length: cost[4],
    events: events.map(renderEvent),
  };
  if (t.sponsor !== null) {
    base.sponsor_address = t.sponsor;
    if (wire?.sponsorNonce !== null && wire?.sponsorNonce !== undefined) base.sponsor_nonce = wire.sponsorNonce;
  }
  return base;
}

/**
 * A Bitcoin-originated op, as Hiro renders it: the Stacks transaction it stands for
 * (render-burnchain-op.ts), sent by the op's sender with nonce 0, no fee, anchor mode `any`.
 */
function renderBurnchainOp(t: TxRow, events: EventRow[], calledInterface: unknown): Record<string, unknown> {
  const details = t.burnchain_op_details;
  const base = renderTxBase(t, events, null);
  base.sender_address = details?.sender ?? t.sender ?? "";
  base.anchor_mode = "any";
  const p = syntheticPayload(details);
  if (p.kind === "token_transfer") {
    return {
      ...base,
      tx_type: "token_transfer",
      token_transfer: { recipient_address: p.recipient, amount: p.amount, memo: p.memo },
    };
  }
  return { ...base, ...contractCallFields(p.call.contractId, p.call.functionName, p.call.args, calledInterface) };
}

/** `contract_call` fields; `function_args` left out when the arguments are not known. */
function contractCallFields(
  contractId: string,
  functionName: string,
  args: ClarityValue[] | null,
  calledInterface: unknown,
): Record<string, unknown> {
  const fn = abiFunction(calledInterface, functionName);
  const call: Record<string, unknown> = {
    contract_id: contractId,
    function_name: functionName,
    function_signature: fn ? signature(fn) : "",
  };
  if (args !== null) {
    call.function_args = args.map((cv, i) => ({
      ...fromValue(cv),
      name: fn?.args[i]?.name ?? "",
      type: fn?.args[i] ? getTypeString(fn.args[i].type) : getCVTypeString(cv),
    }));
  }
  return { tx_type: "contract_call", contract_call: call };
}

function payloadFields(
  t: TxRow,
  wire: ReturnType<typeof readTxWire>,
  calledInterface: unknown,
): Record<string, unknown> {
  if (wire === null) return {};
  const p = wire.payload;
  switch (p.kind) {
    case "smart_contract":
      return {
        tx_type: "smart_contract",
        smart_contract: {
          clarity_version: p.clarityVersion,
          contract_id: t.contract_id ?? "",
          source_code: p.sourceCode,
        },
      };
    case "contract_call":
      return contractCallFields(t.contract_id ?? "", t.function_name ?? "", p.args, calledInterface);
    case "coinbase":
      return {
        tx_type: "coinbase",
        coinbase_payload: { data: p.data, alt_recipient: p.altRecipient, vrf_proof: p.vrfProof },
      };
    case "tenure_change":
      return {
        tx_type: "tenure_change",
        tenure_change_payload: {
          tenure_consensus_hash: p.tenureConsensusHash,
          prev_tenure_consensus_hash: p.prevTenureConsensusHash,
          burn_view_consensus_hash: p.burnViewConsensusHash,
          previous_tenure_end: p.previousTenureEnd,
          previous_tenure_blocks: p.previousTenureBlocks,
          cause: p.cause,
          pubkey_hash: p.pubkeyHash,
        },
      };
    case "poison_microblock":
      return {
        tx_type: "poison_microblock",
        poison_microblock: { microblock_header_1: p.header1, microblock_header_2: p.header2 },
      };
    default:
      return {
        tx_type: "token_transfer",
        token_transfer: { recipient_address: t.recipient ?? "", amount: t.amount ?? "0", memo: t.memo ?? "" },
      };
  }
}

function abiFunction(contractInterface: unknown, name: string): AbiFunction | null {
  const fns = (contractInterface as { functions?: AbiFunction[] } | null)?.functions;
  return Array.isArray(fns) ? (fns.find((f) => f.name === name) ?? null) : null;
}

/** `(define-public (name (a uint) (b principal)))`, as Hiro writes a call's signature. */
function signature(fn: AbiFunction): string {
  const access = fn.access === "read_only" ? "read-only" : fn.access;
  const args = fn.args.map((a) => ` (${a.name} ${getTypeString(a.type)})`).join("");
  return `(define-${access} (${fn.name}${args}))`;
}
