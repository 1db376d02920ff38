/**
 * The archive over the recorded mainnet traffic (../shared/fixtures, skipped when absent): for each
 * event-replay recording, instance A ingests it through the observer, publishes, and instance B
 * bootstraps over real HTTP: B's chain tables equal A's canonical rows of the published range;
 * after B sees the same requests, every chain and subgraph table equals A's.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openArchive } from "../../../runtime/archive/client.js";
import { keyFromSeed } from "../../../runtime/archive/manifest.js";
import { publishArchive } from "../../../runtime/archive/publish.js";
import { restoreFromArchive } from "../../../runtime/archive/restore.js";
import { startArchiveServer } from "../../../runtime/archive/server.js";
import { filesystemStorage } from "../../../runtime/archive/storage.js";
import { parseConfig } from "../../../runtime/config/index.js";
import type { Db } from "../../../runtime/db/types.js";
import { silentLogger } from "../../../runtime/internal/logger.js";
import { dumpChainTables, dumpSubgraphSchemas } from "../../support/archive.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../../support/fixtures.js";
import { ingestThroughService } from "../../support/service.js";
import { scratchDir } from "../../support/scratch-dir.js";

const apiDir = path.join(FIXTURES_DIR, "observer", "stacks-blockchain-api");
const recordings = hasFixtures
  ? fs
      .readdirSync(apiDir)
      .filter((f) => /\.tsv(\.gz)?$/.test(f))
      .sort()
  : [];

describe.skipIf(!hasFixtures)("archive over recorded fixtures", () => {
  const rootDir = scratchDir("sluice-archive-fx-");
  const key = keyFromSeed(Buffer.alloc(32, 3));
  const pinned = [Buffer.from(key.publicKey).toString("base64")];
  let a: TestDb;
  let b: TestDb;
  const restored: string[] = [];
  beforeAll(async () => {
    a = await createTestDb();
    b = await createTestDb();
  });
  afterAll(async () => {
    await a?.drop();
    await b?.drop();
    rootDir.remove();
  });

  async function ingest(db: Db, requests: { path: string; body: string }[]) {
    await ingestThroughService(db, requests, { NETWORK: "mainnet" });
  }

  for (const file of recordings) {
    it(`${file}: bootstrap equals A's canonical rows; following equals A everywhere`, async () => {
      const requests = readReplayTsv(path.join(apiDir, file)).map((r) => ({ path: r.path, body: r.body }));
      await a.reset();
      await b.reset();
      await ingest(a.db, requests);
      const dir = path.join(rootDir.path, file);
      const published = await publishArchive({
        db: a.db,
        storage: filesystemStorage(dir),
        key,
        network: "mainnet",
        span: 2,
      });
      if (published.partitions === 0) return; // nothing final in this recording
      const server = await startArchiveServer({ storage: filesystemStorage(dir), host: "127.0.0.1", port: 0 });
      try {
        const archive = await openArchive(server.url, pinned);
        await restoreFromArchive({
          db: b.db,
          config: parseConfig({ NETWORK: "mainnet", DATA_DIR: rootDir.path }),
          logger: silentLogger,
          archive,
          operation: "bootstrap",
          downloadsDir: path.join(rootDir.path, "downloads"),
          confirm: async () => true,
        });
        const last = archive.manifest.partitions.at(-1);
        if (!last) throw new Error("no partition");
        const scope = { maxHeight: last.last_height, maxBurnHeight: last.burn_to_height };
        expect(await dumpChainTables(b.db, scope)).toEqual(
          await dumpChainTables(a.db, { ...scope, canonicalOnly: true }),
        );
        restored.push(file);
      } finally {
        await server.close();
      }
      await ingest(b.db, requests);
      expect(await dumpChainTables(b.db)).toEqual(await dumpChainTables(a.db));
      expect(await dumpSubgraphSchemas(b.db)).toEqual(await dumpSubgraphSchemas(a.db));
    });
  }

  // Short recordings (a block or a few) never reach finality: nothing of them is published.
  it("the long recordings had finalized partitions to restore", () => {
    expect(restored.length, restored.join(", ")).toBeGreaterThanOrEqual(4);
  });
});
