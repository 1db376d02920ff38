/**
 * The service as a process: a `kill -9` right after acknowledgements loses
 * nothing acknowledged, and SIGTERM stops cleanly (exit 0) after finishing the block in flight.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPgliteDb } from "../../runtime/db/pglite.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import type { Db } from "../../runtime/db/types.js";
import { expectedChain } from "../support/chain-model.js";
import { startServiceProcess } from "../support/cli.js";
import { TEST_DB_KIND, createPgDatabase } from "../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../support/fixtures.js";
import { seedPgliteDataDir } from "../support/pglite-snapshot.js";
import { postObserver, waitFor } from "../support/service.js";
import { scratchDir } from "../support/scratch-dir.js";

const requests = () =>
  hasFixtures ? readReplayTsv(path.join(FIXTURES_DIR, "observer/stacks-blockchain-api/balance-reorg.tsv.gz")) : [];

describe.skipIf(!hasFixtures)("the service process", () => {
  const rootDir = scratchDir("sluice-proc-");
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
    rootDir.remove();
  });

  async function target(name: string): Promise<{ env: Record<string, string>; open: () => Promise<Db> }> {
    if (TEST_DB_KIND === "postgres") {
      const created = await createPgDatabase();
      cleanups.push(created.drop);
      return { env: { DATABASE_URL: created.url }, open: () => createPostgresDb(created.url, 2) };
    }
    // Starts from a migrated database: what is under test is the restart, not the first start.
    const dataDir = path.join(rootDir.path, name);
    await seedPgliteDataDir(dataDir);
    return { env: { DATA_DIR: dataDir }, open: () => createPgliteDb(path.join(dataDir, "pgdata")) };
  }

  async function canonicalHashes(db: Db): Promise<Set<string>> {
    const { rows } = await db.query<{ h: string }>("SELECT index_block_hash AS h FROM chain.blocks WHERE canonical");
    return new Set(rows.map((r) => r.h));
  }

  async function restartAndDrain(env: Record<string, string>): Promise<void> {
    const svc = await startServiceProcess(env);
    // /health turns 200 only after the journal left by the killed process was processed.
    await waitFor(async () => (await fetch(`${svc.apiUrl}/health`)).status === 200);
    const status = (await (await fetch(`${svc.apiUrl}/status`)).json()) as { counts: { journal_pending: number } };
    expect(status.counts.journal_pending).toBe(0);
    svc.child.kill("SIGTERM");
    expect((await svc.exited).code).toBe(0);
  }

  it("kill -9 right after the acknowledgements: every acknowledged block is there after restart", async () => {
    const t = await target("kill9");
    const svc = await startServiceProcess(t.env);
    const rows = requests();
    for (const r of rows) await postObserver(svc.observerUrl, r.path, r.body);
    svc.child.kill("SIGKILL");
    await svc.exited;
    await restartAndDrain(t.env);
    const db = await t.open();
    try {
      expect(await canonicalHashes(db)).toEqual(expectedChain(rows).canonicalHashes);
    } finally {
      await db.close();
    }
  });

  it("SIGTERM exits 0, and what was acknowledged before it is ingested", async () => {
    const t = await target("sigterm");
    const svc = await startServiceProcess(t.env);
    const rows = requests();
    for (const r of rows) await postObserver(svc.observerUrl, r.path, r.body);
    svc.child.kill("SIGTERM");
    expect((await svc.exited).code).toBe(0);
    await restartAndDrain(t.env);
    const db = await t.open();
    try {
      expect(await canonicalHashes(db)).toEqual(expectedChain(rows).canonicalHashes);
    } finally {
      await db.close();
    }
  });

  it("refuses to start past loopback without a token: exit 2 and a clear message", async () => {
    await expect(
      startServiceProcess(
        { API_HOST: "0.0.0.0", DATA_DIR: path.join(rootDir.path, "refuse"), INSTANCE_TOKEN: "", SLUICE_API_KEY: "" },
        20_000,
      ),
    ).rejects.toThrow(/exited with 2[\s\S]*INSTANCE_TOKEN/);
  });

  it("refuses to start with the observer past loopback and no OBSERVER_ALLOW_FROM: exit 2, naming it", async () => {
    await expect(
      startServiceProcess({ OBSERVER_HOST: "0.0.0.0", DATA_DIR: path.join(rootDir.path, "refuse-observer") }, 20_000),
    ).rejects.toThrow(/exited with 2[\s\S]*OBSERVER_HOST=0\.0\.0\.0[\s\S]*set OBSERVER_ALLOW_FROM/);
    // Refused before anything was opened.
    expect(fs.existsSync(path.join(rootDir.path, "refuse-observer"))).toBe(false);
  });
});
