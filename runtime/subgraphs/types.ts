/**
 * The contract between generated subgraph modules and the subgraph engine (DESIGN.md §1, §3):
 * what a compiled handler receives (HandlerContext) and returns (RowOp[]), and what every
 * `generated/<name>/routes.ts` exports (SubgraphModule). Plain types only.
 */
import type { ClarityJson, EventType } from "../chain/types.js";
import type { Queryable } from "../db/types.js";

/** Source types a spec may declare. */
export type SourceType = ChainSourceType | StxSourceType;

/** Sources on chain events and transactions: the webhook trigger vocabulary (SPEC.md "Trigger object"). */
export type ChainSourceType =
  | "contract_call"
  | "contract_deploy"
  | "ft_transfer"
  | "ft_mint"
  | "ft_burn"
  | "nft_transfer"
  | "nft_mint"
  | "nft_burn"
  | "stx_transfer"
  | "stx_mint"
  | "stx_burn"
  | "stx_lock"
  | "print_event";

/**
 * The STX movements that are not chain events, so a balance can equal the account's: the fee a
 * transaction pays and a matured miner reward (subgraph sources only; specs/README.md).
 */
export type StxSourceType = "tx_fee" | "miner_reward";

/** A source: its type plus that type's filter fields (camelCase; values may hold `${config.X}`). */
export interface SourceDef {
  type: SourceType;
  filter: Record<string, string>;
}

/**
 * One event as a handler sees it. Event-level sources get the chain event; tx-level sources
 * (contract_call, contract_deploy) get a synthetic event with `type` set to the source type,
 * `event_index` -1 and the transaction's contract id; `tx_fee` and `miner_reward` get a synthetic
 * event too (stx-sources.ts).
 */
export interface EventView {
  type: EventType | "contract_call" | "contract_deploy" | StxSourceType;
  /** Dense 0-based ordinal within the block (DESIGN.md §2); -1 for synthetic events. */
  event_index: number;
  /** print: the printing contract; ft/nft: the asset's contract; contract_*: the tx's contract. */
  contract_id: string | null;
  /** ft/nft: `<contract>::<asset>`; stx, tx_fee, miner_reward: "STX". */
  asset_identifier: string | null;
  /** tx_fee: the payer (the sponsor of a sponsored transaction). */
  sender: string | null;
  /** miner_reward: who is credited. */
  recipient: string | null;
  /** Decimal string (stx_*, ft_*; stx_lock: the locked amount; tx_fee: the fee; miner_reward: the total). */
  amount: string | null;
  /** print: the printed tuple's `topic` field when it has one, else the node's topic. */
  topic: string | null;
  /** print and nft_*: the decoded Clarity value (DESIGN.md §3 JSON decoding). */
  value: ClarityJson;
  /** print: the decoded print value (e.g. a tuple object); others: the type-specific payload. */
  payload: ClarityJson;
}

export interface TxView {
  id: string;
  sender: string | null;
  /** Transaction type (runtime/chain/types.ts TxType). */
  type: string;
  contract_id: string | null;
  function_name: string | null;
  status: string;
  index: number;
}

export interface BlockView {
  height: number;
  hash: string;
  index_block_hash: string;
  /** Unix seconds. */
  time: number;
}

export interface HandlerContext {
  event: EventView;
  tx: TxView;
  block: BlockView;
  /** NetworkContracts of the running network (runtime/config/networks.ts), by key. */
  config: Record<string, string>;
}

/**
 * A row operation a handler returns. Values hold declared columns only; the engine fills the
 * system columns (`_block_height`, `_tx_id` from the context; `_id`, `_created_at` by default).
 * Numeric values are decimal strings (or JS numbers for block fields); never lossy floats.
 */
export type RowOp = InsertOp | UpsertOp | UpdateOp | DeleteOp | IncrementOp;

/** Insert one row. */
export interface InsertOp {
  kind: "insert";
  table: string;
  values: Record<string, unknown>;
}

/** Insert, or on conflict with the unique key `key` (column names) overwrite the other values. */
export interface UpsertOp {
  kind: "upsert";
  table: string;
  key: string[];
  values: Record<string, unknown>;
}

/** Set columns on every row whose columns equal `key` (column → value). */
export interface UpdateOp {
  kind: "update";
  table: string;
  key: Record<string, unknown>;
  set: Record<string, unknown>;
}

/** Delete every row whose columns equal `key`. */
export interface DeleteOp {
  kind: "delete";
  table: string;
  key: Record<string, unknown>;
}

/**
 * Insert-or-add by a unique key: when no row matches `key`, insert key + deltas (+ values);
 * otherwise add each signed decimal delta to its column and overwrite `values`.
 */
export interface IncrementOp {
  kind: "increment";
  table: string;
  key: Record<string, unknown>;
  deltas: Record<string, string>;
  values?: Record<string, unknown>;
}

/** A compiled handler: pure data in, row operations out. */
export type Handler = (ctx: HandlerContext) => RowOp[];

export type ColumnType =
  | "text"
  | "int"
  | "uint"
  | "bigint"
  | "principal"
  | "timestamp"
  | "boolean"
  | "jsonb"
  /** `_id` only. */
  | "serial";

