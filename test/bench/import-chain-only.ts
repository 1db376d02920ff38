/**
 * Bench helper: the import path (`importReplayFile`, the code `sluice import` runs) with chain
 * tables only, no subgraph hooks — what the foundation benchmark measures. Run as a child process:
 *   npx tsx test/bench/import-chain-only.ts <file.tsv>   (DATABASE_URL or DATA_DIR as usual)
 */
import { createIngestor } from "../../runtime/chain/ingest.js";
import { describeSummary, importReplayFile } from "../../runtime/cli/import.js";
import { parseConfig } from "../../runtime/config/index.js";
import { migrate, openDb } from "../../runtime/db/index.js";
import { silentLogger } from "../../runtime/internal/logger.js";

const file = process.argv[2];
if (!file) throw new Error("usage: import-chain-only.ts <file.tsv>");
const config = parseConfig();
const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
try {
  await migrate(db);
  const ingestor = createIngestor({
    db,
    logger: silentLogger,
    finalityBurnConfirmations: config.finalityBurnConfirmations,
  });
  // The import's default batching unless BENCH_BATCH sets a number of requests per transaction.
  const summary = await importReplayFile(file, ingestor, undefined, {
    batch: process.env.BENCH_BATCH ? { maxRequests: Number(process.env.BENCH_BATCH) } : {},
  });
  process.stdout.write(`${describeSummary(file, summary)}\n`);
} finally {
  await db.close();
}
