/**
 * A built-in subgraph upgraded in place (runtime/subgraphs/index.ts init, derivation.ts): a
 * database left by asset-holdings 1.1.0, whose STX rows were net transfers, is rebuilt from its
 * stored blocks at the first start of the version that counts fees and miner rewards, while a new
 * build whose sources and handlers are unchanged keeps its rows. Expected balances are computed
 * here from the fixture's raw payloads (test/support/subgraph-expect.ts).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { SPECS_DIR } from "../../../generator/repo-paths.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { hasFixtures, readReplayTsv } from "../../support/fixtures.js";
import { ingestThroughService, startTestService } from "../../support/service.js";
import { readHoldings } from "../../support/subgraph-dump.js";
import { type RawBlock, canonicalBlocks, expectedHoldings } from "../../support/subgraph-expect.js";

const FIXTURE = "observer/stacks-blockchain-api/balance-reorg.tsv.gz";

/** asset-holdings as it was before fees and miner rewards: its spec without those two sources. */
function specBeforeFees(): string {
  const spec = YAML.parse(readFileSync(path.join(SPECS_DIR, "asset-holdings.yaml"), "utf8"));
  for (const source of Object.keys(spec.sources)) {
    if (spec.sources[source].type !== "tx_fee" && spec.sources[source].type !== "miner_reward") continue;
    delete spec.sources[source];
    delete spec.handlers[source];
  }
  spec.version = "1.1.0";
  return YAML.stringify(spec);
}

describe.skipIf(!hasFixtures)("a built-in subgraph upgraded in place", () => {
  let testDb: TestDb;
  const requests = hasFixtures ? readReplayTsv(FIXTURE).map((r) => ({ path: r.path, body: r.body })) : [];
  const blocks = canonicalBlocks(requests);

  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  /** A fresh database holding the fixture, ingested by the current build. */
  async function ingestFixture(): Promise<void> {
    await testDb.reset();
    await ingestThroughService(testDb.db, requests);
  }

  /** Starts the current build on the database, waits for its backfills, returns asset-holdings' state. */
  async function restart() {
    const service = await startTestService(testDb.db);
    try {
      await service.subgraphs.idle();
      const { rows } = await testDb.db.query<{ version: string }>(
        "SELECT version FROM control.subgraphs WHERE name = 'asset-holdings'",
      );
      return {
        status: (await service.subgraphs.progress("asset-holdings"))?.status,
        version: rows[0].version,
        holdings: await readHoldings(testDb.db),
      };
    } finally {
      await service.stop();
    }
  }

  it("rows of a version without fees are rebuilt from the stored blocks: fees come from the stored transactions, rewards of blocks stored without them are missing", async () => {
    await ingestFixture();
    const old = specBeforeFees();
    expect(old).not.toContain("tx_fee");
    // What the earlier version left: its definition, balances that are not account balances, and
    // blocks stored before their matured miner rewards were kept.
    await testDb.db.query(
      "UPDATE control.subgraphs SET version = '1.1.0', module_hash = 'asset-holdings 1.1.0', spec_text = $1 WHERE name = 'asset-holdings'",
      [old],
    );
    await testDb.db.query("UPDATE sg_asset_holdings.holdings SET amount = 0");
    await testDb.db.query("UPDATE chain.blocks SET matured_miner_rewards = NULL");

    const after = await restart();
    expect(after.status).toBe("ready");
    expect(after.version).toBe("1.3.0");
    const withoutRewards = blocks.map((b: RawBlock) => ({ ...b, matured_miner_rewards: [] }));
    expect(after.holdings).toEqual(expectedHoldings(withoutRewards));
    // The fixture pays fees and matures rewards, so both expectations differ from the full one.
    expect(expectedHoldings(withoutRewards)).not.toEqual(expectedHoldings(blocks));
  });

  it("a new build whose sources and handlers are unchanged keeps the rows", async () => {
    await ingestFixture();
    await testDb.db.query(
      "UPDATE control.subgraphs SET version = '1.1.0', module_hash = 'an earlier build' WHERE name = 'asset-holdings'",
    );
    // A marker a rebuild would erase.
    await testDb.db.query("UPDATE sg_asset_holdings.holdings SET amount = amount + 1");

    const after = await restart();
    expect(after.status).toBe("ready");
    expect(after.version).toBe("1.3.0");
    const marked = new Map([...expectedHoldings(blocks)].map(([key, amount]) => [key, amount + 1n]));
    expect(after.holdings).toEqual(marked);
  });
});
