/**
 * The typed client of a sluice instance (README "SDK"), over openapi-fetch with the types
 * `make generate` compiles from the service's OpenAPI document (generated/service-api.ts).
 * Namespaces `index`, `streams`, `subgraphs`, `webhooks`; every call resolves to the JSON body
 * or throws SluiceApiError. `*All` methods are async iterators that follow `next_cursor`;
 * `stream` methods are SSE consumers (sse.ts) that resume from their last frame id.
 */
import createClient from "openapi-fetch";
import type { components, operations, paths } from "../../generated/service-api.js";
import { errorFromBody } from "./errors.js";
import { type SseFrame, type SseOptions, sseFrames } from "./sse.js";

export type Schemas = components["schemas"];
type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;
/** Subgraph table queries also take the table's column filters (`<col>`, `<col>.gt`, ...). */
type RowQuery<Op extends keyof operations> = QueryOf<Op> & Record<string, string | number | boolean | undefined>;

export interface SluiceClientOptions {
  /** e.g. `http://127.0.0.1:3800` */
  url: string;
  /** The instance token (needed for writes, /status, and reads past loopback). */
  token?: string;
  fetch?: typeof fetch;
}

type Result<T> = { data?: T; error?: unknown; response: Response };

async function unwrap<T>(pending: Promise<Result<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok) throw errorFromBody(response.status, error ?? "");
  return data as T;
}

/** Pages of a list route until a page brings nothing new. */
async function* follow<P, Item>(
  first: string | undefined,
  read: (cursor: string | undefined) => Promise<P>,
  items: (page: P) => readonly Item[],
  next: (page: P) => string | null | undefined,
): AsyncGenerator<Item, void, undefined> {
  let cursor = first;
  for (;;) {
    const page = await read(cursor);
    const got = items(page);
    yield* got;
    const n = next(page);
    if (n === null || n === undefined || got.length === 0 || n === cursor) return;
    cursor = n;
  }
}

