/** Shared types and helpers of the simulator's actions (one action = one transaction with its events). */
import type { ClarityValue } from "@stacks/transactions";
import type { Network } from "../config/networks.js";
import type { Account, AccountBook } from "./accounts.js";
import { cvHex, cvRaw } from "./clarity-hex.js";
import type { ContractInterface } from "./contract-sources.js";
import type { SimContracts } from "./contracts.js";
import type { PlannedEvent } from "./events.js";
import type { Prng } from "./prng.js";
import type { ChainState } from "./state.js";
import { contractCallPayload } from "./tx-wire.js";

export interface ExecutionCost {
  read_count: number;
  read_length: number;
  runtime: number;
  write_count: number;
  write_length: number;
}

export const ZERO_COST: ExecutionCost = { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 };

/** A BNS-V2 lifecycle step, for the ground truth's final name ownership. */
export interface BnsOp {
  topic: "new-name" | "transfer-name" | "renew-name" | "burn-name";
  fqn: string;
  id: number;
  /** Owner after the step; null after burn-name. */
  owner: string | null;
}

/** One planned transaction: planning reads state only; `apply` writes it, and runs only if the tx commits. */
export interface TxPlan {
  sender: Account;
  txType: "token_transfer" | "contract_call" | "versioned_smart_contract";
  payloadHex: string;
  fee: number;
  /** raw_result (0x-hex). */
  result: string;
  events: PlannedEvent[];
  contractInterface: ContractInterface | null;
  cost: ExecutionCost;
  /** Contract calls may be aborted by a post-condition (events then carry committed:false). */
  canAbort: boolean;
  apply: () => void;
  bnsOps?: BnsOp[];
}

/** The largest fee `contractCall` draws (µSTX): actions that spend STX keep it aside. */
export const MAX_CALL_FEE = 60 * 500;

export interface ActionContext {
  rng: Prng;
  state: ChainState;
  accounts: AccountBook;
  contracts: SimContracts;
  network: Network;
  height: number;
  burnHeight: number;
  /** Burn block hash, hex without 0x. */
  burnHash: string;
  /** The hot mix's busy users are the first `hotUsers` ones. */
  hotUsers: number;
}

export function pickUser(ctx: ActionContext): number {
  return ctx.rng.below(ctx.accounts.userCount);
}

/** One of the hot mix's busy users. */
export function pickHotUser(ctx: ActionContext): number {
  return ctx.rng.below(ctx.hotUsers);
}

/** µSTX `account` may spend now (its balance less what an unexpired stacking lock holds). */
export function spendableStx(ctx: ActionContext, account: Account): bigint {
  return ctx.state.spendableStx(account.address, ctx.burnHeight);
}

/** A user other than `not` (the same one when there is only one). */
export function pickOtherUser(ctx: ActionContext, not: number): number {
  const count = ctx.accounts.userCount;
  if (count < 2) return not;
  const i = ctx.rng.below(count - 1);
  return i >= not ? i + 1 : i;
}

export function userAccount(ctx: ActionContext, index: number): Account {
  return ctx.accounts.user(index);
}

/** A contract-call plan with a random plausible fee and cost. */
export function contractCall(
  ctx: ActionContext,
  sender: Account,
  contractId: string,
  functionName: string,
  args: ClarityValue[],
  result: ClarityValue,
  events: PlannedEvent[],
  apply: () => void,
  bnsOps?: BnsOp[],
): TxPlan {
  const rng = ctx.rng;
  return {
    sender,
    txType: "contract_call",
    payloadHex: contractCallPayload(contractId, functionName, args.map(cvHex)),
    fee: rng.between(2, MAX_CALL_FEE / 500) * 500,
    result: cvRaw(result),
    events,
    contractInterface: null,
    cost: {
      read_count: rng.between(1, 40),
      read_length: rng.between(100, 60000),
      runtime: rng.between(5000, 900000),
      write_count: rng.between(1, 12),
      write_length: rng.between(40, 2000),
    },
    canAbort: true,
    apply,
    bnsOps,
  };
}
