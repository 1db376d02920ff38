/**
 * The one assembly of the ingestor (DESIGN.md §2). Inside each block's transaction the subgraph
 * handlers run first, then the webhook outbox writers (chain triggers as block hooks, subgraph row
 * changes as a row-change listener), then any extra hooks. The service and `sluice import` both
 * call this, so a block imported from a file derives exactly what the observer path derives.
 */
import type { BlockHooks } from "./chain/hooks.js";
import { createIngestor, type Ingestor } from "./chain/ingest.js";
import type { Config } from "./config/index.js";
import type { Db } from "./db/types.js";
import { createWebhookOutbox } from "./dispatcher/index.js";
import type { Logger } from "./internal/logger.js";
import type { Shutdown } from "./internal/shutdown.js";
import { createSubgraphEngine, type SubgraphApplyObserver, type SubgraphEngine } from "./subgraphs/index.js";
import { builtinSubgraphs } from "./subgraphs/module-loader.js";

export interface IngestWiringDeps {
  db: Db;
  config: Readonly<Config>;
  logger: Logger;
  /** Registers each resource's close (the service); without it the caller only closes the database. */
  shutdown?: Shutdown;
  /** Hooks run after the subgraphs and the webhook outbox (tests). */
  hooks?: readonly BlockHooks[];
  /** Hears each live block's per-subgraph apply time and failures (the service's metrics). */
  subgraphObserver?: SubgraphApplyObserver;
}

export interface IngestWiring {
  ingestor: Ingestor;
  /** The subgraph engine (deploy, reindex, progress, row-change listeners). */
  subgraphs: SubgraphEngine;
}

/** Builds the subgraph engine (initialised) and the ingestor that drives it and the webhook outbox. */
export async function assembleIngest(deps: IngestWiringDeps): Promise<IngestWiring> {
  const { db, config, logger, shutdown } = deps;
  const subgraphs = createSubgraphEngine({
    db,
    config,
    logger,
    builtins: builtinSubgraphs,
    observer: deps.subgraphObserver,
  });
  await subgraphs.init();
  shutdown?.add("subgraphs", () => subgraphs.close());
  // Outbox rows are written in the block's transaction; the service's dispatcher delivers them.
  const outbox = createWebhookOutbox({ logger, sbtcRegistry: config.contracts.sbtcRegistryContractId });
  const stopListening = subgraphs.onRowChanges(outbox.onRowChanges);
  shutdown?.add("webhook row-change listener", stopListening);
  const ingestor = createIngestor({
    db,
    logger,
    finalityBurnConfirmations: config.finalityBurnConfirmations,
    hooks: [subgraphs.hooks, outbox.hooks, ...(deps.hooks ?? [])],
  });
  return { ingestor, subgraphs };
}
