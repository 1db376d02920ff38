/**
 * Subgraph management routes (SPEC.md "Write and management routes"),
 * all behind the instance token (`write`):
 * - deploySubgraph: POST /api/subgraphs — body: a spec as YAML (`application/yaml`,
 *   `text/yaml`, `text/plain`) or JSON (`application/json`). 202 when a backfill from stored
 *   blocks started (new subgraph, or `?replace=true` rebuild), 200 when the spec was unchanged or
 *   migrated in place. 400 SPEC_INVALID with `details.errors` [{file, line, col, path, message}]
 *   (nothing changed); 400 BODY_TOO_DEEP for a JSON body nested deeper than 64 levels; 409
 *   SUBGRAPH_EXISTS for a built-in's name, a name sharing another subgraph's PostgreSQL schema
 *   (`details.conflictsWith`), or a breaking change without `?replace=true` (`details.breaking`
 *   lists why); 409 OPERATION_IN_PROGRESS.
 * - reindexSubgraph: POST /api/subgraphs/:name/reindex — 202 and the progress; 404
 *   SUBGRAPH_NOT_FOUND; 409 OPERATION_IN_PROGRESS while a backfill or reindex runs.
 * - deleteSubgraph: DELETE /api/subgraphs/:name — 204; 404; 409 BUILT_IN_SUBGRAPH.
 * JSON bodies are re-serialized (2-space indentation) before validation, so error lines and
 * columns of a JSON spec refer to that layout; YAML errors point into the body as sent.
 */
import type { Request } from "express";
import { badRequest, ServiceError } from "../../internal/errors.js";
import type { SpecFormat, SubgraphEngine } from "../../subgraphs/index.js";
import type { SubgraphProgress } from "../../subgraphs/types.js";
import { rejectUnknownParams, singleParam } from "../http/query-params.js";
import type { BodyOptions } from "../http/route-table.js";
import type { SubgraphsContext, SubgraphsHandler } from "./context.js";

/** Body rules of POST /api/subgraphs (the route table's `body`). */
export const SPEC_BODY: BodyOptions = {
  types: ["application/json", "application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml", "text/plain"],
  limitBytes: 1024 * 1024,
};

function engineOf(ctx: SubgraphsContext): SubgraphEngine {
  if (ctx.subgraphs === undefined) throw new ServiceError(503, "UNAVAILABLE", "the subgraph engine is not running");
  return ctx.subgraphs;
}

/** The spec text and format of a deploy request. */
export function specFromBody(req: Request): { text: string; format: SpecFormat } {
  const body: unknown = req.body;
  if (typeof body === "string" && body.trim() !== "") return { text: body, format: "yaml" };
  if (body !== null && typeof body === "object" && Object.keys(body).length > 0) {
    return { text: `${JSON.stringify(body, null, 2)}\n`, format: "json" };
  }
  throw badRequest("SPEC_INVALID", "the request body holds no spec", {
    errors: [
      { file: "request", line: 1, col: 1, path: "", message: "empty body: send a subgraph spec as YAML or JSON" },
    ],
  });
}

/** JSON of a progress record (snake_case like the rest of the API's tip fields). */
export function renderProgress(p: SubgraphProgress): Record<string, unknown> {
  return {
    status: p.status,
    subgraph_height: p.subgraphHeight,
    blocks_done: p.blocksDone,
    blocks_total: p.blocksTotal,
    started_at: p.operationStartedAt,
    finished_at: p.operationFinishedAt,
    error: p.error,
    reason: p.reason,
  };
}

function parseReplace(raw: unknown): boolean {
  const value = singleParam("replace", raw);
  if (value === undefined || value === "false") return false;
  if (value === "true" || value === "") return true;
  throw badRequest("INVALID_PARAMETER", "replace must be true or false", { parameter: "replace" });
}

/** POST /api/subgraphs */
export const deploySubgraph: SubgraphsHandler = async (req, res, ctx) => {
  rejectUnknownParams(req.query, ["replace"]);
  const replace = parseReplace(req.query.replace);
  const engine = engineOf(ctx);
  const { text, format } = specFromBody(req);
  const result = await engine.deploy(text, format, { replace });
  const started = result.progress.status === "backfilling";
  res.status(started ? 202 : 200).json({
    name: result.name,
    version: result.version,
    schemaHash: result.schemaHash,
    action: result.action,
    ...renderProgress(result.progress),
  });
};

/** POST /api/subgraphs/:name/reindex */
export const reindexSubgraph: SubgraphsHandler = async (req, res, ctx) => {
  rejectUnknownParams(req.query, []);
  const progress = await engineOf(ctx).reindex(String(req.params.name));
  res.status(202).json({ name: progress.name, ...renderProgress(progress) });
};

/** DELETE /api/subgraphs/:name */
export const deleteSubgraph: SubgraphsHandler = async (req, res, ctx) => {
  rejectUnknownParams(req.query, []);
  await engineOf(ctx).remove(String(req.params.name));
  res.status(204).end();
};
