/**
 * The service (DESIGN.md §2, §4): binds its ports, opens the database, migrates, recovers the journal,
 * serves the observer and the API, and registers every resource's close with one shutdown registry.
 */
import path from "node:path";
import { createApiApp, createChainHub, listen } from "./api/index.js";
import type { BlockHooks, IngestOutcome } from "./chain/hooks.js";
import { readIngestStatus } from "./chain/status.js";
import type { Config } from "./config/index.js";
import { migrate, openDb } from "./db/index.js";
import type { Db } from "./db/types.js";
import type { Logger } from "./internal/logger.js";
import { createShutdown, type Shutdown } from "./internal/shutdown.js";
import { type ListenSettings, explainListenError } from "./internal/startup-errors.js";
import { loadOrCreateSigningKey } from "./internal/signing-key.js";
import { assembleIngest } from "./ingest-wiring.js";
import { createServiceMetrics } from "./metrics/index.js";
import {
  createJournalProcessor,
  createObserverActivity,
  createObserverApp,
  listenObserver,
  openObserverJournal,
  reportProcessed,
} from "./observer/index.js";
import { buildNodeReport } from "./observer/node-report.js";
import type { SubgraphEngine } from "./subgraphs/index.js";
import { createWebhooks, type Webhooks, type WebhooksDeps } from "./dispatcher/index.js";
import { createExtendedApp } from "./extended/index.js";
import type { IngestLeadership } from "./scale/ingest-leadership.js";
import { createLeaderJournalProcessor } from "./scale/leader-processor.js";
import { dutiesOf, type Role } from "./scale/roles.js";
import type { ReadReplicas } from "./scale/read-replicas.js";

export interface Service {
  config: Readonly<Config>;
  db: Db;
  apiUrl: string;
  /** The observer's base URL; empty when this process's role does not observe (ROLE=api, dispatcher). */
  observerUrl: string;
  /** This process's role (ROLE) and whether it applies blocks now (always for `all`). */
  role: Role;
  isIngestLeader(): boolean;
  /** The Extended view's base URL, or null when EXTENDED_PORT is unset. */
  extendedUrl: string | null;
  shutdown: Shutdown;
  /** The subgraph engine (deploy, reindex, progress, row-change listeners). */
  subgraphs: SubgraphEngine;
  /** Webhook delivery worker and management handle (runtime/dispatcher). */
  webhooks: Webhooks;
  /** The read replicas (DATABASE_READ_URL), or null without them. */
  readReplicas: ReadReplicas | null;
  /** Resolves when every journaled request so far has been processed. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  config: Readonly<Config>;
  logger: Logger;
  /** An already-open database (tests); otherwise opened from config and closed on stop. */
  db?: Db;
  hooks?: BlockHooks[];
  onOutcome?: (o: IngestOutcome) => void;
  /** Overrides for the webhook delivery worker (tests: clock, random, intervals). */
  dispatcher?: WebhooksDeps["dispatcher"];
}

/** Binds a port with `bind`, or fails with a message naming the setting to change. */
async function listenOrExplain<L>(
  settings: ListenSettings,
  bind: (options: { host: string; port: number }) => Promise<L>,
): Promise<L> {
  try {
    return await bind({ host: settings.host, port: settings.port });
  } catch (err) {
    throw explainListenError(err, settings);
  }
}

