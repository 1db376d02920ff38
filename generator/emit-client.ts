/**
 * client.ts (DESIGN.md §1 "typed client stubs"): the subgraph's types from openapi-typescript
 * (programmatic openapiTS + astToString) plus a small typed wrapper over the hand-written
 * runtime/sdk/fetch-client.ts — the only module a generated client imports.
 */
import openapiTS, { astToString } from "openapi-typescript";
import type { OpenAPI3 } from "openapi-typescript";
import { TABLE_OPERATIONS, operationId, operationPath, tablePath } from "./endpoints.js";
import { buildOpenApi } from "./emit-openapi.js";
import { headerLines, tsHeader } from "./header.js";
import type { SubgraphModel } from "./model.js";
import { pascalCase, tsString } from "./naming.js";
import { tsObject } from "./ts-literal.js";
import { createTsFile, printTsFile } from "./ts-project.js";

const FETCH_CLIENT_MODULE = "../../runtime/sdk/fetch-client.js";

export async function emitClient(model: SubgraphModel): Promise<string> {
  const document = buildOpenApi(model) as unknown as OpenAPI3;
  const types = astToString(await openapiTS(structuredClone(document), { silent: true }));
  const file = createTsFile("client.ts", types);
  file.insertImportDeclaration(0, {
    moduleSpecifier: FETCH_CLIENT_MODULE,
    namedImports: ["createFetchClient", { name: "FetchClientOptions", isTypeOnly: true }],
  });
  file.addTypeAliases([
    {
      name: "QueryOf",
      typeParameters: [{ name: "Op", constraint: "keyof operations" }],
      docs: ["Query parameters of an operation."],
      type: 'NonNullable<operations[Op]["parameters"]["query"]>',
    },
    {
      name: "JsonOf",
      typeParameters: [{ name: "Op", constraint: "keyof operations" }],
      docs: ["The JSON body of an operation's 200 response."],
      type: 'operations[Op]["responses"][200]["content"] extends { "application/json": infer T } ? T : never',
    },
  ]);
  for (const table of model.tables) {
    file.addTypeAlias({
      name: `${pascalCase(table.name)}Row`,
      isExported: true,
      type: `components["schemas"][${tsString(`${pascalCase(table.name)}Row`)}]`,
    });
  }
  const clientName = `create${pascalCase(model.name)}Client`;
  file.addFunction({
    name: clientName,
    isExported: true,
    docs: [
      `A typed client for subgraph ${model.name}: one group of methods per table, named after the API ` +
        "handlers (streamTableRowsUrl gives the URL to open with an EventSource).",
    ],
    parameters: [{ name: "options", type: "FetchClientOptions" }],
    statements: [
      "const http = createFetchClient(options);",
      `return ${tsObject(model.tables.map((table) => [table.name, tableMethods(model.name, table.name)] as const))};`,
    ],
  });
  file.addTypeAlias({
    name: `${pascalCase(model.name)}Client`,
    isExported: true,
    type: `ReturnType<typeof ${clientName}>`,
  });
  return printTsFile(file, tsHeader(headerLines(model, "Typed client")));
}

function tableMethods(subgraph: string, table: string): string {
  const op = (operation: keyof typeof TABLE_OPERATIONS) => tsString(operationId(table, operation));
  const path = (operation: keyof typeof TABLE_OPERATIONS) => tsString(operationPath(subgraph, table, operation));
  const base = tablePath(subgraph, table);
  return tsObject(
    [
      [
        TABLE_OPERATIONS.list,
        `(query?: QueryOf<${op("list")}>) => http.get<JsonOf<${op("list")}>>(${path("list")}, query)`,
      ],
      [
        TABLE_OPERATIONS.count,
        `(query?: QueryOf<${op("count")}>) => http.get<JsonOf<${op("count")}>>(${path("count")}, query)`,
      ],
      [
        TABLE_OPERATIONS.aggregate,
        `(query?: QueryOf<${op("aggregate")}>) => http.get<JsonOf<${op("aggregate")}>>(${path("aggregate")}, query)`,
      ],
      [
        TABLE_OPERATIONS.get,
        `(id: number) => http.get<JsonOf<${op("get")}>>(\`${base}/\${encodeURIComponent(String(id))}\`)`,
      ],
      [`${TABLE_OPERATIONS.stream}Url`, `(query?: QueryOf<${op("stream")}>) => http.url(${path("stream")}, query)`],
    ],
    "  ",
  );
}
