/**
 * The service's OpenAPI 3.1 document (README "OpenAPI and docs"), served at GET /openapi.json and
 * compiled into generated/service/ for the SDK. Built from the documented routes
 * (openapi-operations.ts) alone, so the generator needs no handler; `undocumentedRoutes` compares
 * them with the route table, so a route added, renamed or given another access rule without
 * documentation is caught (the served handler answers 500 rather than a partial document, and
 * test/clients/openapi.test.ts fails). Pure.
 */
import type { Surface } from "./http/auth.js";
import type { HttpMethod } from "./http/route-table.js";
import { DOCUMENTED_ROUTES, type DocumentedRoute, PATH_PARAMS } from "./openapi-operations.js";
import { COMPONENT_SCHEMAS, type Json, type Parameter } from "./openapi-schemas.js";

/** What the document needs of a route table row. */
export interface RouteShape {
  method: HttpMethod;
  path: string;
  auth: Surface;
}

export const API_TITLE = "sluice";
export const API_VERSION = "1";

/** `/v1/subgraphs/:name/:table` → `/v1/subgraphs/{name}/{table}`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}

const routeKey = (r: RouteShape) => `${r.method} ${r.path} (${r.auth})`;

/**
 * Routes of `table` with no documentation, and documented routes `table` does not serve (a
 * changed access rule shows up in both).
 */
export function undocumentedRoutes(table: readonly RouteShape[]): { undocumented: string[]; unserved: string[] } {
  const served = new Set(table.map(routeKey));
  const documented = new Set(DOCUMENTED_ROUTES.map(routeKey));
  return {
    undocumented: [...served].filter((k) => !documented.has(k)),
    unserved: [...documented].filter((k) => !served.has(k)),
  };
}

/** Who may call: read routes take the token only past loopback, write/status always once set. */
function security(auth: Surface): Json[] {
  if (auth === "public") return [];
  if (auth === "read") return [{}, { instanceToken: [] }];
  return [{ instanceToken: [] }];
}

function pathParameters(path: string): Parameter[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map(([, name]) => ({
    name,
    in: "path" as const,
    required: true,
    ...(PATH_PARAMS[name] ?? { schema: { type: "string" } }),
  }));
}

function operation(route: DocumentedRoute): Json {
  const { doc } = route;
  const parameters = [...pathParameters(route.path), ...(doc.parameters ?? [])];
  const op: Record<string, Json> = {
    operationId: doc.operationId,
    summary: doc.summary,
    tags: [doc.tag],
  };
  if (doc.description) op.description = doc.description;
  if (doc.deprecated) op.deprecated = true;
  if (parameters.length) op.parameters = parameters as unknown as Json;
  if (doc.requestBody) op.requestBody = doc.requestBody as unknown as Json;
  op.responses = doc.responses as unknown as Json;
  op.security = security(route.auth);
  return op;
}

/** The document of every documented route; `serverUrl` fills `servers` when given. */
export function buildServiceOpenApi(serverUrl?: string): Record<string, Json> {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of DOCUMENTED_ROUTES) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: API_TITLE,
      version: API_VERSION,
      description:
        "Read API (Index, Streams, subgraph tables), SSE streams, webhook and subgraph management of a sluice instance.",
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    tags: ["index", "streams", "subgraphs", "webhooks", "operations", "public", "console", "docs"].map((name) => ({
      name,
    })),
    paths,
    components: {
      schemas: COMPONENT_SCHEMAS,
      securitySchemes: {
        instanceToken: {
          type: "http",
          scheme: "bearer",
          description: "the instance token (INSTANCE_TOKEN)",
        },
      },
    },
  };
}
