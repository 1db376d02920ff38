/**
 * The body of GET /api/node: what sluice knows of the stacks-node feeding it (observer activity,
 * the last block it sent, malformed payloads) and, when STACKS_NODE_RPC_URL is set, the node's
 * own /v2/info with the gap between its tip and sluice's.
 */
import { readBlockBurnHeight, readIngestStatus } from "../chain/status.js";
import type { Queryable } from "../db/types.js";
import type { ObserverActivity } from "./activity.js";
import { fetchNodeInfo, NODE_RPC_TIMEOUT_MS, shownUrl } from "./node-rpc.js";

export interface NodeReportDeps {
  db: Queryable;
  activity: ObserverActivity;
  /** STACKS_NODE_RPC_URL, or null. */
  rpcUrl: string | null;
  rpcTimeoutMs?: number;
}

export async function buildNodeReport(deps: NodeReportDeps): Promise<Record<string, unknown>> {
  const { activity } = deps;
  const [status, node] = await Promise.all([
    readIngestStatus(deps.db),
    deps.rpcUrl === null ? null : fetchNodeInfo(deps.rpcUrl, deps.rpcTimeoutMs ?? NODE_RPC_TIMEOUT_MS),
  ]);
  const last = activity.lastBlock();
  const rpcUrl = deps.rpcUrl === null ? null : shownUrl(deps.rpcUrl);
  const sluiceTip = status.tip.block_height;
  return {
    observer: { paths: activity.paths() },
    last_block:
      last === null
        ? null
        : {
            height: last.height,
            index_block_hash: last.index_block_hash,
            burn_block_height: await readBlockBurnHeight(deps.db, last.index_block_hash),
            received_at: last.received_at,
          },
    malformed_payloads: status.counts.malformed_payloads,
    sluice: {
      tip_height: sluiceTip,
      index_block_hash: status.tip.index_block_hash,
      burn_block_height: status.tip.burn_block_height,
    },
    node:
      node === null
        ? { configured: false }
        : node.reachable
          ? {
              configured: true,
              reachable: true,
              rpc_url: rpcUrl,
              elapsed_ms: node.elapsed_ms,
              info: node.info,
              gap: sluiceTip === null ? null : node.info.stacks_tip_height - sluiceTip,
            }
          : { configured: true, reachable: false, rpc_url: rpcUrl, elapsed_ms: node.elapsed_ms, error: node.error },
  };
}
