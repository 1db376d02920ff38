/** `sluice import <file>`: wiring of the import to configuration, database and terminal. */
import fs from "node:fs";
import type { Command } from "commander";
import { createIngestor } from "../chain/ingest.js";
import { parseConfig } from "../config/index.js";
import { migrate, openDb } from "../db/index.js";
import { createLogger } from "../internal/logger.js";
import { describeSummary, importReplayFile } from "./import.js";
import { createProgress } from "./progress.js";

export function registerImportCommand(program: Command): void {
  program
    .command("import")
    .description(
      "replay a stacks-blockchain-api event-replay TSV (plain or .gz) through the ingest path; re-running is a no-op",
    )
    .argument("<file>", "event-replay TSV: id <TAB> timestamp <TAB> path <TAB> json, one request per line")
    .option("--quiet", "no progress line")
    .addHelpText("after", "\nUses DATABASE_URL (PostgreSQL) or DATA_DIR (embedded database), like the service.")
    .action(async (file: string, opts: { quiet?: boolean }) => {
      if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
        program.error(`sluice import: no such file: ${file}`, { exitCode: 2 });
      }
      const config = parseConfig();
      const logger = createLogger({ level: config.logLevel === "info" ? "warn" : config.logLevel, format: "pretty" });
      const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      try {
        await migrate(db);
        const ingestor = createIngestor({ db, logger, finalityBurnConfirmations: config.finalityBurnConfirmations });
        if (!opts.quiet)
          process.stderr.write(`importing ${file} into ${db.kind === "postgres" ? "PostgreSQL" : config.dataDir}\n`);
        const summary = await importReplayFile(file, ingestor, opts.quiet ? undefined : createProgress());
        process.stderr.write(opts.quiet ? "" : "\n");
        process.stdout.write(`${describeSummary(file, summary)}\n`);
      } finally {
        await db.close();
      }
    });
}
