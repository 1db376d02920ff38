/**
 * Handlers of the `/v1/subgraphs/...` read routes (SPEC.md "Subgraph routes", "List and count
 * query parameters", "Aggregate endpoint", "SSE stream routes", "Subgraph descriptor"). One
 * generic engine serves every table of every subgraph: the module's TableMeta supplies the
 * identifiers, subgraphs/query/ parses, compiles and renders. Handler names are operationIds:
 * - listSubgraphs        GET /v1/subgraphs
 * - getSubgraph          GET /v1/subgraphs/:name
 * - getSubgraphOpenApi   GET /v1/subgraphs/:name/openapi.json
 * - getSubgraphDescriptor GET /v1/subgraphs/:name/descriptor.json
 * - listTableRows        GET /v1/subgraphs/:name/:table          → { rows, next_cursor, tip }
 * - countTableRows       GET /v1/subgraphs/:name/:table/count    → { count }
 * - aggregateTableRows   GET /v1/subgraphs/:name/:table/aggregate
 * - getTableRow          GET /v1/subgraphs/:name/:table/:id      → the row
 * - streamTableRows      GET /v1/subgraphs/:name/:table/stream   (subgraphs/stream-session.ts)
 */
import type { Queryable } from "../../db/types.js";
import type { DocumentKind } from "../../subgraphs/index.js";
import { notFound, ServiceError } from "../../internal/errors.js";
import type { SubgraphModule } from "../../subgraphs/types.js";
import type { Request, Response } from "express";
import { escapeJsonHtml, ifNoneMatchMatches, weakEtag } from "../http/cache-headers.js";
import { sendWithEtag } from "../http/json-response.js";
import { readChainData } from "../http/chain-reads.js";
import { formatSseRetry, openEventStream } from "../http/sse.js";
import {
  listModules,
  queryTable,
  readProgress,
  readRowCount,
  readSubgraphStamp,
  readTip,
  resolveSubgraph,
  resolveTable,
  resolveTarget,
} from "./catalog.js";
import { type InstanceFacts, instanceBaseUrl, liveDescriptor, liveOpenApi, servedSources } from "./documents.js";
import { encodeCursor } from "./query/cursor.js";
import { SORT_KEY_ALIAS, compileAggregate, compileCount, compileListPage, compileRowById } from "./query/compile.js";
import {
  filterParamNames,
  parseAggregateQuery,
  parseListQuery,
  parseRowId,
  parseStreamQuery,
  rejectAnyParams,
  selectionOf,
} from "./query/parse.js";
import { renderAggregate, renderRow } from "./query/render.js";
import type { CachedListPage } from "./page-cache.js";
import { subgraphStreamsFor } from "./stream-feeds.js";
import { removedAfter, type StreamStart, startSubgraphStreamSession } from "./stream-session.js";
import type { TableTarget } from "./query/types.js";
import type { SubgraphsContext, SubgraphsHandler } from "./context.js";

/** What an EventSource waits before reconnecting after the stream ends. */
const RECONNECT_MS = 2000;

const param = (value: unknown): string => (typeof value === "string" ? value : "");

const tablePath = (subgraph: string, table: string) => `/v1/subgraphs/${subgraph}/${table}`;

/**
 * Rows per table of each module, in one read (on a read replica when one is usable: the counts of
 * big tables are the costly part of the metadata routes).
 */
async function rowCountsOf(
  ctx: SubgraphsContext,
  modules: readonly SubgraphModule[],
): Promise<Record<string, number>[]> {
  // In parallel on the primary's pool; a replica read's transaction runs them in turn.
  const { value } = await readChainData(ctx, (db) =>
    Promise.all(
      modules.map(async (module) =>
        Object.fromEntries(
          await Promise.all(
            Object.keys(module.tables).map(
              async (table) => [table, await readRowCount(db, resolveTable(module, table))] as const,
            ),
          ),
        ),
      ),
    ),
  );
  return value;
}

const rowCounts = async (ctx: SubgraphsContext, module: SubgraphModule) => (await rowCountsOf(ctx, [module]))[0];

