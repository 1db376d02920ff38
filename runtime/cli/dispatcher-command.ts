/**
 * `sluice dispatcher`: an extra webhook delivery worker process (DESIGN.md §2 "several dispatcher
 * workers share one database"; §5). PostgreSQL only: workers claim outbox rows with
 * `FOR UPDATE SKIP LOCKED`, so any number can run beside the service. It must sign with the
 * instance's key and open its secrets: give it the service's SIGNING_KEY_SEED and
 * WEBHOOK_SECRET_KEY (or the same DATA_DIR).
 */
import type { Command } from "commander";
import { parseConfig } from "../config/index.js";
import { migrate, openDb } from "../db/index.js";
import { createWebhooks } from "../dispatcher/index.js";
import { createLogger } from "../internal/logger.js";
import { loadOrCreateSigningKey } from "../internal/signing-key.js";
import { builtinSubgraphs } from "../subgraphs/module-loader.js";

export function registerDispatcherCommand(program: Command): void {
  program
    .command("dispatcher")
    .description("run an extra webhook delivery worker against the service's PostgreSQL database (DATABASE_URL)")
    .addHelpText(
      "after",
      "\nNeeds DATABASE_URL, and the service's SIGNING_KEY_SEED and WEBHOOK_SECRET_KEY (or its DATA_DIR).\nStops on SIGINT/SIGTERM after the deliveries in flight.",
    )
    .action(async () => {
      const config = parseConfig();
      if (!config.databaseUrl) {
        program.error(
          "sluice dispatcher: extra workers need PostgreSQL (DATABASE_URL); the embedded database has one process",
          {
            exitCode: 2,
          },
        );
      }
      const logger = createLogger({ level: config.logLevel, format: config.logFormat });
      const db = await openDb({
        databaseUrl: config.databaseUrl,
        dataDir: config.dataDir,
        pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
        pgliteTemplate: config.pgliteTemplate,
        logger,
      });
      try {
        await migrate(db);
        const signer = loadOrCreateSigningKey({ dataDir: config.dataDir, fromEnv: config.signingKeySeed ?? undefined });
        const { dispatcher } = createWebhooks({ config, db, logger, signer, subgraphs: () => builtinSubgraphs });
        await dispatcher.start();
        logger.info({ msg: "dispatcher worker started", key_id: signer.keyId });
        await new Promise<void>((resolve) => {
          process.once("SIGINT", resolve);
          process.once("SIGTERM", resolve);
        });
        await dispatcher.stop();
      } finally {
        await db.close();
      }
    });
}
