/**
 * `sluice import`: every recorded fixture imported through the import path
 * gives the chain the independent model expects; importing again changes nothing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIngestor } from "../../../runtime/chain/ingest.js";
import { importReplayFile } from "../../../runtime/cli/import.js";
import { silentLogger } from "../../../runtime/internal/logger.js";
import { writeSimulation } from "../../../runtime/simulator/index.js";
import { expectedChain } from "../../support/chain-model.js";
import { runCli } from "../../support/cli.js";
import { TEST_DB_KIND, type TestDb, createPgDatabase, createTestDb } from "../../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../../support/fixtures.js";
import { seedPgliteDataDir } from "../../support/pglite-snapshot.js";
import { scratchDir } from "../../support/scratch-dir.js";

const apiDir = path.join(FIXTURES_DIR, "observer/stacks-blockchain-api");
const files = hasFixtures
  ? fs
      .readdirSync(apiDir)
      .filter((f) => /\.tsv(\.gz)?$/.test(f))
      .sort()
  : [];

async function chainState(db: TestDb["db"]) {
  const blocks = await db.query("SELECT index_block_hash, canonical FROM chain.blocks ORDER BY 1");
  const events = await db.query(
    "SELECT event_type, count(*)::int AS n FROM chain.events WHERE canonical AND committed GROUP BY 1 ORDER BY 1",
  );
  const tip = await db.query(
    "SELECT index_block_hash, block_height, canonical_events, reorg_count FROM control.chain_tip",
  );
  return { blocks: blocks.rows, events: events.rows, tip: tip.rows };
}

describe.skipIf(!hasFixtures)("sluice import", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  for (const file of files) {
    it(`${file}: imports to the expected chain; a second import is a no-op`, async () => {
      await testDb.reset();
      const ingestor = createIngestor({ db: testDb.db, logger: silentLogger, finalityBurnConfirmations: 6 });
      const full = path.join(apiDir, file);
      const rows = readReplayTsv(full);
      const first = await importReplayFile(full, ingestor, undefined, { batch: { maxRequests: 7 } });
      expect(first.rows).toBe(rows.length);
      expect(first.malformed).toBe(0);

      const want = expectedChain(rows);
      const { rows: canonical } = await testDb.db.query<{ h: string }>(
        "SELECT index_block_hash AS h FROM chain.blocks WHERE canonical",
      );
      expect(new Set(canonical.map((r) => r.h))).toEqual(want.canonicalHashes);
      const { rows: events } = await testDb.db.query<{ event_type: string; n: number }>(
        "SELECT event_type, count(*)::int AS n FROM chain.events WHERE canonical AND committed GROUP BY 1",
      );
      expect(Object.fromEntries(events.map((r) => [r.event_type, r.n]))).toEqual(want.eventCounts);

      const before = await chainState(testDb.db);
      const again = await importReplayFile(full, ingestor);
      expect(again.skipped).toBe(rows.length);
      expect(await chainState(testDb.db)).toEqual(before);
    });
  }
});

describe("sluice import: a request repeated in the file", () => {
  let testDb: TestDb;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-import-dup-"));
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await testDb?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is imported once, also when both copies fall in one transaction", async () => {
    const original = path.join(dir, "chain.tsv");
    await writeSimulation(
      { seed: "import-dup", blocks: 20, eventsPerBlock: 6, forkRate: 0, network: "devnet" },
      original,
    );
    const lines = fs.readFileSync(original, "utf8").split("\n").filter(Boolean);
    const repeated = [5, 6, 11]; // line 6 twice in a row, and again after five more lines
    const withCopies = path.join(dir, "with-copies.tsv");
    fs.writeFileSync(
      withCopies,
      `${[...lines.slice(0, 7), lines[5], ...lines.slice(7, 12), lines[5], ...lines.slice(12)].join("\n")}\n`,
    );
    const ingestor = () => createIngestor({ db: testDb.db, logger: silentLogger, finalityBurnConfirmations: 6 });

    await testDb.reset();
    await importReplayFile(original, ingestor(), undefined, { batch: { maxRequests: 16 } });
    const want = await chainState(testDb.db);

    await testDb.reset();
    const summary = await importReplayFile(withCopies, ingestor(), undefined, { batch: { maxRequests: 16 } });
    expect(summary.rows).toBe(lines.length + 2);
    expect(summary.skipped).toBe(repeated.length - 1);
    expect(await chainState(testDb.db)).toEqual(want);
  });
});

describe("sluice import: bad input", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-import-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("a missing file exits 2 with a clear message", async () => {
    const res = await runCli(["import", path.join(dir, "nope.tsv")], { DATA_DIR: path.join(dir, "data1") });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/no such file: .*nope\.tsv/);
  });

  it.each([
    ["--batch-size", "0"],
    ["--batch-size", "2.5"],
    ["--batch-mb", "0"],
    ["--batch-mb", "lots"],
  ])("%s %s is refused before anything is opened", async (flag, value) => {
    const file = path.join(dir, "empty.tsv");
    fs.writeFileSync(file, "");
    const data = path.join(dir, `data-${flag}-${value}`);
    const res = await runCli(["import", flag, value, file], { DATA_DIR: data });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(`option '${flag} <n>' argument '${value}' is invalid. must be a whole number`);
    expect(fs.existsSync(data)).toBe(false);
  });

  it("a line without four columns fails with file:line and the expected format, no stack trace", async () => {
    const file = path.join(dir, "bad.tsv");
    fs.writeFileSync(file, "1\t2021-01-01\t/new_block\n");
    // The file is read once the database is open: a migrated one spares this test an initdb.
    await seedPgliteDataDir(path.join(dir, "data2"));
    const res = await runCli(["import", "--quiet", file], { DATA_DIR: path.join(dir, "data2") });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/bad\.tsv:1: expected 4 tab-separated columns/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});

describe.skipIf(!hasFixtures)("sluice import: what it prints", () => {
  const scratch = scratchDir("sluice-import-progress-");
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
    scratch.remove();
  });

  it("the last progress line agrees with the summary and the file, and start-up time is shown", async () => {
    const file = path.join(apiDir, "balance-reorg.tsv.gz");
    // From the file: every /new_block request is a block; events count once per distinct block.
    const rows = readReplayTsv(file);
    const seen = new Set<string>();
    let blocks = 0;
    let events = 0;
    for (const r of rows.filter((r) => r.path === "/new_block")) {
      blocks++;
      const body = JSON.parse(r.body) as { index_block_hash: string; events: unknown[] };
      if (!seen.has(body.index_block_hash)) events += body.events.length;
      seen.add(body.index_block_hash);
    }
    expect(blocks).toBeGreaterThan(0);
    expect(events).toBeGreaterThan(0);

    let env: Record<string, string> = { DATA_DIR: path.join(scratch.path, "data") };
    if (TEST_DB_KIND === "pglite") await seedPgliteDataDir(env.DATA_DIR);
    else {
      const created = await createPgDatabase();
      drops.push(created.drop);
      env = { DATABASE_URL: created.url };
    }
    const res = await runCli(["import", file], env);
    expect(res.code, res.stderr).toBe(0);

    const progress = res.stderr.split(/\r|\n/).filter((l) => l.startsWith("blocks "));
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatch(new RegExp(`^blocks ${blocks} \\| events ${events} \\(.*\\| done in [\\d.]+s$`));
    expect(res.stdout).toContain(`: ${blocks} blocks (`);
    expect(res.stdout).toMatch(new RegExp(`\\n {2}events ${events} \\(`));
    // Counts only grow: no line shows less than an earlier one.
    const counts = progress.map((l) => (/^blocks (\d+) \| events (\d+)/.exec(l) ?? []).slice(1).map(Number));
    for (let i = 1; i < counts.length; i++) {
      expect(counts[i][0]).toBeGreaterThanOrEqual(counts[i - 1][0]);
      expect(counts[i][1]).toBeGreaterThanOrEqual(counts[i - 1][1]);
    }

    expect(res.stderr).toMatch(/^importing .* \(started in [\d.]+s: database opened and migrated\)$/m);
    expect(res.stdout).toMatch(/^ {2}start-up [\d.]+s before that \(database opened and migrated\)$/m);
  });
});