/** GET /v1/subgraphs */
export const listSubgraphs: SubgraphsHandler = async (req, res, ctx) => {
  rejectAnyParams(req.query);
  const modules = await listModules(ctx);
  const allCounts = await rowCountsOf(ctx, modules);
  const subgraphs = [];
  for (const [i, module] of modules.entries()) {
    const counts = allCounts[i];
    subgraphs.push({
      name: module.name,
      version: module.version,
      description: module.description,
      schemaHash: module.schemaHash,
      tables: Object.fromEntries(
        Object.keys(module.tables).map((t) => [t, { rowCount: counts[t], endpoint: tablePath(module.name, t) }]),
      ),
      tip: await readTip(ctx, module.name),
      progress: await readProgress(ctx, module.name),
      links: documentLinks(module.name),
    });
  }
  res.json({ subgraphs });
};

function documentLinks(name: string) {
  return {
    self: `/v1/subgraphs/${name}`,
    descriptor: `/v1/subgraphs/${name}/descriptor.json`,
    openapi: `/v1/subgraphs/${name}/openapi.json`,
  };
}

/** GET /v1/subgraphs/:name */
export const getSubgraph: SubgraphsHandler = async (req, res, ctx) => {
  rejectAnyParams(req.query);
  const module = await resolveSubgraph(ctx, param(req.params.name));
  const counts = await rowCounts(ctx, module);
  const tables = Object.fromEntries(
    Object.entries(module.tables).map(([name, meta]) => {
      const path = tablePath(module.name, name);
      return [
        name,
        {
          columns: Object.fromEntries(
            Object.entries(meta.columns).map(([c, m]) => [
              c,
              { type: m.type, indexed: m.indexed, searchable: m.searchable, nullable: m.nullable, system: m.system },
            ]),
          ),
          uniqueKeys: meta.uniqueKeys,
          searchable: meta.searchable,
          sortable: meta.sortable,
          filters: filterParamNames(meta),
          rowCount: counts[name],
          endpoints: { list: path, count: `${path}/count`, aggregate: `${path}/aggregate`, stream: `${path}/stream` },
        },
      ];
    }),
  );
  res.json({
    name: module.name,
    version: module.version,
    description: module.description,
    schemaHash: module.schemaHash,
    generatedAt: module.generatedAt,
    sources: servedSources(module, ctx.config.contracts),
    tables,
    tip: await readTip(ctx, module.name),
    progress: await readProgress(ctx, module.name),
    links: documentLinks(module.name),
  });
};

async function servedDocument(ctx: SubgraphsContext, module: SubgraphModule, kind: DocumentKind) {
  const doc = ctx.subgraphs?.document(module.name, kind) ?? null;
  if (!doc) {
    throw notFound(
      "DOCUMENT_NOT_FOUND",
      `no ${kind} document is available for subgraph ${JSON.stringify(module.name)}`,
      {
        subgraph: module.name,
      },
    );
  }
  return doc;
}

function instanceFacts(req: Request, ctx: SubgraphsContext): InstanceFacts {
  return { serverUrl: instanceBaseUrl(req.headers.host, ctx.config), contracts: ctx.config.contracts };
}

/** GET /v1/subgraphs/:name/openapi.json */
export const getSubgraphOpenApi: SubgraphsHandler = async (req, res, ctx) => {
  rejectAnyParams(req.query);
  const module = await resolveSubgraph(ctx, param(req.params.name));
  const doc = await servedDocument(ctx, module, "openapi");
  res.json(liveOpenApi(doc, module, instanceFacts(req, ctx)));
};

/** GET /v1/subgraphs/:name/descriptor.json */
export const getSubgraphDescriptor: SubgraphsHandler = async (req, res, ctx) => {
  rejectAnyParams(req.query);
  const module = await resolveSubgraph(ctx, param(req.params.name));
  const doc = await servedDocument(ctx, module, "descriptor");
  res.json(liveDescriptor(doc, module, instanceFacts(req, ctx), await rowCounts(ctx, module)));
};

