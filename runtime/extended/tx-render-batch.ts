/**
 * Renders a list of transaction rows (events left out, as Hiro's lists do: `event_count` says how
 * many), reading each called contract's interface once per request; `exclude_function_args=true`
 * leaves out contract calls' arguments.
 */
import type { Queryable } from "../db/types.js";
import { calledContractId, renderTx } from "./render-tx.js";
import { readContractInterface, type TxRow } from "./tx-reads.js";

export async function renderTxList(
  q: Queryable,
  rows: readonly TxRow[],
  query: Record<string, unknown> = {},
): Promise<Record<string, unknown>[]> {
  const excludeArgs = query.exclude_function_args === "true";
  const interfaces = new Map<string, unknown>();
  for (const r of rows) {
    const called = calledContractId(r);
    if (called !== null && !interfaces.has(called)) interfaces.set(called, await readContractInterface(q, called));
  }
  return rows.map((row) => {
    const called = calledContractId(row);
    const tx = renderTx({ row, events: [], calledInterface: called === null ? null : interfaces.get(called) });
    // `exclude_function_args=true`: Hiro's smaller list, without the call arguments.
    if (excludeArgs && tx.contract_call) delete (tx.contract_call as Record<string, unknown>).function_args;
    return tx;
  });
}
