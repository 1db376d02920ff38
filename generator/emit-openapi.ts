/**
 * openapi.json (DESIGN.md §1; SPEC.md "Versioning" 3, "Subgraph routes", "List and count query
 * parameters", "Filter grammar", "Aggregate endpoint"): an OpenAPI 3.1.0 document per subgraph,
 * `info.version` = the spec version, `x-subgraph-*` extension keys, and the list, count,
 * aggregate, get-by-id and stream operations of every table with all parameters and responses.
 */
import type { FilterOperator, TableMeta } from "../runtime/subgraphs/types.js";
import { operationId, operationPath, SERVER_URL_PLACEHOLDER, type TableOperation } from "./endpoints.js";
import { headerLines, jsonHeader } from "./header.js";
import { jsonText } from "./json-text.js";
import type { SubgraphModel, TableModel } from "./model.js";
import { pascalCase } from "./naming.js";
import { buildTableMeta, numericColumns } from "./table-meta.js";

type Json = Record<string, unknown>;

const DECIMAL_PATTERN = "^-?\\d+(\\.\\d+)?$";
const ref = (to: string): Json => ({ $ref: to });
const schemaRef = (name: string) => ref(`#/components/schemas/${name}`);
const parameterRef = (name: string) => ref(`#/components/parameters/${name}`);

/** The OpenAPI document as plain JSON (key order fixed here). */
export function buildOpenApi(model: SubgraphModel): Json {
  const metas = model.tables.map((table) => ({ table, meta: buildTableMeta(table) }));
  const paths: Json = {};
  const schemas: Json = { ...sharedSchemas() };
  const parameters: Json = { ...sharedParameters() };
  for (const { table, meta } of metas) {
    Object.assign(paths, tablePaths(model.name, table, meta));
    Object.assign(schemas, tableSchemas(table, meta));
    Object.assign(parameters, tableParameters(table.name, meta));
  }
  return {
    "x-generated": jsonHeader(headerLines(model, "OpenAPI description")),
    openapi: "3.1.0",
    info: {
      title: `sluice subgraph ${model.name}`,
      version: model.version,
      description: model.description,
    },
    servers: [{ url: SERVER_URL_PLACEHOLDER, description: "This instance (the API substitutes its own base URL)." }],
    security: [{}, { instanceToken: [] }],
    tags: model.tables.map(({ name, description }) => ({ name, ...(description ? { description } : {}) })),
    paths,
    components: {
      schemas,
      parameters,
      responses: errorResponses(),
      securitySchemes: {
        instanceToken: {
          type: "http",
          scheme: "bearer",
          description: "INSTANCE_TOKEN; needed when the API is published past loopback (SPEC.md Authentication).",
        },
      },
    },
    "x-subgraph-name": model.name,
    "x-subgraph-version": model.version,
    "x-subgraph-schema-hash": model.schemaHash,
    "x-subgraph-generated-at": model.generatedAt,
    "x-subgraph-sources": Object.fromEntries(model.sources.map((s) => [s.name, { type: s.type, ...s.filter }])),
    "x-subgraph-tables": Object.fromEntries(
      metas.map(({ meta }) => [
        meta.name,
        { columns: meta.columns, uniqueKeys: meta.uniqueKeys, searchable: meta.searchable, sortable: meta.sortable },
      ]),
    ),
  };
}

export function emitOpenApi(model: SubgraphModel): string {
  return jsonText(buildOpenApi(model));
}

