/**
 * SQL of the Extended view's event reads over chain.events: a transaction's events (all of them,
 * as Hiro lists a failed transaction's too), canonical committed events of an address or a
 * contract, newest first with offset pagination.
 */
import { eventColumnEquals, eventPayloadSql } from "../chain/event-columns-sql.js";
import type { Queryable } from "../db/types.js";

export interface EventRow {
  tx_id: string;
  node_event_index: number;
  event_type: string;
  payload: Record<string, unknown>;
}

const COLUMNS = `e.tx_id, e.node_event_index, e.event_type, ${eventPayloadSql("e")} AS payload`;

/** Events of a transaction in the block it is canonical in (else its newest copy), node order. */
export async function readTxEvents(
  q: Queryable,
  txId: string,
  limit: number,
  offset: number,
  types: readonly string[] | null = null,
): Promise<EventRow[]> {
  const { rows } = await q.query<EventRow>(
    `WITH tx AS (
       SELECT t.index_block_hash, t.tx_index FROM chain.transactions t JOIN chain.blocks b USING (index_block_hash)
        WHERE t.tx_id = $1 ORDER BY t.canonical DESC, b.received_seq DESC LIMIT 1)
     SELECT ${COLUMNS} FROM chain.events e JOIN tx USING (index_block_hash, tx_index)
      WHERE $4::text[] IS NULL OR e.event_type = ANY($4::text[])
      ORDER BY e.node_event_index LIMIT $2 OFFSET $3`,
    [txId, limit, offset, types],
  );
  return rows;
}

/** Canonical committed events an address is party to, newest first. */
export async function readAddressEvents(
  q: Queryable,
  address: string,
  limit: number,
  offset: number,
  types: readonly string[] | null = null,
): Promise<EventRow[]> {
  const { rows } = await q.query<EventRow>(
    `SELECT ${COLUMNS} FROM chain.events e
      WHERE e.canonical AND e.committed
        AND (${eventColumnEquals("e", "sender", "$1")} OR ${eventColumnEquals("e", "recipient", "$1")})
        AND ($4::text[] IS NULL OR e.event_type = ANY($4::text[]))
      ORDER BY e.block_height DESC, e.event_index DESC LIMIT $2 OFFSET $3`,
    [address, limit, offset, types],
  );
  return rows;
}

/** Canonical committed print events of a contract, newest first (Hiro's contract events). */
export async function readContractLogs(
  q: Queryable,
  contractId: string,
  limit: number,
  offset: number,
): Promise<EventRow[]> {
  const { rows } = await q.query<EventRow>(
    `SELECT ${COLUMNS} FROM chain.events e
      WHERE e.canonical AND e.committed AND ${eventColumnEquals("e", "contract_id", "$1")}
        AND ${eventColumnEquals("e", "event_type", "'print'")}
      ORDER BY e.block_height DESC, e.event_index DESC LIMIT $2 OFFSET $3`,
    [contractId, limit, offset],
  );
  return rows;
}

/** Per-type counts of a transaction's committed STX, FT and NFT events involving an address, and
 * the STX it sent and received through them (Hiro's v2 address transaction summary). */
export interface AddressTxSummary {
  stx_sent: string;
  stx_received: string;
  counts: Record<string, number>;
}

export async function readAddressTxSummaries(
  q: Queryable,
  address: string,
  txs: readonly { index_block_hash: string; tx_index: number }[],
): Promise<Map<string, AddressTxSummary>> {
  const out = new Map<string, AddressTxSummary>();
  if (txs.length === 0) return out;
  const { rows } = await q.query<{
    index_block_hash: string;
    tx_index: number;
    event_type: string;
    n: string;
    sent: string;
    received: string;
  }>(
    `SELECT e.index_block_hash, e.tx_index, e.event_type, count(*) AS n,
            coalesce(sum(CASE WHEN e.sender = $1 AND e.event_type IN ('stx_transfer', 'stx_burn') THEN e.amount END), 0)::text AS sent,
            coalesce(sum(CASE WHEN e.recipient = $1 AND e.event_type IN ('stx_transfer', 'stx_mint') THEN e.amount END), 0)::text AS received
       FROM chain.events e
       JOIN unnest($2::text[], $3::int[]) AS k(h, i) ON e.index_block_hash = k.h AND e.tx_index = k.i
      WHERE e.committed AND (e.sender = $1 OR e.recipient = $1)
      GROUP BY e.index_block_hash, e.tx_index, e.event_type`,
    [address, txs.map((t) => t.index_block_hash), txs.map((t) => t.tx_index)],
  );
  for (const r of rows) {
    const key = `${r.index_block_hash}:${r.tx_index}`;
    let s = out.get(key);
    if (!s) {
      s = { stx_sent: "0", stx_received: "0", counts: {} };
      out.set(key, s);
    }
    s.counts[r.event_type] = Number(r.n);
    s.stx_sent = (BigInt(s.stx_sent) + BigInt(r.sent)).toString();
    s.stx_received = (BigInt(s.stx_received) + BigInt(r.received)).toString();
  }
  return out;
}
