/**
 * Webhooks (DESIGN.md §5): what the service composes. `createWebhookOutbox` returns the outbox
 * writers the ingest wiring runs inside block transactions: the block hooks (chain-trigger
 * outbox) and the subgraph row-change listener. `createWebhooks` returns the delivery worker and
 * the handle the management API uses. Pure pieces live beside them (triggers, matching, payloads,
 * formats, signing, retry, circuit, ssrf); I/O in the stores, the worker and http-post.
 */
import { promises as dns } from "node:dns";
import { isIP } from "node:net";
import type { BlockHooks } from "../chain/hooks.js";
import type { Config } from "../config/index.js";
import type { Db } from "../db/types.js";
import type { Logger } from "../internal/logger.js";
import type { SubgraphModule } from "../subgraphs/types.js";
import { createChainOutbox } from "./chain-outbox.js";
import { createDispatcher, type Dispatcher, type DispatcherOptions } from "./dispatcher.js";
import { createWebhookManagement, type WebhookManagement } from "./management.js";
import { loadOrCreateSecretBox } from "./secret-box.js";
import type { Signer } from "./signing.js";
import { createSubgraphOutbox, type RowChangeListener } from "./subgraph-outbox.js";

export type { Dispatcher } from "./dispatcher.js";
export type * from "./management.js";
export type { RowChange, RowChangeListener } from "./subgraph-outbox.js";

/** What the management API (runtime/api/webhooks/) uses: the management operations plus the checks it needs. */
export interface WebhookService extends WebhookManagement {
  /** WEBHOOK_ALLOW_PRIVATE: private and loopback targets are accepted. */
  allowPrivate: boolean;
  /** A loaded subgraph by name (built-in or deployed). */
  findSubgraph(name: string): SubgraphModule | undefined;
  /** Addresses a webhook host resolves to (empty when it does not resolve). */
  resolveHost(host: string): Promise<string[]>;
}

/** The outbox writers: rows written in the block's transaction, delivered later by a dispatcher. */
export interface WebhookOutbox {
  hooks: BlockHooks;
  onRowChanges: RowChangeListener;
}

export function createWebhookOutbox(deps: { logger: Logger; sbtcRegistry: string }): WebhookOutbox {
  return {
    hooks: createChainOutbox({ logger: deps.logger, sbtcRegistry: deps.sbtcRegistry }),
    onRowChanges: createSubgraphOutbox(),
  };
}

export interface Webhooks {
  dispatcher: Dispatcher;
  service: WebhookService;
}

export interface WebhooksDeps {
  config: Readonly<Config>;
  db: Db;
  logger: Logger;
  signer: Signer;
  /** The loaded subgraphs (the engine's catalog, or the built-ins where no engine runs). */
  subgraphs: () => readonly SubgraphModule[];
  /** Overrides for the worker (tests: clock, random, intervals). */
  dispatcher?: Partial<Omit<DispatcherOptions, "db" | "logger" | "signer" | "secrets">>;
  /** Overrides config.webhookSecretKey (WEBHOOK_SECRET_KEY); without either, the key file in config.dataDir. */
  secretKey?: string | null;
}

export function createWebhooks(deps: WebhooksDeps): Webhooks {
  const { config, db, logger } = deps;
  const secrets = loadOrCreateSecretBox({
    dataDir: config.dataDir,
    fromEnv: deps.secretKey ?? config.webhookSecretKey,
  });
  const now = deps.dispatcher?.now ?? Date.now;
  const dispatcher = createDispatcher({
    db,
    logger: logger.child({ component: "dispatcher" }),
    signer: deps.signer,
    secrets,
    allowPrivate: config.webhookAllowPrivate,
    maxPending: config.webhookMaxPending,
    ...deps.dispatcher,
  });
  const findSubgraph = (name: string) => deps.subgraphs().find((s) => s.name === name);
  return {
    dispatcher,
    service: {
      ...createWebhookManagement({
        db,
        maxWebhooks: config.webhookMaxCount,
        maxPending: config.webhookMaxPending,
        dispatcher,
        secrets,
        sbtcRegistry: config.contracts.sbtcRegistryContractId,
        findSubgraph,
        now,
      }),
      allowPrivate: config.webhookAllowPrivate,
      findSubgraph,
      resolveHost,
    },
  };
}

async function resolveHost(host: string): Promise<string[]> {
  const bare = host.startsWith("[") ? host.slice(1, -1) : host;
  if (isIP(bare)) return [bare];
  try {
    return (await dns.lookup(bare, { all: true })).map((a) => a.address);
  } catch {
    return []; // checked again at delivery time, when it may resolve
  }
}
