/**
 * The four built-in subgraphs against recorded mainnet/devnet traffic:
 * every fixture is replayed through the observer, then
 * - holdings equal balances computed here from the fixture's committed ft_* and stx_* events on
 *   the canonical chain, STX ones less the fees paid (decoded from raw_tx) and plus the matured
 *   miner rewards of the block bodies;
 * - contracts equal the fixture's successful deploys (contract ids derived here from raw_tx);
 * - flows equal the sBTC fixture registry prints; transfers equal the sBTC token transfers (memo:
 *   the buffer sbtc-token prints right after the transfer);
 * - after a reorg fixture, every subgraph table equals a fresh replay of only the winning chain;
 * - a reindex of every subgraph rebuilds identical tables.
 * Expected values are computed from the raw JSON, sharing no code with runtime/.
 */
import fs from "node:fs";
import path from "node:path";
import { AuthType, deserializeTransaction } from "@stacks/transactions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkContracts } from "../../../runtime/config/networks.js";
import { type RawRequest, expectedChain } from "../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../../support/fixtures.js";
import { postObserver, startTestService } from "../../support/service.js";
import { dumpSubgraphTables, readContracts, readHoldings, reindexAll } from "../../support/subgraph-dump.js";
import {
  canonicalBlocks,
  expectedContracts,
  expectedFlows,
  expectedHoldings,
  expectedTransfers,
  feePaid,
} from "../../support/subgraph-expect.js";

const observerDir = path.join(FIXTURES_DIR, "observer");

interface Case {
  name: string;
  network: "mainnet" | "testnet";
  requests: RawRequest[];
  /** Contract ids that stand in for the network's, when the recording was made under other deployers. */
  contracts?: Partial<NetworkContracts>;
}

/** The sbtc repository's devenv deploys the sBTC contracts under this (testnet-version) address. */
const SBTC_DEVENV_DEPLOYER = "SN3R84XZYA63QS28932XQF3G1J8R9PC3W76P9CSQS";
const SBTC_DEVENV_CONTRACTS: Partial<NetworkContracts> = {
  sbtcRegistryContractId: `${SBTC_DEVENV_DEPLOYER}.sbtc-registry`,
  sbtcTokenContractId: `${SBTC_DEVENV_DEPLOYER}.sbtc-token`,
  sbtcAssetIdentifier: `${SBTC_DEVENV_DEPLOYER}.sbtc-token::sbtc-token`,
};

function fixtureCases(): Case[] {
  if (!hasFixtures) return [];
  const cases: Case[] = [];
  const apiDir = path.join(observerDir, "stacks-blockchain-api");
  for (const f of fs.readdirSync(apiDir).sort()) {
    if (!/\.tsv(\.gz)?$/.test(f)) continue;
    cases.push({
      name: f,
      network: "mainnet",
      requests: readReplayTsv(path.join(apiDir, f)).map((r) => ({ path: r.path, body: r.body })),
    });
  }
  for (const f of fs.readdirSync(path.join(apiDir, "single-blocks")).sort()) {
    cases.push({
      name: f,
      network: "mainnet",
      requests: [{ path: "/new_block", body: fs.readFileSync(path.join(apiDir, "single-blocks", f), "utf8") }],
    });
  }
  // The sBTC recordings come from the sbtc devenv: testnet addresses, the devenv's sBTC deployer.
  for (const f of fs.readdirSync(path.join(observerDir, "sbtc")).sort()) {
    cases.push({
      name: `sbtc/${f}`,
      network: "testnet",
      contracts: SBTC_DEVENV_CONTRACTS,
      requests: [{ path: "/new_block", body: fs.readFileSync(path.join(observerDir, "sbtc", f), "utf8") }],
    });
  }
  return cases;
}

