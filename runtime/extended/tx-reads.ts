/**
 * SQL of the Extended view's transaction reads: a transaction with what its rendering needs from
 * its block (hashes, times, the parent's burn time) and its event count; by id, recent canonical
 * ones, a block's, and an address's (sender, sponsor, or party to one of its committed events).
 */
import type { BurnchainOpDetails } from "../chain/types.js";
import type { Queryable } from "../db/types.js";

/** chain.transactions columns plus its block's and its event count. */
export interface TxRow {
  index_block_hash: string;
  tx_index: number;
  tx_id: string;
  block_height: number;
  canonical: boolean;
  tx_type: string;
  status: string;
  sender: string | null;
  sponsor: string | null;
  nonce: string | null;
  fee: string | null;
  contract_id: string | null;
  function_name: string | null;
  recipient: string | null;
  amount: string | null;
  memo: string | null;
  raw_result: string;
  raw_tx: string;
  burnchain_op: boolean;
  /** What a Bitcoin-originated op did (migration 0015); null otherwise or when not known. */
  burnchain_op_details: BurnchainOpDetails | null;
  microblock_sequence: number | null;
  microblock_hash: string | null;
  contract_interface: unknown;
  /** [read_count, read_length, runtime, write_count, write_length], or null when not kept. */
  execution_cost: number[] | null;
  block_hash: string;
  block_time: string;
  burn_block_time: string;
  burn_block_height: number;
  parent_block_hash: string;
  parent_burn_block_time: string | null;
  event_count: string;
}

const TX_SELECT = `SELECT t.index_block_hash, t.tx_index, t.tx_id, t.block_height, t.canonical, t.tx_type, t.status,
    t.sender, t.sponsor, t.nonce, t.fee, t.contract_id, t.function_name, t.recipient, t.amount, t.memo,
    t.raw_result, t.raw_tx, t.burnchain_op, t.burnchain_op_details, t.microblock_sequence, t.microblock_hash, t.contract_interface,
    ec.costs -> t.tx_index AS execution_cost, b.block_hash, b.block_time, b.burn_block_time, b.burn_block_height, b.parent_block_hash,
    p.burn_block_time AS parent_burn_block_time,
    (SELECT count(*) FROM chain.events e WHERE e.index_block_hash = t.index_block_hash AND e.tx_index = t.tx_index) AS event_count
  FROM chain.transactions t
  JOIN chain.blocks b ON b.index_block_hash = t.index_block_hash
  LEFT JOIN chain.blocks p ON p.index_block_hash = b.parent_index_block_hash
  LEFT JOIN chain.block_execution_costs ec ON ec.index_block_hash = t.index_block_hash`;

/** A transaction by id: its canonical copy, else the newest stored one (reported non-canonical). */
export async function readTx(q: Queryable, txId: string): Promise<TxRow | null> {
  const { rows } = await q.query<TxRow>(
    `${TX_SELECT} WHERE t.tx_id = $1 ORDER BY t.canonical DESC, b.received_seq DESC LIMIT 1`,
    [txId],
  );
  return rows[0] ?? null;
}

/** Canonical transactions, newest first, and how many there are (the tip row keeps the count). */
export async function readRecentTxs(
  q: Queryable,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: TxRow[] }> {
  // Walks canonical blocks down from the tip (their height index) and each block's transactions
  // by primary key, so a page costs what it skips, not a sort of every transaction.
  const { rows } = await q.query<TxRow>(
    `WITH page AS (
       SELECT k.index_block_hash, k.tx_index, k.block_height FROM chain.blocks cb
       CROSS JOIN LATERAL (
         SELECT t.index_block_hash, t.tx_index, t.block_height FROM chain.transactions t
          WHERE t.index_block_hash = cb.index_block_hash ORDER BY t.tx_index DESC) k
        WHERE cb.canonical ORDER BY cb.block_height DESC, k.tx_index DESC LIMIT $1 OFFSET $2)
     ${TX_SELECT} JOIN page ON page.index_block_hash = t.index_block_hash AND page.tx_index = t.tx_index
     ORDER BY t.block_height DESC, t.tx_index DESC`,
    [limit, offset],
  );
  const count = await q.query<{ n: string }>("SELECT canonical_txs AS n FROM control.chain_tip");
  return { total: Number(count.rows[0]?.n ?? 0), rows };
}

/** A block's transactions in block order. */
export async function readBlockTxs(
  q: Queryable,
  indexBlockHash: string,
  limit: number,
  offset: number,
): Promise<TxRow[]> {
  const { rows } = await q.query<TxRow>(
    `${TX_SELECT} WHERE t.index_block_hash = $1 ORDER BY t.tx_index LIMIT $2 OFFSET $3`,
    [indexBlockHash, limit, offset],
  );
  return rows;
}

/**
 * Keys of the canonical transactions an address took part in (Hiro's rule: sender, sponsor,
 * recipient, contract deployed or called, or a party to a committed event), looked for only in the
 * blocks where chain.address_activity records the address (its index), by each block's key.
 */
const ADDRESS_TXS = `WITH active AS (
     SELECT index_block_hash FROM chain.address_activity WHERE address = $1 AND canonical)
   SELECT t.index_block_hash, t.tx_index, t.block_height FROM chain.transactions t JOIN active USING (index_block_hash)
     WHERE t.sender = $1 OR t.sponsor = $1 OR t.recipient = $1 OR t.contract_id = $1
   UNION
   SELECT e.index_block_hash, e.tx_index, e.block_height FROM chain.events e JOIN active USING (index_block_hash)
     WHERE e.committed AND (e.sender = $1 OR e.recipient = $1)`;

export async function readAddressTxs(
  q: Queryable,
  address: string,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: TxRow[] }> {
  const { rows } = await q.query<TxRow>(
    `WITH page AS (
       SELECT * FROM (${ADDRESS_TXS}) k ORDER BY block_height DESC, tx_index DESC LIMIT $2 OFFSET $3)
     ${TX_SELECT} JOIN page ON page.index_block_hash = t.index_block_hash AND page.tx_index = t.tx_index
     ORDER BY t.block_height DESC, t.tx_index DESC`,
    [address, limit, offset],
  );
  const count = await q.query<{ n: string }>(`SELECT count(*) AS n FROM (${ADDRESS_TXS}) k`, [address]);
  return { total: Number(count.rows[0].n), rows };
}

/** The deploy transaction of a contract: canonical first. */
export async function readContractDeploy(q: Queryable, contractId: string): Promise<TxRow | null> {
  const { rows } = await q.query<TxRow>(
    `${TX_SELECT} WHERE t.contract_id = $1 AND t.tx_type IN ('smart_contract', 'versioned_smart_contract')
      ORDER BY t.canonical DESC, b.received_seq DESC LIMIT 1`,
    [contractId],
  );
  return rows[0] ?? null;
}

/** The stored interface (ABI) of a deployed contract, for naming call arguments; null when not stored. */
export async function readContractInterface(q: Queryable, contractId: string): Promise<unknown | null> {
  const { rows } = await q.query<{ contract_interface: unknown }>(
    `SELECT contract_interface FROM chain.transactions
      WHERE contract_id = $1 AND tx_type IN ('smart_contract', 'versioned_smart_contract')
      ORDER BY canonical DESC LIMIT 1`,
    [contractId],
  );
  return rows[0]?.contract_interface ?? null;
}
