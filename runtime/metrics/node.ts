/**
 * Stacks-node metrics, when STACKS_NODE_RPC_URL is set: the node's own tip from its /v2/info
 * (fetched when scraped, with the short timeout GET /api/node uses) and how far sluice's tip
 * trails it. Without the setting these gauges are not registered; while the node does not answer
 * the tip and gap read NaN (unknown), never a stale or made-up figure.
 */
import { Gauge, type Registry } from "prom-client";
import { readTip } from "../chain/tip.js";
import type { Queryable } from "../db/types.js";
import { fetchNodeInfo, type NodeInfoResult } from "../observer/node-rpc.js";
import { PREFIX } from "./registry.js";

export function registerNodeMetrics(registry: Registry, sources: { db: Queryable; rpcUrl: string | null }): void {
  const { rpcUrl } = sources;
  if (rpcUrl === null) return;
  const registers = [registry];
  // One fetch feeds the three gauges of a scrape.
  let reading: Promise<{ node: NodeInfoResult; sluiceTip: number | null }> | null = null;
  const read = () => {
    reading ??= Promise.all([fetchNodeInfo(rpcUrl), readTip(sources.db)])
      .then(([node, tip]) => ({ node, sluiceTip: tip.blockHeight }))
      .finally(() => {
        reading = null;
      });
    return reading;
  };
  new Gauge({
    name: `${PREFIX}node_reachable`,
    help: "1 when the stacks-node's /v2/info answered at this scrape, else 0",
    registers,
    async collect() {
      this.set((await read()).node.reachable ? 1 : 0);
    },
  });
  new Gauge({
    name: `${PREFIX}node_tip_height`,
    help: "stacks_tip_height the stacks-node reports in /v2/info (NaN while it does not answer)",
    registers,
    async collect() {
      const { node } = await read();
      this.set(node.reachable ? node.info.stacks_tip_height : Number.NaN);
    },
  });
  new Gauge({
    name: `${PREFIX}node_gap_blocks`,
    help: "The stacks-node's tip height minus sluice's (NaN while the node does not answer or sluice has no block)",
    registers,
    async collect() {
      const { node, sluiceTip } = await read();
      this.set(node.reachable && sluiceTip !== null ? node.info.stacks_tip_height - sluiceTip : Number.NaN);
    },
  });
}
