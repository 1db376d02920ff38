/**
 * Operational handlers (DESIGN.md §4): GET /health for load balancers and GET /status for
 * operators. Figures come from the StatusSource the ingestion module implements.
 */
import type { RequestContext } from "./http/context.js";
import type { RouteHandler } from "./http/route-table.js";

/** GET /health — 503 `{status:"starting"}` until migrations ran, then 200 `{status:"ok"}`. Public. */
export const getHealth: RouteHandler<RequestContext> = (_req, res, { status }) => {
  res.setHeader("Cache-Control", "no-store");
  if (status.isReady()) res.status(200).json({ status: "ok" });
  else res.status(503).json({ status: "starting" });
};

/**
 * GET /status — tip, finalized height, lag, counts and malformed-payload count, exactly as the
 * StatusSource reports them. Requires the instance token whenever one is set (SPEC.md rule 1).
 */
export const getStatus: RouteHandler<RequestContext> = async (_req, res, { status }) => {
  const body = await status.getStatus();
  res.setHeader("Cache-Control", "no-store");
  res.status(200).json(body);
};
