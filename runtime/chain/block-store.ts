/**
 * Chain rows of one block (DESIGN.md §2): one bulk insert with unnest (one statement for the
 * three tables, a constant parameter count however large the block), canonical flag flips, and loading a
 * stored block back as a DecodedBlock for re-application after a reorg or a reindex.
 */
import { type ElementType, encodeArray } from "../db/binary-array.js";
import type { Queryable } from "../db/types.js";
import type { BlockRef } from "./fork-choice.js";
import { addressActivityColumns, addressActivity } from "./address-activity.js";
import { eventPayloadSql } from "./event-columns-sql.js";
import { storedPayload } from "./event-payload.js";
import type {
  BurnchainOpDetails,
  ClarityJson,
  DecodedBlock,
  DecodedBurnBlock,
  DecodedEvent,
  DecodedTx,
  EventType,
  MaturedMinerReward,
  TxType,
} from "./types.js";

/**
 * JSON for a jsonb column. PostgreSQL cannot store U+0000 in jsonb or text; a Clarity string may
 * hold it, so it becomes U+FFFD here. The exact bytes survive in the stored raw hex (raw_value, raw_tx).
 */
export function toJsonb(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const text = JSON.stringify(v);
  return text.includes("\\u0000") ? text.replaceAll("\\u0000", "\\ufffd") : text;
}
const json = toJsonb;

/** The same rule for text columns (a vm_error can quote a Clarity string holding U+0000). */
const text = (v: string | null): string | null => (v?.includes("\u0000") ? v.replaceAll("\u0000", "\ufffd") : v);

/**
 * The rows of several blocks (each block's row, its transactions, events, execution costs and STX
 * balance changes) in ONE statement (data-modifying CTEs over unnest): a round trip to the server
 * costs about as much as inserting a block's rows, so a transaction's consecutive blocks share one
 * (chain-row-buffer.ts). Block columns are arrays with one element per block; each transaction,
 * event and balance row names its block by a 1-based ordinal (`blk`) into them. The parameter count
 * is constant however many blocks and rows.
 */
const BLOCK_COLUMNS: readonly (readonly [string, string])[] = [
  ["index_block_hash", "text"],
  ["block_hash", "text"],
  ["block_height", "integer"],
  ["parent_index_block_hash", "text"],
  ["parent_block_hash", "text"],
  ["burn_block_hash", "text"],
  ["burn_block_height", "integer"],
  ["burn_block_time", "bigint"],
  ["block_time", "bigint"],
  ["miner_txid", "text"],
  ["tx_count", "integer"],
  ["event_count", "integer"],
  ["canonical", "boolean"],
  ["matured_miner_rewards", "jsonb"],
];
/** In txColumns' order, then burnchain_op_details. */
const TX_COLUMNS: readonly (readonly [string, string])[] = [
  ["tx_index", "int"],
  ["tx_id", "text"],
  ["tx_type", "text"],
  ["status", "text"],
  ["sender", "text"],
  ["sponsor", "text"],
  ["nonce", "numeric"],
  ["fee", "numeric"],
  ["contract_id", "text"],
  ["function_name", "text"],
  ["function_args", "jsonb"],
  ["recipient", "text"],
  ["amount", "numeric"],
  ["memo", "text"],
  ["raw_result", "text"],
  ["result", "jsonb"],
  ["raw_tx", "text"],
  ["burnchain_op", "boolean"],
  ["microblock_sequence", "int"],
  ["microblock_hash", "text"],
  ["contract_interface", "jsonb"],
  ["vm_error", "text"],
  ["burnchain_op_details", "jsonb"],
];
/** In eventColumns' order, then raw_value. */
const EVENT_COLUMNS: readonly (readonly [string, string])[] = [
  ["event_index", "int"],
  ["tx_id", "text"],
  ["tx_index", "int"],
  ["node_event_index", "int"],
  ["committed", "boolean"],
  ["event_type", "text"],
  ["contract_id", "text"],
  ["asset_identifier", "text"],
  ["sender", "text"],
  ["recipient", "text"],
  ["amount", "numeric"],
  ["topic", "text"],
  ["payload", "jsonb"],
  ["raw_value", "bytea"],
];
/** In addressActivityColumns' order. */
const ACTIVITY_COLUMNS: readonly (readonly [string, string])[] = [
  ["address", "text"],
  ["received", "numeric"],
  ["sent", "numeric"],
  ["fees", "numeric"],
  ["miner_rewards", "numeric"],
];

