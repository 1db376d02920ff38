/**
 * The simulator's STX accounting for one transaction: the fee its sender pays (committed or not,
 * as on Stacks) and the STX moves of its committed events (transfers, mints, burns). A plan is
 * placed only when every account it debits can pay, so no simulated balance ever goes negative.
 */
import type { PlannedEvent } from "./events.js";
import type { ChainState } from "./state.js";

/** An STX balance change: the account and the signed µSTX amount. */
export type StxMove = [address: string, delta: bigint];

/** The STX moves of events, in event order (transfers debit the sender, then credit the recipient). */
export function stxEventMoves(events: readonly PlannedEvent[]): StxMove[] {
  const moves: StxMove[] = [];
  for (const event of events) {
    const body = event.body;
    if (event.type === "stx_transfer") {
      moves.push([body.sender, -BigInt(body.amount)], [body.recipient, BigInt(body.amount)]);
    } else if (event.type === "stx_mint") {
      moves.push([body.recipient, BigInt(body.amount)]);
    } else if (event.type === "stx_burn") {
      moves.push([body.sender, -BigInt(body.amount)]);
    }
  }
  return moves;
}

/**
 * Whether every account debited by the fee and the events can pay its debits from what it may
 * spend now (locked STX excluded). Credits of the same transaction are not counted on.
 */
export function canPay(
  state: ChainState,
  burnHeight: number,
  payer: string,
  fee: number,
  events: readonly PlannedEvent[],
): boolean {
  const debits = new Map<string, bigint>();
  if (fee > 0) debits.set(payer, BigInt(fee));
  for (const [address, delta] of stxEventMoves(events)) {
    if (delta < 0n) debits.set(address, (debits.get(address) ?? 0n) - delta);
  }
  for (const [address, debit] of debits) if (state.spendableStx(address, burnHeight) < debit) return false;
  return true;
}

/** Applies moves in order (ChainState.addStx throws rather than go negative). */
export function applyStxMoves(state: ChainState, moves: readonly StxMove[]): void {
  for (const [address, delta] of moves) state.addStx(address, delta);
}
