/**
 * Imports an event-replay file through `importReplayFile` with the built-in subgraphs plus one
 * extra spec deployed first (a devnet chain from the simulator), as the subgraph suites do to watch
 * a subgraph fail or succeed across multi-request transactions.
 */
import { createIngestor } from "../../runtime/chain/ingest.js";
import { type ImportSummary, importReplayFile } from "../../runtime/cli/import.js";
import { parseConfig } from "../../runtime/config/index.js";
import type { Db } from "../../runtime/db/types.js";
import { silentLogger } from "../../runtime/internal/logger.js";
import { createSubgraphEngine } from "../../runtime/subgraphs/index.js";

export async function importWithSpec(
  db: Db,
  file: string,
  specYaml: string,
  maxRequests: number,
): Promise<ImportSummary> {
  const config = parseConfig({ NETWORK: "devnet", DATA_DIR: ".tmp/unused" });
  const engine = createSubgraphEngine({ db, config, logger: silentLogger });
  await engine.init();
  try {
    await engine.deploy(specYaml, "yaml");
    await engine.idle();
    const ingestor = createIngestor({
      db,
      logger: silentLogger,
      finalityBurnConfirmations: config.finalityBurnConfirmations,
      hooks: [engine.hooks],
    });
    return await importReplayFile(file, ingestor, undefined, { batch: { maxRequests } });
  } finally {
    await engine.close();
  }
}
