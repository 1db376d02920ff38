/**
 * Agent tools from the service's OpenAPI document (README "MCP"): one tool per JSON operation
 * tagged index, streams, subgraphs or webhooks (SSE routes and deprecated aliases left out),
 * named `<tag>_<verb>[_<noun>]` (createWebhook → `webhooks_create`, listIndexEvents →
 * `index_list_events`). A tool's input schema is built from the operation's own parameters and
 * JSON body schema (references inlined), and a call becomes the HTTP request they describe.
 * Pure: `callTool` takes the fetch to use.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export const TOOL_TAGS = ["index", "streams", "subgraphs", "webhooks"] as const;

export interface ToolPlan {
  name: string;
  description: string;
  inputSchema: JsonObject & { type: "object" };
  method: string;
  /** OpenAPI path template, e.g. `/api/webhooks/{webhook}`. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** How the body is sent: JSON (`body` object), text (`body` string, YAML), or none. */
  body: "json" | "text" | null;
  /** Table routes take column filters besides their documented parameters. */
  filters: boolean;
  /** True when the operation needs the instance token whatever the address. */
  needsToken: boolean;
}

/** `{ $ref: "#/components/schemas/X" }` → X's schema, all the way down. */
function inline(schema: Json, doc: JsonObject): Json {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, doc));
  if (schema === null || typeof schema !== "object") return schema;
  const ref = schema.$ref;
  if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
    const components = (doc.components as JsonObject).schemas as JsonObject;
    return inline(components[ref.slice("#/components/schemas/".length)], doc);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(v, doc)]));
}

const words = (id: string) =>
  id
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(" ");

/** `listWebhookDeliveries` under `webhooks` → `webhooks_list_deliveries`. */
export function toolName(tag: string, operationId: string): string {
  const singular = tag.replace(/s$/, "");
  const rest = words(operationId).filter((w) => w !== tag && w !== singular);
  return [tag, ...rest].join("_");
}

interface Operation {
  operationId: string;
  summary?: string;
  tags?: string[];
  deprecated?: boolean;
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: Json }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Json }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
  security?: JsonObject[];
}

/** The tools of a document. */
export function toolsOf(doc: JsonObject): ToolPlan[] {
  const tools: ToolPlan[] = [];
  for (const [path, item] of Object.entries(doc.paths as JsonObject)) {
    for (const [method, raw] of Object.entries(item as JsonObject)) {
      const op = raw as unknown as Operation;
      const tag = op.tags?.[0] ?? "";
      if (!(TOOL_TAGS as readonly string[]).includes(tag) || op.deprecated) continue;
      if (Object.values(op.responses).some((r) => r.content && "text/event-stream" in r.content)) continue;
      const properties: JsonObject = {};
      const required: string[] = [];
      const params = (op.parameters ?? []).filter((p) => p.in === "path" || p.in === "query");
      for (const p of params) {
        properties[p.name] = {
          ...(inline(p.schema ?? {}, doc) as JsonObject),
          ...(p.description ? { description: p.description } : {}),
        };
        if (p.required) required.push(p.name);
      }
      let body: ToolPlan["body"] = null;
      const content = op.requestBody?.content ?? {};
      if (content["application/json"] && !content["application/yaml"]) {
        body = "json";
        properties.body = inline(content["application/json"].schema, doc);
      } else if (content["application/yaml"]) {
        body = "text";
        properties.body = { type: "string", description: "the subgraph spec as YAML" };
      }
      if (body && op.requestBody?.required) required.push("body");
      const filters = path.includes("{table}");
      if (filters) {
        properties.filters = {
          type: "object",
          additionalProperties: { type: "string" },
          description: "column filters: `<col>`, `<col>.neq`, `.like`, `.gt`, `.gte`, `.lt`, `.lte` → value",
        };
      }
      const needsToken =
        !(op.security ?? []).some((s) => Object.keys(s).length === 0) && (op.security ?? []).length > 0;
      tools.push({
        name: toolName(tag, op.operationId),
        description: `${op.summary ?? op.operationId} (${method.toUpperCase()} ${path})${needsToken ? "; needs the instance token" : ""}`,
        inputSchema: { type: "object", properties, required, additionalProperties: false },
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        queryParams: params.filter((p) => p.in === "query").map((p) => p.name),
        body,
        filters,
        needsToken,
      });
    }
  }
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export interface ToolResult {
  ok: boolean;
  status: number;
  /** The JSON answer (or its text). */
  body: unknown;
}

/** Performs a tool call as the HTTP request its operation describes. */
export async function callTool(
  tool: ToolPlan,
  args: Record<string, unknown>,
  options: { url: string; token?: string; fetch?: typeof fetch },
): Promise<ToolResult> {
  const path = tool.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(args[name] ?? "")));
  const url = new URL(options.url.replace(/\/+$/, "") + path);
  for (const name of tool.queryParams) {
    if (args[name] !== undefined && args[name] !== null) url.searchParams.set(name, String(args[name]));
  }
  if (tool.filters && args.filters && typeof args.filters === "object") {
    for (const [k, v] of Object.entries(args.filters as Record<string, unknown>)) url.searchParams.set(k, String(v));
  }
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (tool.body && args.body !== undefined) {
    headers["content-type"] = tool.body === "json" ? "application/json" : "application/yaml";
    body = tool.body === "json" ? JSON.stringify(args.body) : String(args.body);
  }
  const res = await (options.fetch ?? fetch)(url, { method: tool.method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    // not JSON: the text itself
  }
  return { ok: res.ok, status: res.status, body: parsed };
}
