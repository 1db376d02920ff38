/**
 * The normalized, immutable subgraph model every emitter reads (STYLE.md "Generator": load →
 * model → emit). Built from a schema-valid spec by build-model.ts; expressions already parsed
 * and checked. Maps become arrays in spec order so emission order is explicit.
 */
import type { SourceType } from "../runtime/subgraphs/types.js";
import type { Expr } from "./expr/nodes.js";
import type { DeclaredColumnType } from "./spec-types.js";

export interface ColumnModel {
  readonly name: string;
  readonly type: DeclaredColumnType;
  readonly indexed: boolean;
  readonly searchable: boolean;
  readonly nullable: boolean;
  readonly description?: string;
  /**
   * Another column: `_sort` on this one is accepted under an equality filter on that column,
   * served by a (sortWithin, column, _id) index (e.g. amount within asset_identifier).
   */
  readonly sortWithin?: string;
}

export interface TableModel {
  readonly name: string;
  readonly description?: string;
  /** Declared columns, spec order (system columns are added by table-meta.ts). */
  readonly columns: readonly ColumnModel[];
  readonly uniqueKeys: readonly (readonly string[])[];
  /**
   * Whether `_block_height` gets a B-tree index (default true). A table whose rows are rewritten
   * on most blocks sets false: every update changes `_block_height`, and an indexed column that
   * changes makes PostgreSQL write a new entry in every index of the table (no HOT update).
   */
  readonly blockHeightIndex: boolean;
}

export interface SourceModel {
  readonly name: string;
  readonly type: SourceType;
  /** Filter fields in spec order; values may hold `${config.X}`. */
  readonly filter: Readonly<Record<string, string>>;
}

/** `column: expression` of values/key/set/add. */
export interface Assignment {
  readonly column: string;
  readonly expr: Expr;
}

interface OperationBase {
  readonly table: string;
  readonly when?: Expr;
}

export interface InsertModel extends OperationBase {
  readonly kind: "insert";
  readonly values: readonly Assignment[];
}

export interface UpsertModel extends OperationBase {
  readonly kind: "upsert";
  readonly key: readonly string[];
  readonly values: readonly Assignment[];
}

export interface UpdateModel extends OperationBase {
  readonly kind: "update";
  readonly key: readonly Assignment[];
  readonly set: readonly Assignment[];
}

export interface DeleteModel extends OperationBase {
  readonly kind: "delete";
  readonly key: readonly Assignment[];
}

export interface IncrementModel extends OperationBase {
  readonly kind: "increment";
  readonly key: readonly Assignment[];
  readonly deltas: readonly Assignment[];
  readonly values: readonly Assignment[];
}

export type OperationModel = InsertModel | UpsertModel | UpdateModel | DeleteModel | IncrementModel;

export interface HandlerModel {
  readonly source: string;
  readonly operations: readonly OperationModel[];
}

export interface SubgraphModel {
  /** The spec file as headers and errors name it, e.g. `specs/bns-names.yaml`. */
  readonly specFile: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
  /** ISO 8601; from the spec's `released` date (DESIGN.md §1: derived from the spec, not the clock). */
  readonly generatedAt: string;
  readonly schemaHash: string;
  /** PostgreSQL schema, `sg_<name with - → _>`. */
  readonly pgSchema: string;
  readonly startBlock?: number;
  readonly sources: readonly SourceModel[];
  readonly tables: readonly TableModel[];
  readonly handlers: readonly HandlerModel[];
}
