/**
 * The per-subgraph documents served live (SPEC.md "Subgraph descriptor", Versioning 3):
 * `GET /v1/subgraphs/:name/descriptor.json` and `.../openapi.json` are the generated documents
 * with `serverUrl` (descriptor) / `servers[0].url` (OpenAPI) set to this instance's base URL and
 * each table's `rowCount` filled in live (subgraphs/catalog.ts readRowCount: exact up to a
 * million rows, the planner estimate above). `tables.*.query.sortable` is what `_sort` accepts
 * (the served module's TableMeta). Sources (`sources`, `x-subgraph-sources`, and the metadata
 * route's `sources`) are the module's, with every `${config.X}` resolved for this instance's
 * network by servedSources; the committed generated/ files stay network-independent.
 *
 * The documents themselves come from the subgraph engine (runtime/subgraphs/documents.ts).
 */
import type { Config } from "../../config/index.js";
import type { NetworkContracts } from "../../config/networks.js";
import { substituteConfig } from "../../subgraphs/match-source.js";
import type { SubgraphModule } from "../../subgraphs/types.js";

type Json = Record<string, unknown>;

/**
 * The instance's own base URL: on loopback the request's Host (what the client used to reach
 * us, e.g. a mapped port), when it is a plain `host[:port]`; otherwise, and past loopback,
 * API_PUBLISH_ADDR. Pure.
 */
export function instanceBaseUrl(
  hostHeader: string | undefined,
  config: Pick<Config, "publishedOnLoopback" | "apiPublishAddr">,
): string {
  if (config.publishedOnLoopback && hostHeader && isPlainHost(hostHeader)) return `http://${hostHeader}`;
  const { host, port } = config.apiPublishAddr;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function isPlainHost(value: string): boolean {
  if (value.length > 255) return false;
  return /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(
    value,
  );
}

/** What a served document says about this instance. */
export interface InstanceFacts {
  /** instanceBaseUrl of the request. */
  serverUrl: string;
  /** The network's contract ids: the values of `${config.X}` (Config.contracts). */
  contracts: NetworkContracts;
}

/** The module's sources as documents show them, `{ <name>: { type, ...filter } }`, config resolved. Pure. */
export function servedSources(module: SubgraphModule, contracts: NetworkContracts): Json {
  const config: Record<string, string> = { ...contracts };
  return Object.fromEntries(
    Object.entries(module.sources).map(([name, source]) => [
      name,
      {
        type: source.type,
        ...Object.fromEntries(Object.entries(source.filter).map(([f, v]) => [f, substituteConfig(v, config)])),
      },
    ]),
  );
}

/** The descriptor with live `serverUrl`, `rowCount`, served `sortable` columns and resolved sources. Pure. */
export function liveDescriptor(
  doc: Json,
  module: SubgraphModule,
  instance: InstanceFacts,
  rowCounts: Record<string, number>,
): Json {
  const { $comment: _comment, ...rest } = structuredClone(doc);
  const tables = (rest.tables ?? {}) as Record<string, Json>;
  for (const [name, table] of Object.entries(tables)) {
    if (Object.hasOwn(rowCounts, name)) table.rowCount = rowCounts[name];
    const meta = Object.hasOwn(module.tables, name) ? module.tables[name] : undefined;
    const query = table.query as Json | undefined;
    if (meta && query) query.sortable = [...meta.sortable];
  }
  rest.sources = servedSources(module, instance.contracts);
  return { ...rest, serverUrl: instance.serverUrl };
}

/** The OpenAPI document with this instance as its server and resolved sources. Pure. */
export function liveOpenApi(doc: Json, module: SubgraphModule, instance: InstanceFacts): Json {
  const { "x-generated": _generated, ...rest } = structuredClone(doc);
  rest["x-subgraph-sources"] = servedSources(module, instance.contracts);
  return { ...rest, servers: [{ url: instance.serverUrl, description: "This instance." }] };
}
