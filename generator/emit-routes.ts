/**
 * routes.ts (DESIGN.md §1; STYLE.md "generated/"): the per-subgraph module the runtime loads —
 * row types, column metadata, allowed filters and operators, and one compiled handler per source
 * (pure: HandlerContext in, RowOp[] out). Exports only data and pure functions.
 */
import { VariableDeclarationKind } from "ts-morph";
import { compileCondition, compileDelta, compileExpression } from "./expr/compile-expression.js";
import { sumReplayOf } from "./sum-replay.js";
import { helperSources } from "./expr/runtime-helpers.js";
import { headerLines, SERVING_HANDLERS, tsHeader } from "./header.js";
import type { Assignment, HandlerModel, OperationModel, SubgraphModel } from "./model.js";
import { pascalCase, tsKey, tsString } from "./naming.js";
import { buildTableMeta } from "./table-meta.js";
import { tsLiteral, tsObject } from "./ts-literal.js";
import { createTsFile, printTsFile } from "./ts-project.js";

const TYPES_MODULE = "../../runtime/subgraphs/types.js";

const ROW_TS_TYPES: Record<string, string> = {
  text: "string",
  principal: "string",
  int: "string",
  uint: "string",
  bigint: "string",
  timestamp: "string",
  boolean: "boolean",
  jsonb: "unknown",
  serial: "number",
};

export function emitRoutes(model: SubgraphModel): string {
  const file = createTsFile("routes.ts");
  file.addImportDeclaration({
    isTypeOnly: true,
    moduleSpecifier: TYPES_MODULE,
    namedImports: ["HandlerContext", "RowOp", "SubgraphModule"],
  });
  for (const table of model.tables) {
    const meta = buildTableMeta(table);
    file.addInterface({
      name: rowTypeName(table.name),
      isExported: true,
      docs: [`A row of table ${table.name} as the API returns it (uint/int/bigint as decimal strings).`],
      properties: Object.entries(meta.columns).map(([name, column]) => ({
        name: tsKey(name),
        type: ROW_TS_TYPES[column.type] + (column.nullable && column.type !== "jsonb" ? " | null" : ""),
      })),
    });
  }
  file.addInterface({
    name: "Rows",
    isExported: true,
    docs: ["Row types by table name."],
    properties: model.tables.map((table) => ({ name: tsKey(table.name), type: rowTypeName(table.name) })),
  });
  const helpers = new Set<string>();
  const handlers = model.handlers.map((handler) => [handler.source, compileHandler(handler, helpers, "    ")] as const);
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [`Subgraph ${model.name}: metadata and compiled handlers (served by ${SERVING_HANDLERS}).`],
    declarations: [{ name: "subgraph", type: "SubgraphModule", initializer: moduleLiteral(model, handlers) }],
  });
  const helperCode = helperSources(helpers);
  if (helperCode.length > 0) {
    file.addStatements((writer) => {
      writer.newLine().writeLine("// Expression helpers (pure; inlined by the generator).");
      writer.write(helperCode.join("\n\n"));
    });
  }
  return printTsFile(file, tsHeader(headerLines(model, "Route module (row types, metadata, compiled handlers)")));
}

/** `holdings` → `HoldingsRow`. */
export function rowTypeName(table: string): string {
  return `${pascalCase(table)}Row`;
}

function moduleLiteral(model: SubgraphModel, handlers: readonly (readonly [string, string])[]): string {
  const data = (value: unknown) => tsLiteral(value, "  ");
  const entries: [string, string][] = [
    ["name", tsString(model.name)],
    ["version", tsString(model.version)],
    ["schemaHash", tsString(model.schemaHash)],
    ["generatedAt", tsString(model.generatedAt)],
    ["description", tsString(model.description)],
    ["schema", tsString(model.pgSchema)],
  ];
  if (model.startBlock !== undefined) entries.push(["startBlock", String(model.startBlock)]);
  entries.push(
    ["sources", data(Object.fromEntries(model.sources.map((s) => [s.name, { type: s.type, filter: s.filter }])))],
    ["tables", data(Object.fromEntries(model.tables.map((t) => [t.name, buildTableMeta(t)])))],
    ["handlers", tsObject(handlers, "  ")],
  );
  const summed = sumReplayOf(model);
  if (summed !== undefined) entries.push(["sumReplay", data(summed)]);
  return tsObject(entries);
}

/** `(ctx) => { const ops = []; …; return ops; }` for one source. */
function compileHandler(handler: HandlerModel, helpers: Set<string>, indent: string): string {
  const body = handler.operations.map((op) => {
    const push = `ops.push(${compileOperation(op, helpers, `${indent}  `)});`;
    if (op.when === undefined) return `${indent}${push}`;
    return `${indent}if (${compileCondition(op.when, helpers)}) {\n${indent}  ${push}\n${indent}}`;
  });
  return [
    "(ctx: HandlerContext): RowOp[] => {",
    `${indent}const ops: RowOp[] = [];`,
    ...body,
    `${indent}return ops;`,
    `${indent.slice(2)}}`,
  ].join("\n");
}

function compileOperation(op: OperationModel, helpers: Set<string>, indent: string): string {
  const values = (list: readonly Assignment[]) =>
    tsObject(
      list.map((a) => [a.column, compileExpression(a.expr, helpers)] as const),
      `${indent}  `,
    );
  const entries: [string, string][] = [
    ["kind", tsString(op.kind)],
    ["table", tsString(op.table)],
  ];
  switch (op.kind) {
    case "insert":
      entries.push(["values", values(op.values)]);
      break;
    case "upsert":
      entries.push(["key", tsLiteral(op.key)], ["values", values(op.values)]);
      break;
    case "update":
      entries.push(["key", values(op.key)], ["set", values(op.set)]);
      break;
    case "delete":
      entries.push(["key", values(op.key)]);
      break;
    case "increment":
      entries.push(
        ["key", values(op.key)],
        [
          "deltas",
          tsObject(
            op.deltas.map((a) => [a.column, compileDelta(a.expr, helpers)] as const),
            `${indent}  `,
          ),
        ],
      );
      if (op.values.length > 0) entries.push(["values", values(op.values)]);
      break;
  }
  return tsObject(entries, indent);
}
