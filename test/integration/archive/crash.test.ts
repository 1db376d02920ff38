/**
 * A restore is resumable: `sluice archive bootstrap` killed with SIGKILL at random moments three
 * times, then run to completion, leaves exactly the database an uninterrupted bootstrap leaves
 * (chain tables, indexes, tip, subgraph tables and progress, restore bookkeeping).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keyFromSeed } from "../../../runtime/archive/manifest.js";
import { publishArchive } from "../../../runtime/archive/publish.js";
import { type ArchiveServer, startArchiveServer } from "../../../runtime/archive/server.js";
import { filesystemStorage } from "../../../runtime/archive/storage.js";
import { createPgliteDb } from "../../../runtime/db/pglite.js";
import { createPostgresDb } from "../../../runtime/db/postgres.js";
import type { Db } from "../../../runtime/db/types.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { dumpChainTables, dumpSubgraphSchemas } from "../../support/archive.js";
import { runCli, spawnCli } from "../../support/cli.js";
import { TEST_DB_KIND, createPgDatabase, createTestDb } from "../../support/db.js";
import { seedPgliteDataDir } from "../../support/pglite-snapshot.js";
import { postObserver, startTestService } from "../../support/service.js";

const SEED = Number(process.env.SEED ?? Date.now() % 100_000);

interface Target {
  env: Record<string, string>;
  open(): Promise<Db>;
  cleanup(): Promise<void>;
}

async function newTarget(root: string, name: string): Promise<Target> {
  const dataDir = path.join(root, name);
  fs.mkdirSync(dataDir, { recursive: true });
  if (TEST_DB_KIND === "postgres") {
    const created = await createPgDatabase();
    return {
      env: { DATABASE_URL: created.url, DATA_DIR: dataDir },
      open: () => createPostgresDb(created.url, 2),
      cleanup: created.drop,
    };
  }
  // Starts from a migrated database: the kills come after the downloads, when the database is open
  // and migrated anyway.
  await seedPgliteDataDir(dataDir);
  return {
    env: { DATA_DIR: dataDir },
    open: () => createPgliteDb(path.join(dataDir, "pgdata")),
    cleanup: async () => {},
  };
}

async function snapshot(db: Db) {
  const rows = async (sql: string) => (await db.query(sql)).rows;
  return {
    chain: await dumpChainTables(db),
    subgraphs: await dumpSubgraphSchemas(db),
    indexes: await rows("SELECT indexdef FROM pg_indexes WHERE schemaname = 'chain' ORDER BY 1"),
    tip: await rows(
      "SELECT index_block_hash, block_height, burn_block_height, finalized_height, blocks_ingested, canonical_txs, canonical_events FROM control.chain_tip",
    ),
    progress: await rows(
      "SELECT s.name, s.status, p.subgraph_height FROM control.subgraphs s JOIN control.subgraph_progress p USING (name) ORDER BY 1",
    ),
    partitions: await rows(
      "SELECT first_height, last_height, content_sha256 FROM control.archive_partitions ORDER BY 1",
    ),
    restore: await rows("SELECT * FROM control.archive_restore"),
  };
}

describe(`archive bootstrap killed with SIGKILL (seed ${SEED})`, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-archive-crash-"));
  const cleanups: (() => Promise<void>)[] = [];
  let server: ArchiveServer | undefined;
  afterAll(async () => {
    await server?.close();
    for (const c of cleanups) await c();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("three kills at random points, then a full run, equal one uninterrupted run", { timeout: 600_000 }, async () => {
    let rng = SEED;
    const random = () => {
      rng = (rng * 1_103_515_245 + 12_345) % 2 ** 31;
      return rng / 2 ** 31;
    };
    // Source instance and its archive.
    const source = await createTestDb();
    cleanups.push(() => source.drop());
    // Large enough for more than ten partitions and a thousand events, so each phase a kill lands
    // in (load, indexes, subgraphs) has work in flight; resumability does not depend on more.
    const { payloads } = simulateChain({ seed: `crash-${SEED}`, blocks: 160, eventsPerBlock: 10, forkRate: 0.1 });
    const service = await startTestService(source.db, { NETWORK: "devnet" });
    try {
      for (const p of payloads) await postObserver(service.observerUrl, p.path, JSON.stringify(p.body));
      await service.idle();
    } finally {
      await service.stop();
    }
    const key = keyFromSeed(Buffer.alloc(32, 5));
    const dir = path.join(root, "archive");
    const published = await publishArchive({
      db: source.db,
      storage: filesystemStorage(dir),
      key,
      network: "devnet",
      span: 10,
    });
    expect(published.partitions).toBeGreaterThan(10);
    server = await startArchiveServer({ storage: filesystemStorage(dir), host: "127.0.0.1", port: 0 });
    const args = [
      "archive",
      "bootstrap",
      "--archive",
      server.url,
      "--public-key",
      Buffer.from(key.publicKey).toString("base64"),
      "--yes",
    ];

    const reference = await newTarget(root, "reference");
    cleanups.push(reference.cleanup);
    const full = await runCli(args, { ...reference.env, NETWORK: "devnet" });
    expect(full.code, full.stderr).toBe(0);
    // Kills land within the time the uninterrupted run spent after its downloads (its summary says).
    const m = /in ([\d.]+)s; indexes ([\d.]+)s[^\n]*\n\s+subgraphs rebuilt in ([\d.]+)s/.exec(full.stdout);
    expect(m, full.stdout).not.toBeNull();
    const windowMs = 1000 * (Number(m?.[1]) + Number(m?.[2]) + Number(m?.[3]));

    const crashed = await newTarget(root, "crashed");
    cleanups.push(crashed.cleanup);
    const seen: string[] = [];
    for (let kill = 0; kill < 3; kill++) {
      const child = spawnCli(args, { ...crashed.env, NETWORK: "devnet" });
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      // After the downloads (a line on stderr), at a random moment of the load, index or subgraph phase.
      await new Promise<void>((resolve) => {
        let err = "";
        child.stderr?.on("data", (d) => {
          err += d;
          if (err.includes("downloaded ")) resolve();
        });
        void exited.then(() => resolve());
      });
      await new Promise((r) => setTimeout(r, ((kill + random()) / 3) * windowMs));
      child.kill("SIGKILL");
      await exited;
      const db = await crashed.open();
      const { rows } = await db.query<{ phase: string; loaded: number[] }>(
        "SELECT phase, loaded FROM control.archive_restore",
      );
      seen.push(rows[0] ? `${rows[0].phase}:${rows[0].loaded.length}` : "none");
      await db.close();
    }
    const finish = await runCli(args, { ...crashed.env, NETWORK: "devnet" });
    expect(finish.code, finish.stderr).toBe(0);

    const ref = await reference.open();
    const want = await snapshot(ref);
    await ref.close();
    const db = await crashed.open();
    const got = await snapshot(db);
    await db.close();
    expect(want.chain.events.length).toBeGreaterThan(1000);
    expect(got).toEqual(want);
    // Meaningful only if a kill interrupted a restore in progress.
    expect(
      seen.some((s) => s !== "none"),
      `restore state after kills: ${seen}`,
    ).toBe(true);
  });
});
