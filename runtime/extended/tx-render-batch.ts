/**
 * Renders a list of transaction rows (events left out, as Hiro's lists do: `event_count` says how
 * many), reading each called contract's interface once per request.
 */
import type { Queryable } from "../db/types.js";
import { renderTx } from "./render-tx.js";
import { readContractInterface, type TxRow } from "./tx-reads.js";

export async function renderTxList(q: Queryable, rows: readonly TxRow[]): Promise<Record<string, unknown>[]> {
  const interfaces = new Map<string, unknown>();
  for (const r of rows) {
    if (r.tx_type === "contract_call" && r.contract_id !== null && !interfaces.has(r.contract_id)) {
      interfaces.set(r.contract_id, await readContractInterface(q, r.contract_id));
    }
  }
  return rows.map((row) =>
    renderTx({ row, events: [], calledInterface: row.contract_id === null ? null : interfaces.get(row.contract_id) }),
  );
}