export async function startService(options: ServiceOptions): Promise<Service> {
  const { config, logger } = options;
  const shutdown = createShutdown((name, err) => logger.error({ msg: "shutdown step failed", step: name, error: err }));
  const duties = dutiesOf(config.role);
  try {
    // Both ports are bound before the database is opened or migrated: a port in use fails start-up
    // at once, with nothing changed, and no other process can take the port meanwhile. Until the
    // apps are attached below, requests get 503 (a stacks-node retries).
    const apiServer = await listenOrExplain(
      { hostVariable: "API_HOST", portVariable: "API_PORT", host: config.apiHost, port: config.apiPort },
      listen,
    );
    // Closes last; only matters when start-up fails before the servers are registered below.
    shutdown.add("api port", () => apiServer.close());
    const observerServer = duties.observes
      ? await listenOrExplain(
          {
            hostVariable: "OBSERVER_HOST",
            portVariable: "OBSERVER_PORT",
            host: config.observerHost,
            port: config.observerPort,
          },
          listenObserver,
        )
      : null;
    if (observerServer) shutdown.add("observer port", () => observerServer.close());
    const extendedConfig = config.extended;
    const extendedServer = extendedConfig
      ? await listenOrExplain(
          {
            hostVariable: "EXTENDED_HOST",
            portVariable: "EXTENDED_PORT",
            host: extendedConfig.host,
            port: extendedConfig.port,
          },
          listen,
        )
      : null;
    if (extendedServer) shutdown.add("extended port", () => extendedServer.close());

    const db =
      options.db ??
      (await openDb({
        databaseUrl: config.databaseUrl,
        dataDir: config.dataDir,
        pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
        pgliteTemplate: config.pgliteTemplate,
        logger,
      }));
    if (!options.db) shutdown.add("database", () => db.close());
    if (config.role !== "all" && db.kind !== "postgres") {
      throw new Error(`ROLE=${config.role} needs PostgreSQL (DATABASE_URL); the embedded database runs ROLE=all only`);
    }
    const applied = await migrate(db);
    if (applied.length) logger.info({ msg: "migrations applied", versions: applied });

    // Loaded (or created in DATA_DIR) before anything listens; the key object never exposes the secret.
    const signingKey = loadOrCreateSigningKey({ dataDir: config.dataDir, fromEnv: config.signingKeySeed ?? undefined });

    // One registry per service (README "Metrics"). Scrapes start once the API is attached, after
    // the processor below exists.
    const metrics = createServiceMetrics({
      db,
      backlog: () => processor?.backlog ?? 0,
      leader: () => isIngestLeader(),
      stacksNodeRpcUrl: config.stacksNodeRpcUrl,
    });
    const activity = createObserverActivity();

    // Subgraph handlers and webhook outbox writers run inside each block's transaction.
    const { ingestor, subgraphs } = await assembleIngest({
      db,
      config,
      logger,
      shutdown,
      hooks: options.hooks,
      subgraphObserver: metrics.subgraphs,
    });
    metrics.subgraphs.attach({ db, engine: subgraphs });
    const onAttempt = options.dispatcher?.onAttempt;
    const webhooks = createWebhooks({
      config,
      db,
      logger,
      signer: signingKey,
      subgraphs: () => subgraphs.list().map((s) => s.module),
      dispatcher: {
        ...options.dispatcher,
        onAttempt: (result) => {
          metrics.dispatcher.onAttempt(result);
          onAttempt?.(result);
        },
      },
    });
    if (duties.applies !== "never") await ingestor.refreshFinality();
    // The embedded database has one connection: journal observer requests to an fsynced file so an
    // acknowledgement never waits for the block transaction in flight (DESIGN.md §2 step 1).
    const journal = reportProcessed(
      openObserverJournal({
        ingestor,
        logger,
        fileDir: !options.db && db.kind === "pglite" ? path.join(config.dataDir, "journal") : undefined,
      }),
      (requestPath, outcome, seconds) => {
        metrics.ingest.observe(outcome, seconds);
        activity.processed(requestPath, outcome);
      },
    );
    shutdown.add("observer journal", () => journal.close());
    // ROLE=ingest: applies only while it holds the leadership (runtime/scale); ROLE=all always.
    let leadership: IngestLeadership | null = null;
    if (duties.applies === "when-leader") {
      // Loaded only for ROLE=ingest: the embedded database's start-up does not pay for the pg driver.
      const { createIngestLeadership } = await import("./scale/ingest-leadership.js");
      const lead = createIngestLeadership({ databaseUrl: config.databaseUrl ?? "", logger });
      shutdown.add("ingest leadership", () => lead.stop());
      leadership = lead;
    }
    const processor =
      duties.applies === "always"
        ? createJournalProcessor({ journal, logger, onOutcome: options.onOutcome })
        : leadership
          ? createLeaderJournalProcessor({ db, journal, leadership, logger, onOutcome: options.onOutcome })
          : null;
    if (processor) shutdown.add("ingestion", () => processor.stop());
    const isIngestLeader = () => (leadership ? leadership.isLeader : duties.applies === "always");

    const chainHub = await createChainHub({ db, logger });
    shutdown.add("chain hub", () => chainHub.close());

    // DATABASE_READ_URL: /v1 reads of indexed chain data go to a usable replica (runtime/scale/read-replicas.ts).
    let replicas: ReadReplicas | null = null;
    if (config.readReplicaUrls.length && db.kind === "postgres") {
      // Loaded only with replicas: it brings the pg driver, which the embedded database never uses.
      const { createReadReplicas } = await import("./scale/read-replicas.js");
      const set = createReadReplicas({
        primary: db,
        urls: config.readReplicaUrls,
        maxLagMs: config.readReplicaMaxLagMs,
        logger,
        onRead: metrics.replicas.onRead,
      });
      shutdown.add("read replicas", () => set.close());
      metrics.replicas.attach(() => set.status());
      replicas = set;
    }

    let ready = false;
    const api = createApiApp({
      config,
      logger,
      db,
      signingKey,
      chainHub,
      subgraphs,
      webhooks: webhooks.service,
      status: {
        isReady: () => ready,
        getStatus: async () => ({
          status: ready ? "ok" : "starting",
          role: config.role,
          ingest: { leader: isIngestLeader() },
          ...(await readIngestStatus(db, processor ?? undefined)),
          webhooks: await webhooks.service.backlogTotals(),
          read_replicas: replicas
            ? { max_lag_ms: replicas.maxLagMs, replicas: replicas.status() }
            : { max_lag_ms: null, replicas: [] },
        }),
      },
      reads: replicas ?? undefined,
      metrics,
      observer: metrics.api,
      node: { report: () => buildNodeReport({ db, activity, rpcUrl: config.stacksNodeRpcUrl }) },
    });
    apiServer.serve(api);
    shutdown.add("api server", () => apiServer.close());
    if (extendedServer && extendedConfig) {
      extendedServer.serve(
        createExtendedApp({
          db,
          logger,
          access: { publishedOnLoopback: extendedConfig.publishedOnLoopback, instanceToken: config.instanceToken },
        }),
      );
      shutdown.add("extended server", () => extendedServer.close());
    }

    await leadership?.start(); // the first try for the lock, so a lone ingest process leads at once
    await processor?.start(); // recover what was journaled but not processed before the last stop
    if (duties.delivers) {
      await webhooks.dispatcher.start();
      shutdown.add("webhook dispatcher", () => webhooks.dispatcher.stop());
    }
    if (observerServer && processor) {
      const observer = createObserverApp({
        journal,
        processor,
        logger,
        bodyLimit: config.observerBodyLimit,
        allowFrom: config.observerAllowFrom,
        activity,
      });
      observerServer.serve(observer);
      // Registered last so it closes first: stop accepting new blocks, then finish the one in flight.
      shutdown.add("observer server", () => observerServer.close());
    }
    ready = true;
    logger.info({
      msg: "sluice started",
      api: apiServer.url,
      observer: observerServer?.url ?? null,
      extended: extendedServer?.url ?? null,
      role: config.role,
      network: config.network,
      database: db.kind,
    });

    return {
      config,
      db,
      apiUrl: apiServer.url,
      observerUrl: observerServer?.url ?? "",
      role: config.role,
      isIngestLeader,
      extendedUrl: extendedServer?.url ?? null,
      shutdown,
      subgraphs,
      webhooks,
      readReplicas: replicas,
      idle: () => processor?.idle() ?? Promise.resolve(),
      stop: () => shutdown.run(),
    };
  } catch (err) {
    await shutdown.run();
    throw err;
  }
}
