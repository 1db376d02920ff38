/** `sluice import <file>`: wiring of the import to configuration, database and terminal. */
import fs from "node:fs";
import type { Command } from "commander";
import { parseConfig } from "../config/index.js";
import { migrate, openDb } from "../db/index.js";
import { wholeNumber } from "../internal/cli-options.js";
import { createLogger } from "../internal/logger.js";
import { assembleIngest } from "../ingest-wiring.js";
import { DEFAULT_BATCH_MB, DEFAULT_BATCH_SIZE, describeSummary, importReplayFile } from "./import.js";
import { startWorkerDecoder } from "./worker-decoder.js";
import { createProgress } from "./progress.js";

export function registerImportCommand(program: Command): void {
  program
    .command("import")
    .description(
      "replay a stacks-blockchain-api event-replay TSV (plain or .gz) through the ingest path; re-running is a no-op",
    )
    .argument("<file>", "event-replay TSV: id <TAB> timestamp <TAB> path <TAB> json, one request per line")
    .option("--quiet", "no progress line")
    .option(
      "--batch-size <n>",
      "at most this many requests per database transaction (each block always lies wholly inside one)",
      wholeNumber(1, 100_000),
      DEFAULT_BATCH_SIZE,
    )
    .option(
      "--batch-mb <n>",
      "at most this many megabytes of requests per database transaction",
      wholeNumber(1, 1024),
      DEFAULT_BATCH_MB,
    )
    .addHelpText("after", "\nUses DATABASE_URL (PostgreSQL) or DATA_DIR (embedded database), like the service.")
    .action(async (file: string, opts: { quiet?: boolean; batchSize: number; batchMb: number }) => {
      if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
        program.error(`sluice import: no such file: ${file}`, { exitCode: 2 });
      }
      const config = parseConfig();
      const logger = createLogger({ level: config.logLevel === "info" ? "warn" : config.logLevel, format: "pretty" });
      const db = await openDb({
        databaseUrl: config.databaseUrl,
        dataDir: config.dataDir,
        pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
        pgliteTemplate: config.pgliteTemplate,
        logger,
      });
      try {
        await migrate(db);
        // Subgraphs and webhook outbox rows exactly as on the observer path; the service delivers them.
        const { ingestor, subgraphs } = await assembleIngest({ db, config, logger });
        const decoder = await startWorkerDecoder(); // up before the import announces itself
        // Since process start: opening (on first use, creating) the database and migrating can take
        // longer than a small import itself.
        const startupSeconds = performance.now() / 1000;
        if (!opts.quiet)
          process.stderr.write(
            `importing ${file} into ${db.kind === "postgres" ? "PostgreSQL" : config.dataDir} (started in ${startupSeconds.toFixed(1)}s: database opened and migrated)\n`,
          );
        const summary = await importReplayFile(file, ingestor, opts.quiet ? undefined : createProgress(), {
          batch: { maxRequests: opts.batchSize, maxBytes: opts.batchMb * 1024 * 1024 },
          decoder,
        }).finally(() => decoder.close());
        process.stdout.write(`${describeSummary(file, summary, startupSeconds)}\n`);
        await subgraphs.idle(); // a backfill started at init finishes before the database closes
      } finally {
        await db.close();
      }
    });
}
