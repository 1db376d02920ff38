/**
 * Table URLs and operation ids (SPEC.md "Subgraph routes"; STYLE.md "Finding any route in one
 * step": handler name = operationId prefix = client method). Shared by the OpenAPI, descriptor
 * and client emitters.
 */

/** The generic handlers serving every subgraph table, by operation. */
export const TABLE_OPERATIONS = {
  list: "listTableRows",
  count: "countTableRows",
  aggregate: "aggregateTableRows",
  get: "getTableRow",
  stream: "streamTableRows",
} as const;
export type TableOperation = keyof typeof TABLE_OPERATIONS;

/** Placeholder base URL; the API substitutes its own at serve time. */
export const SERVER_URL_PLACEHOLDER = "http://127.0.0.1:3800";

export function tablePath(subgraph: string, table: string): string {
  return `/v1/subgraphs/${subgraph}/${table}`;
}

export function operationPath(subgraph: string, table: string, operation: TableOperation): string {
  const base = tablePath(subgraph, table);
  switch (operation) {
    case "list":
      return base;
    case "get":
      return `${base}/{id}`;
    default:
      return `${base}/${operation}`;
  }
}

/** Unique within one subgraph's OpenAPI document: `listTableRows_holdings`. */
export function operationId(table: string, operation: TableOperation): string {
  return `${TABLE_OPERATIONS[operation]}_${table}`;
}