/**
 * A column's parameter: its array cast, and the element type it travels as in binary (a numeric
 * column as text, cast on the server).
 */
function columnParam(n: number, type: string): string {
  return type === "numeric" ? `$${n}::text[]::numeric[]` : `$${n}::${type}[]`;
}

const ELEMENT_TYPE: Record<string, ElementType> = {
  text: "text",
  integer: "int4",
  int: "int4",
  bigint: "int8",
  boolean: "bool",
  jsonb: "jsonb",
  bytea: "bytea",
  numeric: "text",
};
const elementTypes = (columns: readonly (readonly [string, string])[]) => columns.map(([, type]) => ELEMENT_TYPE[type]);

/** The element type of each parameter of INSERT_BLOCKS_ROWS, in blocksRowsParams' order. */
const PARAM_TYPES: readonly ElementType[] = [
  ...elementTypes(BLOCK_COLUMNS),
  "jsonb",
  "int4",
  ...elementTypes(TX_COLUMNS),
  "int4",
  ...elementTypes(ACTIVITY_COLUMNS),
  "int4",
  ...elementTypes(EVENT_COLUMNS),
];

function insertBlocksRowsSql(): string {
  let n = 0;
  const arrays = (columns: readonly (readonly [string, string])[]) =>
    columns.map(([, type]) => columnParam(++n, type)).join(", ");
  const names = (columns: readonly (readonly [string, string])[]) => columns.map(([name]) => name).join(", ");
  const blocks = arrays(BLOCK_COLUMNS);
  const costs = `$${++n}::jsonb[]`;
  // The block's hash, height and flag for a row of block `blk` ($1, $3 and $13 are those columns).
  const ofBlock = "($1::text[])[r.blk], ($3::integer[])[r.blk], ($13::boolean[])[r.blk]";
  const rows = (table: string, columns: readonly (readonly [string, string])[]) => {
    const blk = `$${++n}::int[]`;
    const input = arrays(columns);
    return `INSERT INTO ${table} (index_block_hash, block_height, canonical, ${names(columns)})
    SELECT ${ofBlock}, ${columns.map((_, i) => `r.c${i}`).join(", ")}
      FROM unnest(${blk}, ${input}) AS r(blk, ${columns.map((_, i) => `c${i}`).join(", ")})`;
  };
  const txs = rows("chain.transactions", TX_COLUMNS);
  const activity = rows("chain.address_activity", ACTIVITY_COLUMNS);
  const events = rows("chain.events", EVENT_COLUMNS);
  return `WITH block_rows AS (
    INSERT INTO chain.blocks (${names(BLOCK_COLUMNS)}) SELECT * FROM unnest(${blocks})),
  cost_rows AS (
    INSERT INTO chain.block_execution_costs (index_block_hash, costs)
    SELECT h, c FROM unnest($1::text[], ${costs}) AS x(h, c) WHERE c IS NOT NULL),
  tx_rows AS (${txs}),
  balance_rows AS (${activity})
  ${events}`;
}
const INSERT_BLOCKS_ROWS = insertBlocksRowsSql();

/** A block to store and whether it is canonical. */
export interface BlockRows {
  block: DecodedBlock;
  canonical: boolean;
}

export async function insertBlockRows(q: Queryable, block: DecodedBlock, canonical: boolean): Promise<void> {
  await insertBlocksRows(q, [{ block, canonical }]);
}

/**
 * How the parameters travel: `text` (array literals, every driver) or `binary` (arrays in the
 * binary wire format, binary-array.ts: the `pg` driver sends a Buffer as it is). Binary spares the
 * driver's escaping and the server's parsing of ~75 MB of literals per 60,000 events.
 */
export type ParamEncoding = "text" | "binary";

/** The chain rows of `blocks`, in one statement, in their order. */
export async function insertBlocksRows(
  q: Queryable,
  blocks: readonly BlockRows[],
  encoding: ParamEncoding = "text",
): Promise<void> {
  const params = blocksRowsParams(blocks);
  let sent: unknown[] = params;
  if (encoding === "binary") {
    try {
      sent = binaryParams(params);
    } catch (err) {
      // A value the binary form cannot carry (a whole number beyond its column's range) goes as
      // text, so that the database judges it and refuses the block with its own reason (a data
      // exception), as it does on every other path.
      if (!(err instanceof RangeError)) throw err;
    }
  }
  await q.query(INSERT_BLOCKS_ROWS, sent);
}

