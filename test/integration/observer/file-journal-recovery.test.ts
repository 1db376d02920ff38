/**
 * Start-up recovery of the embedded database's observer file journal (runtime/observer/processor.ts):
 * requests acknowledged (appended and fsynced) but not processed before a crash are ingested at
 * the next start, with no outcome listener attached, as in the real service; the file is then
 * emptied. Expected blocks are counted from the simulated payloads themselves.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIngestor } from "../../../runtime/chain/ingest.js";
import { silentLogger } from "../../../runtime/internal/logger.js";
import { createFileObserverJournal, openFileJournal } from "../../../runtime/observer/file-journal.js";
import { createJournalProcessor } from "../../../runtime/observer/processor.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { type TestDb, createTestDb } from "../../support/db.js";

describe("file journal recovery at start-up", () => {
  let testDb: TestDb;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-fj-recovery-"));
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await testDb?.drop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("ingests every record left in the file, without an outcome listener, then empties the file", async () => {
    const { payloads } = simulateChain({ seed: "fj-recovery", blocks: 8, eventsPerBlock: 10, forkRate: 0 });
    const dir = path.join(root, "journal");
    // A run that acknowledged everything and died before processing any of it.
    const crashed = openFileJournal(dir);
    for (const p of payloads) await crashed.append(p.path, JSON.stringify(p.body));
    await crashed.close();
    const blockHashes = new Set(
      payloads
        .filter((p) => p.path === "/new_block")
        .map((p) => (p.body as { index_block_hash: string }).index_block_hash),
    );
    expect(blockHashes.size).toBe(8);

    const journal = openFileJournal(dir);
    const ingestor = createIngestor({ db: testDb.db, logger: silentLogger, finalityBurnConfirmations: 6 });
    const processor = createJournalProcessor({
      journal: createFileObserverJournal(journal, ingestor, silentLogger),
      logger: silentLogger,
    });
    await processor.start();
    await processor.idle();

    const { rows } = await testDb.db.query<{ index_block_hash: string }>("SELECT index_block_hash FROM chain.blocks");
    expect(new Set(rows.map((r) => r.index_block_hash))).toEqual(blockHashes);
    expect(journal.readAll()).toEqual([]);
    await processor.stop();
    await journal.close();
  });
});