async function targetOf(req: { params: Record<string, unknown> }, ctx: SubgraphsContext): Promise<TableTarget> {
  return resolveTarget(ctx, param(req.params.name), param(req.params.table));
}

/**
 * GET /v1/subgraphs/:name/:table — from the page cache when the subgraph has not changed since
 * the page was read (one single-row stamp read; subgraphs/page-cache.ts), else from the table.
 *
 * The weak ETag is the URL (under the table's schema hash) and the subgraph stamp read before
 * the page, not a hash of the body: the same URL under the same stamp reads the same rows (a
 * block committed during the read can only make the body newer than its stamp, never older, and
 * the stamp never comes back). So a revalidation that matches is answered 304 after the stamp
 * read alone. A page read on a read replica carries the stamp of the replica's own snapshot
 * (read in the same transaction as its rows), and is cached only when that equals the primary's.
 */
export const listTableRows: SubgraphsHandler = async (req, res, ctx) => {
  const target = await targetOf(req, ctx);
  const pages = ctx.subgraphPages;
  const stamp = await readSubgraphStamp(ctx.db, target.subgraph);
  const key = `${target.schemaHash}|${req.originalUrl}`;
  // Only answers are stored, so a URL found here passed validation under this schema already.
  const cached = stamp === null ? undefined : pages?.get(key, stamp.stamp);
  if (cached !== undefined) return sendListPage(req, res, cached);
  const q = parseListQuery(req.query, target);
  const etag = stamp === null ? null : weakEtag("rows", key, stamp.stamp);
  if (etag !== null && ifNoneMatchMatches(req.headers["if-none-match"], etag))
    return sendListPage(req, res, { body: Buffer.alloc(0), etag });

  const readRows = async (db: Queryable) => {
    const rows: Record<string, unknown>[] = [];
    for (const segment of compileListPage(target, q)) {
      rows.push(
        ...(await queryTable<Record<string, unknown>>(db, target, segment.sql, segment.params, { prepare: true })),
      );
      if (rows.length > q.limit) break;
    }
    return rows;
  };
  // On a read replica the stamp is read again in the page's own snapshot, so the tip and ETag
  // describe what was read there (it may be older than the primary's stamp above).
  const { value: read } = await readChainData(
    ctx,
    async (db) => {
      const own = db === ctx.db ? stamp : await readSubgraphStamp(db, target.subgraph);
      return { rows: await readRows(db), stamp: own };
    },
    { primaryTip: stamp?.tipHash },
  );
  const { rows } = read;
  // With a stamp, its tip is the exact one the page was read under.
  const tip = read.stamp?.tip ?? (await readTip(ctx, target.subgraph));
  const page = rows.slice(0, q.limit);
  let next_cursor: string | null = null;
  if (rows.length > q.limit) {
    const last = page[page.length - 1];
    const sortValue = q.sort === "_id" ? undefined : ((last[SORT_KEY_ALIAS] as string | null) ?? null);
    next_cursor = encodeCursor(
      { table: `${target.subgraph}/${target.meta.name}`, sort: q.sort, order: q.order },
      { id: String(last._id), sortValue },
    );
  }
  const json = escapeJsonHtml(
    JSON.stringify({ rows: page.map((row) => renderRow(target, row, q.fields)), next_cursor, tip }),
  );
  const readEtag = read.stamp === null ? null : weakEtag("rows", key, read.stamp.stamp);
  const answer: CachedListPage = { body: Buffer.from(json), etag: readEtag ?? weakEtag(json) };
  // Stored only under the stamp it was read at: a replica's older page never goes under a newer stamp.
  if (stamp !== null && read.stamp?.stamp === stamp.stamp) pages?.set(key, stamp.stamp, answer);
  sendListPage(req, res, answer);
};

/** The JSON answer with its ETag (304 to a matching If-None-Match). */
function sendListPage(req: Request, res: Response, page: CachedListPage): void {
  sendWithEtag(req, res, page.body, { contentType: "application/json", etag: page.etag });
}

