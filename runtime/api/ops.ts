/**
 * Operational handlers (DESIGN.md §4): GET /health for load balancers, GET /status, GET /metrics
 * and GET /api/node for operators. Figures come from the sources the service assembles: the
 * StatusSource (ingestion), the MetricsSource (runtime/metrics/) and the NodeSource
 * (runtime/observer/node-report.ts).
 */
import { ServiceError } from "../internal/errors.js";
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

/**
 * GET /metrics — the Prometheus text exposition of the instance's registry (README "Metrics").
 * Same access rule as /status.
 */
export const getMetrics: RouteHandler<RequestContext> = async (_req, res, { metrics }) => {
  if (!metrics) throw new ServiceError(503, "METRICS_UNAVAILABLE", "this process serves no metrics");
  const text = await metrics.render();
  res.setHeader("Cache-Control", "no-store");
  res.status(200).type(metrics.contentType).send(text);
};

/**
 * GET /api/node — observer activity, the last block the node sent, malformed payloads and, with
 * STACKS_NODE_RPC_URL, the node's /v2/info and its gap to our tip. An unreachable node is reported
 * in the body, never as an error status. Requires the instance token whenever one is set.
 */
export const getNode: RouteHandler<RequestContext> = async (_req, res, { node }) => {
  if (!node) throw new ServiceError(503, "NODE_REPORT_UNAVAILABLE", "this process has no observer to report on");
  const body = await node.report();
  res.setHeader("Cache-Control", "no-store");
  res.status(200).json(body);
};
