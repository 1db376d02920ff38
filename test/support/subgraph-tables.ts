/** TableMeta fixtures for the subgraph-query unit tests (not a test file). */
import { subgraph as assetHoldings } from "../../generated/asset-holdings/routes.js";
import { subgraph as sbtcFlows } from "../../generated/sbtc-flows/routes.js";
import type { TableTarget } from "../../runtime/api/subgraphs/query/types.js";
import type { ColumnMeta, TableMeta } from "../../runtime/subgraphs/types.js";

export const holdings: TableTarget = {
  subgraph: "asset-holdings",
  schema: "sg_asset_holdings",
  meta: assetHoldings.tables.holdings,
};
export const flows: TableTarget = { subgraph: "sbtc-flows", schema: "sg_sbtc_flows", meta: sbtcFlows.tables.flows };

const col = (type: ColumnMeta["type"], extra: Partial<ColumnMeta> = {}): ColumnMeta => ({
  type,
  indexed: false,
  searchable: false,
  nullable: false,
  system: false,
  ...extra,
});

/** A hand-made table with every column type and identifiers that need quoting. */
const oddMeta: TableMeta = {
  name: 'we"ird',
  columns: {
    'na"me': col("text", { indexed: true, searchable: true }),
    flag: col("boolean", { indexed: true }),
    meta: col("jsonb", { nullable: true }),
    at: col("timestamp", { indexed: true }),
    n: col("uint", { indexed: true, nullable: true }),
    _id: col("serial", { indexed: true, system: true }),
    _block_height: col("bigint", { indexed: true, system: true }),
    _tx_id: col("text", { system: true }),
    _created_at: col("timestamp", { system: true }),
  },
  uniqueKeys: [],
  filters: {
    'na"me': ["eq", "neq", "like"],
    flag: ["eq", "neq"],
    at: ["eq", "neq", "like", "gt", "gte", "lt", "lte"],
    n: ["eq", "neq", "gt", "gte", "lt", "lte"],
    _id: ["eq", "neq", "gt", "gte", "lt", "lte"],
    _block_height: ["eq", "neq", "gt", "gte", "lt", "lte"],
    _tx_id: ["eq", "neq", "like"],
    _created_at: ["eq", "neq", "like", "gt", "gte", "lt", "lte"],
  },
  searchable: ['na"me'],
  sortable: ['na"me', "flag", "at", "n", "_id", "_block_height"],
};
export const odd: TableTarget = { subgraph: "odd-one", schema: 'sg_o"dd', meta: oddMeta };

/** The same with no searchable column. */
export const unsearchable: TableTarget = {
  ...odd,
  meta: { ...oddMeta, searchable: [], columns: { ...oddMeta.columns, 'na"me': col("text", { indexed: true }) } },
};