function tablePaths(subgraph: string, table: TableModel, meta: TableMeta): Json {
  const name = table.name;
  const filters = filterParameterNames(meta).map((p) => parameterRef(`${name}.${p}`));
  const listParameters = [
    parameterRef("_limit"),
    parameterRef("cursor"),
    parameterRef("_order"),
    parameterRef(`${name}._sort`),
    parameterRef("_fields"),
    ...(meta.searchable.length > 0 ? [parameterRef(`${name}._search`)] : []),
    ...filters,
  ];
  const row = `${pascalCase(name)}Row`;
  const ok = (description: string, schema: Json, type = "application/json") => ({
    description,
    content: { [type]: { schema } },
  });
  const errors = {
    "400": ref("#/components/responses/BadRequest"),
    "401": ref("#/components/responses/Unauthorized"),
    "404": ref("#/components/responses/NotFound"),
  };
  const operation = (op: TableOperation, summary: string, params: Json[], response: Json) => ({
    operationId: operationId(name, op),
    summary,
    tags: [name],
    parameters: params,
    responses: { "200": response, ...errors },
  });
  return {
    [operationPath(subgraph, name, "list")]: {
      get: operation(
        "list",
        `List ${name} rows (keyset pages on _id, or on _sort then _id)`,
        listParameters,
        ok("One page of rows.", schemaRef(`${row}List`)),
      ),
    },
    [operationPath(subgraph, name, "count")]: {
      get: operation(
        "count",
        `Count ${name} rows matching the filters`,
        listParameters,
        ok("The count.", schemaRef("CountResponse")),
      ),
    },
    [operationPath(subgraph, name, "aggregate")]: {
      get: operation(
        "aggregate",
        `Aggregate ${name} rows matching the filters`,
        [...aggregateParameters(meta), ...filters],
        ok("The requested aggregates; with none requested, { count }.", schemaRef("AggregateResponse")),
      ),
    },
    [operationPath(subgraph, name, "get")]: {
      get: operation(
        "get",
        `One ${name} row by _id`,
        [
          {
            name: "id",
            in: "path",
            required: true,
            description: "The row's _id.",
            schema: { type: "integer", minimum: 1 },
          },
        ],
        ok("The row.", schemaRef(row)),
      ),
    },
    [operationPath(subgraph, name, "stream")]: {
      get: operation(
        "stream",
        `Server-Sent Events of new ${name} rows`,
        [
          {
            name: "since",
            in: "query",
            description: "Replay rows from this block height, then tail.",
            schema: { type: "integer", minimum: 0 },
          },
          ...filters,
        ],
        ok(
          "An event stream: `id:` is the row _id, `data:` one row as JSON; a ping every 20 s; resume with Last-Event-ID.",
          { type: "string" },
          "text/event-stream",
        ),
      ),
    },
  };
}

/** `fqn`, `fqn.neq`, `fqn.like`, … in column order. */
function filterParameterNames(meta: TableMeta): string[] {
  return Object.entries(meta.filters).flatMap(([column, operators]) =>
    operators.map((op) => (op === "eq" ? column : `${column}.${op}`)),
  );
}

const OPERATOR_TEXT: Record<FilterOperator, string> = {
  eq: "equals",
  neq: "does not equal",
  like: "contains, case-insensitively,",
  gt: "is greater than",
  gte: "is at least",
  lt: "is less than",
  lte: "is at most",
};

function tableParameters(table: string, meta: TableMeta): Json {
  const parameters: Json = {
    [`${table}._sort`]: {
      name: "_sort",
      in: "query",
      description:
        "Sort by one column (the cursor then pairs it with _id)." +
        Object.entries(meta.sortWithin ?? {})
          .map(([column, within]) => ` ${column}: only with an equality filter on ${within}.`)
          .join(""),
      schema: { type: "string", enum: [...meta.sortable, ...Object.keys(meta.sortWithin ?? {})] },
    },
  };
  if (meta.searchable.length > 0) {
    parameters[`${table}._search`] = {
      name: "_search",
      in: "query",
      description: `Case-insensitive search across ${meta.searchable.join(", ")}.`,
      schema: { type: "string", minLength: 1 },
    };
  }
  for (const [column, operators] of Object.entries(meta.filters)) {
    const type = meta.columns[column].type;
    for (const op of operators) {
      const name = op === "eq" ? column : `${column}.${op}`;
      const numeric = op !== "like" && ["int", "uint", "bigint", "serial"].includes(type);
      parameters[`${table}.${name}`] = {
        name,
        in: "query",
        description: `Rows whose ${column} ${OPERATOR_TEXT[op]} the value.`,
        schema: numeric ? { type: "string", pattern: DECIMAL_PATTERN } : { type: "string" },
      };
    }
  }
  return parameters;
}

function aggregateParameters(meta: TableMeta): Json[] {
  const numeric = numericColumns(meta).join(", ");
  const columns = Object.keys(meta.columns).join(", ");
  const list = (name: string, description: string) => ({ name, in: "query", description, schema: { type: "string" } });
  return [
    { name: "_count", in: "query", description: "Include the row count.", schema: { type: "boolean" } },
    list("_countDistinct", `Comma-separated columns to count distinct values of (${columns}).`),
    list("_sum", `Comma-separated numeric columns to sum (${numeric}).`),
    list("_min", `Comma-separated numeric columns to take the minimum of (${numeric}).`),
    list("_max", `Comma-separated numeric columns to take the maximum of (${numeric}).`),
  ];
}

