/**
 * The shape of a subgraph spec after it passed specs/spec.schema.json (DESIGN.md §3; the
 * language is documented in specs/README.md). Raw YAML values; build-model.ts normalizes them.
 */
import type { SourceType } from "../runtime/subgraphs/types.js";

export type DeclaredColumnType = "text" | "int" | "uint" | "bigint" | "principal" | "timestamp" | "boolean" | "jsonb";
export type ColumnAttribute = "indexed" | "searchable" | "nullable";

/** A handler value: text with `${expression}` parts, or a YAML number/boolean/null literal. */
export type RawValue = string | number | boolean | null;
export type RawAssignments = Record<string, RawValue>;

export interface RawSpec {
  name: string;
  version: string;
  description: string;
  /** YYYY-MM-DD; becomes the artifacts' generatedAt. */
  released?: string;
  startBlock?: number;
  sources: Record<string, RawSource>;
  tables: Record<string, RawTable>;
  handlers: Record<string, RawOperation[]>;
}

export interface RawSource {
  type: SourceType;
  [filterField: string]: string | number;
}

export interface RawTable {
  description?: string;
  columns: Record<string, RawColumn>;
  uniqueKeys?: string[][];
  blockHeightIndex?: boolean;
}

export interface RawColumn {
  type: DeclaredColumnType;
  attributes?: ColumnAttribute[];
  description?: string;
  sortWithin?: string;
}

interface RawOperationBase {
  when?: string | boolean;
}

export interface RawInsert extends RawOperationBase {
  insert: string;
  values: RawAssignments;
}

export interface RawUpsert extends RawOperationBase {
  upsert: string;
  key: string[];
  values: RawAssignments;
}

export interface RawUpdate extends RawOperationBase {
  update: string;
  key: RawAssignments;
  set: RawAssignments;
}

export interface RawDelete extends RawOperationBase {
  delete: string;
  key: RawAssignments;
}

export interface RawIncrement extends RawOperationBase {
  increment: string;
  key: RawAssignments;
  add: RawAssignments;
  values?: RawAssignments;
}

export type RawOperation = RawInsert | RawUpsert | RawUpdate | RawDelete | RawIncrement;