/** Pure: the parameters of INSERT_BLOCKS_ROWS in the binary array format. */
export function binaryParams(params: readonly unknown[]): Buffer[] {
  if (params.length !== PARAM_TYPES.length) throw new Error("chain row parameters and their types disagree");
  return params.map((values, i) => encodeArray(PARAM_TYPES[i], values as unknown[]));
}

/** Pure: the parameters of INSERT_BLOCKS_ROWS. */
export function blocksRowsParams(blocks: readonly BlockRows[]): unknown[] {
  const blockCols: unknown[][] = BLOCK_COLUMNS.map(() => []);
  const costs: (string | null)[] = [];
  const txBlk: number[] = [];
  const txCols: unknown[][] = TX_COLUMNS.map(() => []);
  const eventBlk: number[] = [];
  const eventCols: unknown[][] = EVENT_COLUMNS.map(() => []);
  const activityBlk: number[] = [];
  const activityCols: unknown[][] = ACTIVITY_COLUMNS.map(() => []);
  const append = (into: unknown[][], columns: readonly unknown[][]) => {
    for (let c = 0; c < columns.length; c++) {
      const to = into[c];
      for (const v of columns[c]) to.push(v);
    }
  };
  blocks.forEach(({ block, canonical }, i) => {
    const blk = i + 1;
    const values = [...blockParams(block, canonical), json(block.maturedMinerRewards)];
    for (let c = 0; c < values.length; c++) blockCols[c].push(values[c]);
    costs.push(blockExecutionCosts(block.txs));
    const stored = block.events.map(storedPayload);
    append(txCols, [...txColumns(block.txs), block.txs.map((x) => json(x.burnchainOpDetails))]);
    for (let k = 0; k < block.txs.length; k++) txBlk.push(blk);
    append(eventCols, [...eventColumns(block.events, stored), stored.map((s) => s.rawValue)]);
    for (let k = 0; k < block.events.length; k++) eventBlk.push(blk);
    const activity = addressActivityColumns(addressActivity(block));
    append(activityCols, activity);
    for (let k = 0; k < activity[0].length; k++) activityBlk.push(blk);
  });
  return [...blockCols, costs, txBlk, ...txCols, activityBlk, ...activityCols, eventBlk, ...eventCols];
}

/**
 * chain.block_execution_costs' `costs` of a block: per transaction (by tx_index)
 * [read_count, read_length, runtime, write_count, write_length], or null where the node sent none;
 * null (no row) when no transaction has one.
 */
function blockExecutionCosts(txs: readonly DecodedTx[]): string | null {
  const costs: (number[] | null)[] = [];
  let any = false;
  for (const t of txs) {
    const c = t.executionCost;
    costs[t.txIndex] = c ? [c.read_count, c.read_length, c.runtime, c.write_count, c.write_length] : null;
    if (c) any = true;
  }
  return any ? JSON.stringify(Array.from(costs, (c) => c ?? null)) : null;
}

function blockParams(block: DecodedBlock, canonical: boolean): unknown[] {
  return [
    block.indexBlockHash,
    block.blockHash,
    block.height,
    block.parentIndexBlockHash,
    block.parentBlockHash,
    block.burnBlockHash,
    block.burnBlockHeight,
    block.burnBlockTime,
    block.blockTime,
    block.minerTxid,
    block.txs.length,
    block.events.length,
    canonical,
  ];
}

/** Column arrays for unnest, in INSERT_BLOCK_ROWS's transaction column order. */
function txColumns(t: readonly DecodedTx[]): unknown[][] {
  return [
    t.map((x) => x.txIndex),
    t.map((x) => text(x.txId)),
    t.map((x) => text(x.txType)),
    t.map((x) => text(x.status)),
    t.map((x) => text(x.sender)),
    t.map((x) => text(x.sponsor)),
    t.map((x) => x.nonce),
    t.map((x) => x.fee),
    t.map((x) => text(x.contractId)),
    t.map((x) => text(x.functionName)),
    t.map((x) => json(x.functionArgs)),
    t.map((x) => text(x.recipient)),
    t.map((x) => x.amount),
    t.map((x) => text(x.memo)),
    t.map((x) => text(x.rawResult)),
    t.map((x) => json(x.result)),
    t.map((x) => text(x.rawTx)),
    t.map((x) => x.burnchainOp),
    t.map((x) => x.microblockSequence),
    t.map((x) => text(x.microblockHash)),
    t.map((x) => json(x.contractInterface)),
    t.map((x) => text(x.vmError)),
  ];
}

