/** What the subgraph handlers receive (../http/context.ts plus the engine and the page cache). */
import type { SubgraphEngine } from "../../subgraphs/index.js";
import type { ChainHub } from "../events/chain-hub.js";
import type { RequestContext } from "../http/context.js";
import type { RouteHandler } from "../http/route-table.js";
import type { SubgraphPageCache } from "./page-cache.js";

export interface SubgraphsDeps {
  /** Fan-out of chain changes to row streams and the tip cache; absent in shell-only tests (503). */
  chainHub?: ChainHub;
  /** The subgraph engine (runtime/subgraphs): catalog, documents, deploy, reindex, delete, progress; absent in shell-only tests (503). */
  subgraphs?: SubgraphEngine;
}

export interface SubgraphsContext extends RequestContext, SubgraphsDeps {
  /** Per-app cache of rendered subgraph list pages (created by createApiApp); null: off. */
  subgraphPages: SubgraphPageCache | null;
}

export type SubgraphsHandler = RouteHandler<SubgraphsContext>;