/** GET /v1/subgraphs/:name/:table/count — the list's parameters; the count ignores paging and order. */
export const countTableRows: SubgraphsHandler = async (req, res, ctx) => {
  const target = await targetOf(req, ctx);
  const q = parseListQuery(req.query, target);
  const { sql, params } = compileCount(target, selectionOf(q));
  const { value: rows } = await readChainData(ctx, (db) =>
    queryTable<{ count: string | number }>(db, target, sql, params),
  );
  res.json({ count: Number(rows[0]?.count ?? 0) });
};

/** GET /v1/subgraphs/:name/:table/aggregate */
export const aggregateTableRows: SubgraphsHandler = async (req, res, ctx) => {
  const target = await targetOf(req, ctx);
  const q = parseAggregateQuery(req.query, target);
  const { query, outputs } = compileAggregate(target, q);
  const { value: rows } = await readChainData(ctx, (db) =>
    queryTable<Record<string, unknown>>(db, target, query.sql, query.params),
  );
  res.json(renderAggregate(outputs, rows[0] ?? {}));
};

/** GET /v1/subgraphs/:name/:table/:id */
export const getTableRow: SubgraphsHandler = async (req, res, ctx) => {
  const target = await targetOf(req, ctx);
  rejectAnyParams(req.query);
  const id = parseRowId(param(req.params.id));
  const { sql, params } = compileRowById(target, id);
  const { value: rows } = await readChainData(ctx, (db) =>
    queryTable<Record<string, unknown>>(db, target, sql, params, { prepare: true }),
  );
  if (rows.length === 0) {
    throw notFound("ROW_NOT_FOUND", `table ${target.subgraph}/${target.meta.name} has no row with _id ${id}`, {
      subgraph: target.subgraph,
      table: target.meta.name,
      id: Number(id),
    });
  }
  res.json(renderRow(target, rows[0]));
};

/** GET /v1/subgraphs/:name/:table/stream — see subgraphs/stream-session.ts for the client contract. */
export const streamTableRows: SubgraphsHandler = async (req, res, ctx) => {
  const target = await targetOf(req, ctx);
  const q = parseStreamQuery(req.query, target);
  const held = parseLastEventId(req.headers["last-event-id"]);
  const hub = ctx.chainHub;
  if (!hub) throw new ServiceError(503, "STREAMS_UNAVAILABLE", "row streams are not available on this API process");
  const feed = subgraphStreamsFor(hub, ctx.db, ctx.logger).feed(target);
  const head = await feed.refreshHead().catch((err) => {
    if ((err as { code?: unknown }).code === "42P01") {
      throw new ServiceError(
        503,
        "SUBGRAPH_NOT_READY",
        `subgraph ${JSON.stringify(target.subgraph)} has no tables yet; retry shortly`,
      );
    }
    throw err;
  });
  let start: StreamStart;
  if (held !== null) {
    const initialReorg = held > 0n ? await removedAfter(ctx.db, feed, held) : null;
    const after = initialReorg ? BigInt(initialReorg.removed_after_id) : held;
    start = { after, held: after, initialReorg };
  } else if (q.since !== null) {
    start = { after: 0n, held: null, initialReorg: null };
  } else {
    start = { after: head, held: null, initialReorg: null };
  }
  const writer = openEventStream(res);
  await writer.write(formatSseRetry(RECONNECT_MS));
  startSubgraphStreamSession({ db: ctx.db, feed, logger: ctx.log, writer, filters: q.filters, since: q.since, start });
};

/** `Last-Event-ID`: a row `_id` this stream sent (or 0); anything else is a 400 INVALID_CURSOR. */
function parseLastEventId(header: string | string[] | undefined): bigint | null {
  if (header === undefined) return null;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === "") return null;
  if (/^\d{1,19}$/.test(value) && BigInt(value) <= 2n ** 63n - 1n) return BigInt(value);
  throw new ServiceError(
    400,
    "INVALID_CURSOR",
    "Last-Event-ID must be the id of a frame this stream sent (a row _id)",
    {
      header: "Last-Event-ID",
    },
  );
}
