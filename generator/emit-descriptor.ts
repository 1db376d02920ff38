/**
 * descriptor.json (SPEC.md "Subgraph descriptor"): the machine-readable description of one
 * subgraph. `serverUrl` is a placeholder and `rowCount` 0 here; the API fills both at serve time.
 * Endpoints are paths relative to serverUrl.
 */
import type { ColumnMeta, TableMeta } from "../runtime/subgraphs/types.js";
import { operationPath, SERVER_URL_PLACEHOLDER, tablePath } from "./endpoints.js";
import { headerLines, jsonHeader } from "./header.js";
import { jsonText } from "./json-text.js";
import type { SubgraphModel } from "./model.js";
import { buildTableMeta, isNumericType, numericColumns } from "./table-meta.js";

type Json = Record<string, unknown>;

export function buildDescriptor(model: SubgraphModel): Json {
  return {
    $comment: jsonHeader(headerLines(model, "Descriptor")),
    name: model.name,
    version: model.version,
    description: model.description,
    schemaHash: model.schemaHash,
    generatedAt: model.generatedAt,
    serverUrl: SERVER_URL_PLACEHOLDER,
    ...(model.startBlock === undefined ? {} : { startBlock: model.startBlock }),
    sources: Object.fromEntries(model.sources.map((s) => [s.name, { type: s.type, ...s.filter }])),
    tables: Object.fromEntries(
      model.tables.map((table) => [table.name, tableDescriptor(model.name, buildTableMeta(table))]),
    ),
  };
}

export function emitDescriptor(model: SubgraphModel): string {
  return jsonText(buildDescriptor(model));
}

function tableDescriptor(subgraph: string, meta: TableMeta): Json {
  const parameters = ["_limit", "cursor", "_order", "_sort", "_fields"];
  if (meta.searchable.length > 0) parameters.push("_search");
  return {
    endpoint: tablePath(subgraph, meta.name),
    countEndpoint: operationPath(subgraph, meta.name, "count"),
    aggregateEndpoint: operationPath(subgraph, meta.name, "aggregate"),
    streamEndpoint: operationPath(subgraph, meta.name, "stream"),
    rowCount: 0,
    columns: Object.fromEntries(Object.entries(meta.columns).map(([name, column]) => [name, columnDescriptor(column)])),
    uniqueKeys: meta.uniqueKeys,
    query: {
      parameters,
      sortable: meta.sortable,
      selectable: Object.keys(meta.columns),
      searchable: meta.searchable,
      filters: Object.entries(meta.filters).flatMap(([column, operators]) =>
        operators.map((op) => (op === "eq" ? column : `${column}.${op}`)),
      ),
    },
    examples: examples(subgraph, meta),
  };
}

/** `{ type, indexed?, searchable?, nullable?, system? }`: attributes only when true. */
function columnDescriptor(column: ColumnMeta): Json {
  return {
    type: column.type,
    ...(column.indexed ? { indexed: true } : {}),
    ...(column.searchable ? { searchable: true } : {}),
    ...(column.nullable ? { nullable: true } : {}),
    ...(column.system ? { system: true } : {}),
  };
}

const SAMPLE_VALUES: Record<string, string> = {
  principal: "SP000000000000000000002Q6VF78",
  text: "example",
  timestamp: "2026-01-01T00:00:00Z",
  boolean: "true",
};

function examples(subgraph: string, meta: TableMeta): Json[] {
  const path = tablePath(subgraph, meta.name);
  const result: Json[] = [{ description: "Newest rows first", request: `GET ${path}?_limit=10&_order=desc` }];
  const filterColumn = Object.entries(meta.columns).find(([, c]) => c.indexed && !c.system);
  if (filterColumn !== undefined) {
    const [name, column] = filterColumn;
    const value = isNumericType(column.type) ? "1000" : (SAMPLE_VALUES[column.type] ?? "example");
    result.push({
      description: `Rows with a given ${name}`,
      request: `GET ${path}?${name}=${encodeURIComponent(value)}`,
    });
  }
  if (meta.searchable.length > 0) {
    result.push({ description: `Search ${meta.searchable.join(", ")}`, request: `GET ${path}?_search=example` });
  }
  result.push({ description: "Count rows", request: `GET ${path}/count` });
  const numeric = numericColumns(meta).filter((c) => c !== "_block_height");
  const sum = numeric.length > 0 ? `&_sum=${numeric[0]}` : "";
  result.push({ description: "Aggregate", request: `GET ${path}/aggregate?_count=true${sum}&_max=_block_height` });
  result.push({ description: "Stream new rows", request: `GET ${path}/stream` });
  return result;
}