describe.skipIf(!hasFixtures)("built-in subgraphs over recorded fixtures", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  async function replay(requests: RawRequest[], network: string, contracts?: Partial<NetworkContracts>) {
    await testDb.reset();
    const service = await startTestService(testDb.db, { NETWORK: network }, { contracts });
    for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
    await service.idle();
    await service.subgraphs.idle();
    return service;
  }

  for (const fixture of fixtureCases()) {
    it(`${fixture.name}: holdings, contracts, flows and transfers match the fixture; reindex rebuilds the same tables`, async () => {
      const service = await replay(fixture.requests, fixture.network, fixture.contracts);
      const db = testDb.db;
      const blocks = canonicalBlocks(fixture.requests);
      let live: Awaited<ReturnType<typeof dumpSubgraphTables>>;
      try {
        for (const info of service.subgraphs.list())
          expect((await service.subgraphs.progress(info.name))?.status).toBe("ready");

        expect(await readHoldings(db)).toEqual(expectedHoldings(blocks));
        expect(await readContracts(db)).toEqual(expectedContracts(blocks));

        const registry = service.config.contracts.sbtcRegistryContractId;
        const flows = await db.query<Record<string, string | null>>(
          "SELECT topic, amount, sender, request_id::text AS request_id, burn_height::text AS burn_height, bitcoin_txid FROM sg_sbtc_flows.flows",
        );
        expect(
          flows.rows.map((r) => [r.topic, r.amount, r.sender, r.request_id, r.burn_height, r.bitcoin_txid]).sort(),
        ).toEqual(expectedFlows(blocks, registry));
        if (fixture.name.startsWith("sbtc/") && !fixture.name.includes("testnet")) expect(flows.rows.length).toBe(1);

        const { sbtcAssetIdentifier, sbtcTokenContractId } = service.config.contracts;
        const transfers = await db.query<Record<string, string | null>>(
          "SELECT sender, recipient, amount::text AS amount, event_index::text AS event_index, memo FROM sg_sbtc_flows.transfers",
        );
        expect(transfers.rows.map((r) => [r.sender, r.recipient, r.amount, r.event_index, r.memo]).sort()).toEqual(
          expectedTransfers(blocks, sbtcAssetIdentifier, sbtcTokenContractId),
        );

        live = await dumpSubgraphTables(db, service.subgraphs);
        await reindexAll(service.subgraphs);
        expect(await dumpSubgraphTables(db, service.subgraphs)).toEqual(live);
      } finally {
        await service.stop();
      }

      const chain = expectedChain(fixture.requests);
      if (chain.reorgForkPoints.length > 0 || chain.storedBlocks > chain.canonicalHashes.size) {
        // A fresh replay of only the winning chain, in height order.
        const winning = blocks.map((b) => ({ path: "/new_block", body: JSON.stringify(b) }));
        const fresh = await replay(winning, fixture.network, fixture.contracts);
        try {
          expect(await dumpSubgraphTables(db, fresh.subgraphs)).toEqual(live);
        } finally {
          await fresh.stop();
        }
      }
    });
  }

  it("the fixtures pay fees on failed and sponsored transactions and mature miner rewards, on canonical and orphaned blocks", () => {
    let failedFees = 0;
    let sponsoredFees = 0;
    let canonicalRewards = 0;
    let orphanedRewards = 0;
    for (const c of fixtureCases()) {
      const canonical = new Set(canonicalBlocks(c.requests).map((b) => b.index_block_hash));
      for (const r of c.requests) {
        if (r.path !== "/new_block") continue;
        const b = JSON.parse(r.body);
        if ((b.matured_miner_rewards ?? []).length > 0) {
          if (canonical.has(b.index_block_hash)) canonicalRewards++;
          else orphanedRewards++;
        }
        for (const t of b.transactions) {
          if (t.raw_tx === "0x00" || feePaid(t.raw_tx).fee === 0n) continue;
          if (t.status !== "success") failedFees++;
          if (deserializeTransaction(t.raw_tx).auth.authType === AuthType.Sponsored) sponsoredFees++;
        }
      }
    }
    expect(failedFees, "fees of failed transactions").toBeGreaterThan(0);
    expect(sponsoredFees, "fees of sponsored transactions").toBeGreaterThan(0);
    expect(canonicalRewards, "canonical blocks with matured miner rewards").toBeGreaterThan(0);
    expect(orphanedRewards, "orphaned blocks with matured miner rewards").toBeGreaterThan(0);
  });

  it("the sBTC fixtures produce one flows row each, and the reorg fixtures reorg", () => {
    const cases = fixtureCases();
    const sbtc = cases.filter((c) => c.name.startsWith("sbtc/"));
    expect(sbtc.length).toBeGreaterThan(0);
    const registry = `${SBTC_DEVENV_DEPLOYER}.sbtc-registry`;
    for (const c of sbtc) expect(expectedFlows(canonicalBlocks(c.requests), registry).length).toBeGreaterThan(0);
    const reorgs = cases.filter((c) => expectedChain(c.requests).reorgForkPoints.length > 0);
    expect(reorgs.map((c) => c.name).sort()).toEqual(["mainnet-reorg-scenario1.tsv", "mainnet-reorg-scenario2.tsv"]);
  });
});