/** Filter operators of SPEC.md "Filter grammar"; `eq` is the bare `<col>` form. */
export type FilterOperator = "eq" | "neq" | "like" | "gt" | "gte" | "lt" | "lte";

export interface ColumnMeta {
  type: ColumnType;
  indexed: boolean;
  searchable: boolean;
  nullable: boolean;
  system: boolean;
}

export interface TableMeta {
  name: string;
  /** Declared columns in spec order, then the system columns `_id`, `_block_height`, `_tx_id`, `_created_at`. */
  columns: Record<string, ColumnMeta>;
  uniqueKeys: string[][];
  /** Allowed operators per filterable column. */
  filters: Record<string, FilterOperator[]>;
  searchable: string[];
  /** Columns `_sort` accepts: indexed non-jsonb columns plus `_id` and `_block_height`. */
  sortable: string[];
  /**
   * Further columns `_sort` accepts only under an equality filter on another column (column →
   * that column), e.g. `{ amount: "asset_identifier" }`: top holders of one asset.
   */
  sortWithin?: Record<string, string>;
}

/** What each generated `routes.ts` exports as `subgraph`. */
export interface SubgraphModule {
  name: string;
  version: string;
  schemaHash: string;
  generatedAt: string;
  description: string;
  /** PostgreSQL schema holding the tables (`sg_<name with - → _>`). */
  schema: string;
  sources: Record<string, SourceDef>;
  tables: Record<string, TableMeta>;
  handlers: Record<string, Handler>;
  startBlock?: number;
  /**
   * Present when every handler is an unconditional increment of event fields (sum-replay.ts): the
   * same operations as data, so a backfill of settled blocks can sum them in one SQL statement.
   */
  sumReplay?: SumReplayOp[];
}

/** An event field a summed replay reads from the stored chain rows. */
export type SumField = "contract_id" | "asset_identifier" | "sender" | "recipient" | "amount";

/** A key value or delta of a summed increment: a literal, or an event field (negated for a debit). */
export type SumTerm = { literal: string } | { field: SumField; negate?: boolean };

/** One increment of a handler, as data: its source, table, key values and deltas. */
export interface SumReplayOp {
  source: string;
  table: string;
  key: Record<string, SumTerm>;
  deltas: Record<string, SumTerm>;
}

/**
 * One row change the engine made (or undid) in a block: what the webhook outbox turns into
 * `<subgraph>.<table>.created|updated|deleted` deliveries. `row` is the row as the read API
 * renders it (every declared column plus `_id` as a number, `_block_height` as a decimal string,
 * `_tx_id`, `_created_at` as ISO 8601): after the change, or the removed row for `deleted`.
 * `previous` is the row before an update. On a reorg the engine emits compensating changes with
 * `reverted: true` (created → deleted, updated → updated back to its pre-image, deleted →
 * created again); their `txId` is the orphaned transaction whose effect is undone and their
 * `eventIndex` is -1, `blockHeight`/`indexBlockHash` name the orphaned block.
 */
export interface RowChange {
  subgraph: string;
  table: string;
  op: "created" | "updated" | "deleted";
  row: Record<string, unknown>;
  previous?: Record<string, unknown>;
  txId: string;
  /** The event's dense per-block ordinal; -1 for tx-level sources and for reverted changes. */
  eventIndex: number;
  blockHeight: number;
  indexBlockHash: string;
  reverted: boolean;
}

/** The block a row-change listener is called for. */
export interface ChangedBlock {
  indexBlockHash: string;
  height: number;
}

/**
 * Called inside the block transaction after the engine wrote (or restored) the rows. With
 * `wantsChanges`, the listener is asked before a block is applied whether it will use the block's
 * changes: when no listener will, the engine's statements return no rows (less to send and parse).
 */
export type RowChangeListener = ((q: Queryable, changes: RowChange[], block: ChangedBlock) => Promise<void>) & {
  wantsChanges?: (q: Queryable, block: ChangedBlock) => Promise<boolean>;
};

/** Lifecycle state of a subgraph (control.subgraphs.status). */
export type SubgraphStatus = "ready" | "backfilling" | "reindexing" | "failed";

/** Indexing progress of one subgraph (what GET /v1/subgraphs/:name shows). */
export interface SubgraphProgress {
  name: string;
  status: SubgraphStatus;
  /** Last block height the subgraph processed; -1 before the first. */
  subgraphHeight: number;
  /** Backfill/reindex counters: canonical blocks replayed so far / to replay (0/0 when none ran). */
  blocksDone: number;
  blocksTotal: number;
  operationStartedAt: string | null;
  operationFinishedAt: string | null;
  /** Why the subgraph failed (status `failed`), else null. */
  error: string | null;
  /**
   * Why the engine started the current or last rebuild by itself (a reorg its undo journal could
   * not revert); null when the operation was requested (deploy, reindex) or none ran.
   */
  reason: string | null;
}

/** A loaded subgraph: its module and where it came from. */
export interface SubgraphInfo {
  name: string;
  version: string;
  schemaHash: string;
  kind: "builtin" | "deployed";
  module: SubgraphModule;
  deployedAt: string;
}