function tableSchemas(table: TableModel, meta: TableMeta): Json {
  const row = `${pascalCase(table.name)}Row`;
  const properties: Json = {};
  for (const [name, column] of Object.entries(meta.columns)) {
    const declared = table.columns.find((c) => c.name === name);
    properties[name] = columnSchema(column.type, column.nullable, declared?.description ?? systemDescription(name));
  }
  return {
    [row]: {
      type: "object",
      description: table.description ?? `A row of ${table.name}.`,
      required: Object.keys(meta.columns),
      properties,
    },
    [`${row}List`]: {
      type: "object",
      required: ["rows", "next_cursor", "tip"],
      properties: {
        rows: { type: "array", items: schemaRef(row) },
        next_cursor: { type: ["string", "null"], description: "Pass back as cursor; null on the last page." },
        tip: schemaRef("Tip"),
      },
    },
  };
}

function columnSchema(type: string, nullable: boolean, description: string | undefined): Json {
  const base: Json = (() => {
    switch (type) {
      case "serial":
        return { type: "integer" };
      case "int":
      case "uint":
      case "bigint":
        return { type: "string", pattern: DECIMAL_PATTERN };
      case "timestamp":
        return { type: "string", format: "date-time" };
      case "boolean":
        return { type: "boolean" };
      case "jsonb":
        return {};
      default:
        return { type: "string" };
    }
  })();
  if (nullable && typeof base.type === "string") base.type = [base.type, "null"];
  return description === undefined ? base : { description, ...base };
}

function systemDescription(name: string): string | undefined {
  switch (name) {
    case "_id":
      return "Row id (keyset cursor order).";
    case "_block_height":
      return "Height of the block that last wrote the row.";
    case "_tx_id":
      return "Transaction that last wrote the row.";
    case "_created_at":
      return "When the row was created.";
    default:
      return undefined;
  }
}

function sharedSchemas(): Json {
  const counts = { type: "object", additionalProperties: { type: "integer" } };
  const decimals = (nullable: boolean) => ({
    type: "object",
    additionalProperties: { type: nullable ? ["string", "null"] : "string", pattern: DECIMAL_PATTERN },
  });
  return {
    Error: {
      type: "object",
      required: ["error", "code"],
      properties: {
        error: { type: "string" },
        code: { type: "string", description: "Stable SCREAMING_SNAKE code, e.g. TABLE_NOT_FOUND." },
        details: { type: "object" },
      },
    },
    Tip: {
      type: "object",
      required: ["block_height", "subgraph_height", "blocks_behind"],
      properties: {
        block_height: { type: "integer" },
        subgraph_height: { type: "integer" },
        blocks_behind: { type: "integer" },
      },
    },
    CountResponse: { type: "object", required: ["count"], properties: { count: { type: "integer" } } },
    AggregateResponse: {
      type: "object",
      properties: {
        count: { type: "integer" },
        countDistinct: counts,
        sum: { ...decimals(false), description: 'Lossless decimal strings; "0" over an empty set.' },
        min: { ...decimals(true), description: "null over an empty set." },
        max: { ...decimals(true), description: "null over an empty set." },
      },
    },
  };
}

function sharedParameters(): Json {
  return {
    _limit: {
      name: "_limit",
      in: "query",
      description: "Page size; 0, negative, non-integer or over 1000 gives 400.",
      schema: { type: "integer", minimum: 1, maximum: 1000, default: 50 },
    },
    cursor: {
      name: "cursor",
      in: "query",
      description: "The previous response's next_cursor (opaque).",
      schema: { type: "string" },
    },
    _order: {
      name: "_order",
      in: "query",
      description: "Direction of the keyset scan.",
      schema: { type: "string", enum: ["asc", "desc"], default: "asc" },
    },
    _fields: {
      name: "_fields",
      in: "query",
      description: "Comma-separated columns to include.",
      schema: { type: "string" },
    },
  };
}

function errorResponses(): Json {
  const response = (description: string) => ({
    description,
    content: { "application/json": { schema: schemaRef("Error") } },
  });
  return {
    BadRequest: response("Invalid query (unknown parameter, bad value, bad cursor, …)."),
    Unauthorized: response("A valid instance token is required."),
    NotFound: response("Unknown subgraph, table or row."),
  };
}