/** Column arrays for unnest, in INSERT_BLOCK_ROWS's event column order. */
function eventColumns(e: readonly DecodedEvent[], stored: readonly { payload: unknown }[]): unknown[][] {
  return [
    e.map((x) => x.eventIndex),
    e.map((x) => text(x.txId)),
    e.map((x) => x.txIndex),
    e.map((x) => x.nodeEventIndex),
    e.map((x) => x.committed),
    e.map((x) => text(x.type)),
    e.map((x) => text(x.contractId)),
    e.map((x) => text(x.assetIdentifier)),
    e.map((x) => text(x.sender)),
    e.map((x) => text(x.recipient)),
    e.map((x) => x.amount),
    e.map((x) => text(x.topic)),
    stored.map((x) => toJsonb(x.payload)),
  ];
}

/**
 * Burn block rows in one statement (a burn block seen twice keeps its first row, as when each was
 * inserted alone).
 */
export async function insertBurnBlocks(q: Queryable, burns: readonly DecodedBurnBlock[]): Promise<void> {
  await q.query(
    `INSERT INTO chain.burn_blocks (burn_block_hash, burn_block_height, burn_amount, reward_recipients, reward_slot_holders)
     SELECT * FROM unnest($1::text[], $2::integer[], $3::numeric[], $4::jsonb[], $5::jsonb[])
     ON CONFLICT (burn_block_hash) DO NOTHING`,
    [
      burns.map((b) => b.burnBlockHash),
      burns.map((b) => b.burnBlockHeight),
      burns.map((b) => b.burnAmount),
      burns.map((b) => JSON.stringify(b.rewardRecipients)),
      burns.map((b) => JSON.stringify(b.rewardSlotHolders)),
    ],
  );
}

/** Flips the canonical flag of a block and all its rows. */
export async function setCanonical(q: Queryable, indexBlockHash: string, canonical: boolean): Promise<void> {
  for (const table of ["chain.blocks", "chain.transactions", "chain.events", "chain.address_activity"]) {
    await q.query(`UPDATE ${table} SET canonical = $2 WHERE index_block_hash = $1`, [indexBlockHash, canonical]);
  }
}

/**
 * Walks the stored ancestry of a block from its parent down to the first canonical block.
 * Returns the non-canonical branch (parent first) and that canonical base (null when the
 * ancestry reaches a block that was never stored).
 */
export async function readBranch(
  q: Queryable,
  parentIndexBlockHash: string,
): Promise<{ branch: BlockRef[]; forkBase: BlockRef | null }> {
  const { rows } = await q.query<{ h: string; height: number; parent: string; canonical: boolean }>(
    `WITH RECURSIVE anc AS (
       SELECT index_block_hash, block_height, parent_index_block_hash, canonical, 0 AS depth
         FROM chain.blocks WHERE index_block_hash = $1
       UNION ALL
       SELECT b.index_block_hash, b.block_height, b.parent_index_block_hash, b.canonical, anc.depth + 1
         FROM chain.blocks b JOIN anc ON b.index_block_hash = anc.parent_index_block_hash
        WHERE NOT anc.canonical
     )
     SELECT index_block_hash AS h, block_height AS height, parent_index_block_hash AS parent, canonical
       FROM anc ORDER BY depth`,
    [parentIndexBlockHash],
  );
  const branch: BlockRef[] = [];
  for (const r of rows) {
    const ref = { indexBlockHash: r.h, height: r.height, parentIndexBlockHash: r.parent };
    if (r.canonical) return { branch, forkBase: ref };
    branch.push(ref);
  }
  return { branch, forkBase: null };
}

/** Canonical blocks at or above a height, highest first: what a switch rolls back. */
export async function readCanonicalFrom(q: Queryable, height: number): Promise<BlockRef[]> {
  const { rows } = await q.query<{ h: string; height: number; parent: string }>(
    `SELECT index_block_hash AS h, block_height AS height, parent_index_block_hash AS parent
       FROM chain.blocks WHERE canonical AND block_height >= $1 ORDER BY block_height DESC`,
    [height],
  );
  return rows.map((r) => ({ indexBlockHash: r.h, height: r.height, parentIndexBlockHash: r.parent }));
}

