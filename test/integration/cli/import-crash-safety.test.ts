/**
 * Crash safety (DESIGN.md §2 "One block is the unit of atomicity"): `sluice import` killed with
 * SIGKILL at random moments three times, then run to completion, leaves exactly the database an
 * uninterrupted run leaves.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPgliteDb } from "../../../runtime/db/pglite.js";
import { createPostgresDb } from "../../../runtime/db/postgres.js";
import type { Db } from "../../../runtime/db/types.js";
import { runCli, spawnCli } from "../../support/cli.js";
import { TEST_DB_KIND, createPgDatabase } from "../../support/db.js";
import { seedPgliteDataDir } from "../../support/pglite-snapshot.js";
import { writeSimulation } from "../../../runtime/simulator/index.js";

const SEED = Number(process.env.SEED ?? Date.now() % 100_000);

const BLOCKS = 90;

/** A simulated chain with forks: hundreds of requests, so a kill can land anywhere. */
async function buildInput(dir: string): Promise<string> {
  const file = path.join(dir, "input.tsv");
  await writeSimulation({ seed: `crash-${SEED}`, blocks: BLOCKS, eventsPerBlock: 10, forkRate: 0.15 }, file);
  return file;
}

interface Target {
  env: Record<string, string>;
  open(): Promise<Db>;
  cleanup(): Promise<void>;
}

async function newTarget(root: string, name: string): Promise<Target> {
  if (TEST_DB_KIND === "postgres") {
    const created = await createPgDatabase();
    return { env: { DATABASE_URL: created.url }, open: () => createPostgresDb(created.url, 2), cleanup: created.drop };
  }
  // Starts from a migrated database, as every killed run after the first would: the kills come
  // after the import announced itself, when the database is open and migrated anyway.
  const dataDir = path.join(root, name);
  await seedPgliteDataDir(dataDir);
  return {
    env: { DATA_DIR: dataDir },
    open: () => createPgliteDb(path.join(dataDir, "pgdata")),
    cleanup: async () => {},
  };
}

async function snapshot(db: Db) {
  const q = async (sql: string) => (await db.query(sql)).rows;
  return {
    blocks: await q("SELECT index_block_hash, block_height, canonical FROM chain.blocks ORDER BY index_block_hash"),
    txs: await q("SELECT index_block_hash, tx_index, tx_id, canonical FROM chain.transactions ORDER BY 1, 2"),
    events: await q(
      "SELECT index_block_hash, event_index, event_type, canonical, amount::text FROM chain.events ORDER BY 1, 2",
    ),
    burn: await q("SELECT burn_block_hash FROM chain.burn_blocks ORDER BY 1"),
    reorgs: await q(
      "SELECT fork_point_height, orphaned_blocks, applied_blocks, new_tip_hash FROM chain.reorgs ORDER BY id",
    ),
    tip: await q(
      "SELECT index_block_hash, block_height, burn_block_height, finalized_height, blocks_ingested, canonical_txs, canonical_events, reorg_count FROM control.chain_tip",
    ),
    journal: await q("SELECT source_key, state FROM control.journal ORDER BY source_key"),
  };
}

describe(`import killed with SIGKILL (seed ${SEED})`, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-crash-"));
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("three kills at random points, then a full run, equal one uninterrupted run", { timeout: 600_000 }, async () => {
    const input = await buildInput(root);
    let rng = SEED;
    const random = () => {
      rng = (rng * 1_103_515_245 + 12_345) % 2 ** 31;
      return rng / 2 ** 31;
    };

    const reference = await newTarget(root, "reference");
    cleanups.push(reference.cleanup);
    const full = await runCli(["import", "--quiet", input], reference.env);
    expect(full.stdout).toMatch(/reorgs/);
    expect(full.code, full.stderr).toBe(0);
    const a = await reference.open();
    const want = await snapshot(a);
    await a.close();
    expect(want.blocks.length).toBeGreaterThan(BLOCKS);
    // Kills land within the time an uninterrupted import takes (its summary says), so at least
    // one lands mid-import however fast this machine imports.
    const importMs = 1000 * Number(/ in ([\d.]+)s\n/.exec(full.stdout)?.[1]);
    expect(importMs, full.stdout).toBeGreaterThan(0);
    const totalRequests = fs.readFileSync(input, "utf8").trimEnd().split("\n").length;

    // A round whose kills all landed before the first commit or after the last proves nothing (the
    // machine's load changed between the reference and the killed runs): it runs again on a new
    // database, with kills sooner (or later) by as much.
    let window = 0.8 * importMs;
    for (let round = 0; ; round++) {
      const crashed = await newTarget(root, `crashed-${round}`);
      cleanups.push(crashed.cleanup);
      const journaledAfterKill: number[] = [];
      for (let kill = 0; kill < 3; kill++) {
        const child = spawnCli(["import", "--batch-size", "4", input], crashed.env);
        const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
        // Kill at a random moment after the import loop began (it announces itself on stderr).
        await new Promise<void>((resolve) => {
          let err = "";
          child.stderr?.on("data", (d) => {
            err += d;
            if (err.includes("importing ")) resolve();
          });
          void exited.then(() => resolve());
        });
        await new Promise((r) => setTimeout(r, random() * window));
        child.kill("SIGKILL");
        await exited;
        const db = await crashed.open();
        const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM control.journal");
        journaledAfterKill.push(Number(rows[0].n));
        await db.close();
      }
      const finish = await runCli(["import", "--quiet", "--batch-size", "4", input], crashed.env);
      expect(finish.code, finish.stderr).toBe(0);

      const b = await crashed.open();
      const got = await snapshot(b);
      await b.close();
      expect(got).toEqual(want);
      // Meaningful only if at least one kill landed mid-import (some, not all, requests journaled).
      const midImport = journaledAfterKill.some((n) => n > 0 && n < totalRequests);
      if (midImport) break;
      expect(
        round,
        `journal rows after kills, round by round, last: ${journaledAfterKill} of ${totalRequests}`,
      ).toBeLessThan(2);
      window = journaledAfterKill.every((n) => n === 0) ? window * 2 : window / 2;
    }
  });
});