export function createSluiceClient(options: SluiceClientOptions) {
  const baseUrl = options.url.replace(/\/+$/, "");
  const auth: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  const http = createClient<paths>({ baseUrl, headers: auth, fetch: options.fetch });
  const streamUrl = (path: string, query: Record<string, unknown>) => {
    const u = new URL(baseUrl + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
    return u.toString();
  };
  const stream = (path: string, query: Record<string, unknown>, sse: SseOptions = {}): AsyncGenerator<SseFrame> =>
    sseFrames(streamUrl(path, query), { fetch: options.fetch, ...sse, headers: { ...auth, ...sse.headers } });
  const wh = (webhook: string) => ({ params: { path: { webhook } } });

  const index = {
    events: (query: QueryOf<"listIndexEvents"> = {}) => unwrap(http.GET("/v1/index/events", { params: { query } })),
    /** Every event from `query.cursor` on, page after page. */
    eventsAll: (query: QueryOf<"listIndexEvents"> = {}) =>
      follow(
        query.cursor,
        (cursor) => index.events({ ...query, cursor }),
        (p) => p.events,
        (p) => p.next_cursor,
      ),
    printSchema: (contractId: string) =>
      unwrap(
        http.GET("/v1/index/contracts/{contract_id}/print-schema", { params: { path: { contract_id: contractId } } }),
      ),
    proof: (txId: string) =>
      unwrap(http.GET("/v1/index/transactions/{tx_id}/proof", { params: { path: { tx_id: txId } } })),
  };

  const streams = {
    events: (query: QueryOf<"listStreamEvents"> = {}) => unwrap(http.GET("/v1/streams/events", { params: { query } })),
    eventsAll: (query: QueryOf<"listStreamEvents"> = {}) =>
      follow(
        query.cursor,
        (cursor) => streams.events({ ...query, cursor }),
        (p) => p.events,
        (p) => p.next_cursor,
      ),
    /** The events as SSE; frame ids are cursors. */
    stream: (query: QueryOf<"streamEvents"> = {}, sse?: SseOptions) => stream("/v1/streams/events/stream", query, sse),
  };

  const table = (name: string, table: string) => ({ params: { path: { name, table } } });
  const subgraphs = {
    list: () => unwrap(http.GET("/v1/subgraphs")),
    get: (name: string) => unwrap(http.GET("/v1/subgraphs/{name}", { params: { path: { name } } })),
    openapi: (name: string) => unwrap(http.GET("/v1/subgraphs/{name}/openapi.json", { params: { path: { name } } })),
    rows: (name: string, tableName: string, query: RowQuery<"listTableRows"> = {}) =>
      unwrap(http.GET("/v1/subgraphs/{name}/{table}", { params: { ...table(name, tableName).params, query } })),
    rowsAll: (name: string, tableName: string, query: RowQuery<"listTableRows"> = {}) =>
      follow(
        query.cursor,
        (cursor) => subgraphs.rows(name, tableName, { ...query, cursor }),
        (p) => p.rows,
        (p) => p.next_cursor,
      ),
    count: (name: string, tableName: string, query: RowQuery<"countTableRows"> = {}) =>
      unwrap(http.GET("/v1/subgraphs/{name}/{table}/count", { params: { ...table(name, tableName).params, query } })),
    aggregate: (name: string, tableName: string, query: RowQuery<"aggregateTableRows">) =>
      unwrap(
        http.GET("/v1/subgraphs/{name}/{table}/aggregate", { params: { ...table(name, tableName).params, query } }),
      ),
    row: (name: string, tableName: string, id: string | number) =>
      unwrap(
        http.GET("/v1/subgraphs/{name}/{table}/{id}", { params: { path: { name, table: tableName, id: String(id) } } }),
      ),
    stream: (name: string, tableName: string, query: RowQuery<"streamTableRows"> = {}, sse?: SseOptions) =>
      stream(`/v1/subgraphs/${encodeURIComponent(name)}/${encodeURIComponent(tableName)}/stream`, query, sse),
    /** Deploys a spec: YAML text, or a spec object (sent as JSON). */
    deploy: (spec: string | Record<string, unknown>, opts: { replace?: boolean } = {}) =>
      unwrap<Schemas["DeployResult"]>(
        http.POST("/api/subgraphs", {
          params: { query: opts.replace ? { replace: true } : {} },
          body: spec as never,
          bodySerializer: (b: unknown) => (typeof b === "string" ? b : JSON.stringify(b)),
          headers: { "content-type": typeof spec === "string" ? "application/yaml" : "application/json" },
        }),
      ),
    reindex: (name: string) => unwrap(http.POST("/api/subgraphs/{name}/reindex", { params: { path: { name } } })),
    remove: (name: string) => unwrap(http.DELETE("/api/subgraphs/{name}", { params: { path: { name } } })),
  };

  const webhooks = {
    create: (body: Schemas["WebhookCreate"]) => unwrap(http.POST("/api/webhooks", { body })),
    list: (query: QueryOf<"listWebhooks"> = {}) => unwrap(http.GET("/api/webhooks", { params: { query } })),
    get: (webhook: string) => unwrap(http.GET("/api/webhooks/{webhook}", wh(webhook))),
    update: (webhook: string, body: Schemas["WebhookUpdate"]) =>
      unwrap(http.PATCH("/api/webhooks/{webhook}", { ...wh(webhook), body })),
    delete: (webhook: string) => unwrap(http.DELETE("/api/webhooks/{webhook}", wh(webhook))),
    pause: (webhook: string) => unwrap(http.POST("/api/webhooks/{webhook}/pause", wh(webhook))),
    resume: (webhook: string) => unwrap(http.POST("/api/webhooks/{webhook}/resume", wh(webhook))),
    rotateSecret: (webhook: string, body: { gracePeriodSeconds?: number } = {}) =>
      unwrap(http.POST("/api/webhooks/{webhook}/rotate-secret", { ...wh(webhook), body })),
    test: (webhook: string, body: { message?: string } = {}) =>
      unwrap(http.POST("/api/webhooks/{webhook}/test", { ...wh(webhook), body })),
    deliveries: (webhook: string, query: QueryOf<"listWebhookDeliveries"> = {}) =>
      unwrap(http.GET("/api/webhooks/{webhook}/deliveries", { params: { path: { webhook }, query } })),
    deadLetters: (webhook: string, query: QueryOf<"listDeadLetters"> = {}) =>
      unwrap(http.GET("/api/webhooks/{webhook}/dead-letters", { params: { path: { webhook }, query } })),
    /** Requeues one dead delivery, or every one of the webhook when `deliveryId` is left out. */
    requeue: (webhook: string, deliveryId?: string) =>
      deliveryId === undefined
        ? unwrap(http.POST("/api/webhooks/{webhook}/dead-letters/requeue", wh(webhook)))
        : unwrap(
            http.POST("/api/webhooks/{webhook}/dead-letters/{delivery_id}/requeue", {
              params: { path: { webhook, delivery_id: deliveryId } },
            }),
          ),
    replay: (webhook: string, body: Schemas["ReplayRequest"]) =>
      unwrap(http.POST("/api/webhooks/{webhook}/replay", { ...wh(webhook), body })),
  };

  return {
    status: () => unwrap(http.GET("/status")),
    health: () => unwrap(http.GET("/health")),
    openapi: () => unwrap(http.GET("/openapi.json")),
    index,
    streams,
    subgraphs,
    webhooks,
  };
}

export type SluiceClient = ReturnType<typeof createSluiceClient>;