type Row = Record<string, unknown>;
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** Loads a stored block with its transactions and events, as the decoder produced it. */
export async function loadBlock(q: Queryable, indexBlockHash: string): Promise<DecodedBlock> {
  const { rows: blocks } = await q.query<Row>("SELECT * FROM chain.blocks WHERE index_block_hash = $1", [
    indexBlockHash,
  ]);
  const b = blocks[0];
  if (!b) throw new Error(`block ${indexBlockHash} is not stored`);
  const { rows: txRows } = await q.query<Row>(
    "SELECT * FROM chain.transactions WHERE index_block_hash = $1 ORDER BY tx_index",
    [indexBlockHash],
  );
  const { rows: eventRows } = await q.query<Row>(
    `SELECT event_index, node_event_index, tx_id, tx_index, committed, event_type, contract_id, asset_identifier,
            sender, recipient, amount, topic, ${eventPayloadSql("")} AS payload
       FROM chain.events WHERE index_block_hash = $1 ORDER BY event_index`,
    [indexBlockHash],
  );
  return rowToBlock(b, txRows.map(rowToTx), eventRows.map(rowToEvent));
}

/**
 * The stored `matured_miner_rewards` of a block; a block stored before they were kept (NULL)
 * reads as none.
 */
export function rowToMinerRewards(value: unknown): MaturedMinerReward[] {
  return (value as MaturedMinerReward[] | null) ?? [];
}

// The mappers below take full rows (`SELECT *`) or partial ones (readers that select only what
// they need): a column left out reads as empty — "" for text, 0 for numbers, null for optional.
const textOrEmpty = (v: unknown) => (v === undefined ? "" : String(v));
const numberOrZero = (v: unknown) => (v === undefined ? 0 : Number(v));

/** A chain.blocks row with its transactions and events. */
export function rowToBlock(b: Row, txs: DecodedTx[], events: DecodedEvent[]): DecodedBlock {
  return {
    indexBlockHash: String(b.index_block_hash),
    blockHash: String(b.block_hash),
    height: Number(b.block_height),
    parentIndexBlockHash: String(b.parent_index_block_hash),
    parentBlockHash: textOrEmpty(b.parent_block_hash),
    burnBlockHash: textOrEmpty(b.burn_block_hash),
    burnBlockHeight: numberOrZero(b.burn_block_height),
    burnBlockTime: numberOrZero(b.burn_block_time),
    blockTime: Number(b.block_time),
    minerTxid: str(b.miner_txid),
    txs,
    events,
    maturedMinerRewards: rowToMinerRewards(b.matured_miner_rewards),
  };
}

/** A chain.transactions row as the decoder produced it. */
export function rowToTx(r: Row): DecodedTx {
  return {
    txId: String(r.tx_id),
    txIndex: Number(r.tx_index),
    txType: r.tx_type as TxType,
    status: String(r.status),
    sender: str(r.sender),
    sponsor: str(r.sponsor),
    nonce: str(r.nonce),
    fee: str(r.fee),
    contractId: str(r.contract_id),
    functionName: str(r.function_name),
    functionArgs: (r.function_args as string[] | null) ?? null,
    recipient: str(r.recipient),
    amount: str(r.amount),
    memo: str(r.memo),
    rawResult: textOrEmpty(r.raw_result),
    result: (r.result as ClarityJson) ?? null,
    rawTx: textOrEmpty(r.raw_tx),
    burnchainOp: Boolean(r.burnchain_op),
    microblockSequence:
      r.microblock_sequence === null || r.microblock_sequence === undefined ? null : Number(r.microblock_sequence),
    microblockHash: str(r.microblock_hash),
    contractInterface: r.contract_interface ?? null,
    vmError: str(r.vm_error),
    ...(r.burnchain_op
      ? { burnchainOpDetails: (r.burnchain_op_details as BurnchainOpDetails | null | undefined) ?? null }
      : {}),
  };
}

/** A chain.events row as the decoder produced it. */
export function rowToEvent(r: Row): DecodedEvent {
  return {
    eventIndex: Number(r.event_index),
    nodeEventIndex: Number(r.node_event_index),
    txId: String(r.tx_id),
    txIndex: Number(r.tx_index),
    committed: Boolean(r.committed),
    type: r.event_type as EventType,
    contractId: str(r.contract_id),
    assetIdentifier: str(r.asset_identifier),
    sender: str(r.sender),
    recipient: str(r.recipient),
    amount: str(r.amount),
    topic: str(r.topic),
    payload: r.payload as DecodedEvent["payload"],
  };
}
