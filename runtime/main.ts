/**
 * Production entry point (`npm start`): configuration from the environment, no simulator.
 * SIGTERM/SIGINT stop accepting, finish the block in flight and close the database.
 */
import { parseConfig } from "./config/index.js";
import { ConfigError } from "./internal/errors.js";
import { createLogger } from "./internal/logger.js";
import { startService } from "./service.js";

async function main(): Promise<void> {
  let config: ReturnType<typeof parseConfig>;
  try {
    config = parseConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`sluice: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, format: config.logFormat });
  const service = await startService({ config, logger });
  const stop = async (signal: string) => {
    logger.info({ msg: "shutting down", signal });
    await service.stop();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}

main().catch((err) => {
  process.stderr.write(`sluice: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
