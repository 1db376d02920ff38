/**
 * The built-in subgraphs over simulated devnet traffic with reorgs (against the
 * simulator's ground truth) and over the clarinet simnet recording of BNS-V2 and sBTC:
 * - names equal the simulator's BNS-V2 lifecycle (fqn → owner, null once burned), and the simnet
 *   prints' lifecycle; flows equal the sBTC prints; transfers (memo included: the buffer sbtc-token
 *   prints right after the transfer), holdings (STX ones with fees and matured miner rewards) and
 *   contracts equal what the test computes from the payloads;
 * - after the reorgs, every table equals a fresh replay of only the winning chain;
 * - the row changes handed to listeners (reverts included) rebuild every table exactly;
 * - reindex rebuilds identical tables; no journal entry of an orphaned block is left.
 * The seed is printed when a comparison fails.
 */
import fs from "node:fs";
import path from "node:path";
import { hexToCV, makeUnsignedContractCall } from "@stacks/transactions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../runtime/service.js";
import { newBlockBody } from "../../../runtime/simulator/block-body.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import type { RowChange } from "../../../runtime/subgraphs/types.js";
import { clarityToJson } from "../../support/handler-context.js";
import type { RawRequest } from "../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { FIXTURES_DIR } from "../../support/fixtures.js";
import { postObserver, startTestService } from "../../support/service.js";
import { dumpSubgraphTables, readContracts, readHoldings, reindexAll } from "../../support/subgraph-dump.js";
import {
  canonicalBlocks,
  expectedContracts,
  expectedFlows,
  expectedHoldings,
  expectedTransfers,
} from "../../support/subgraph-expect.js";

const SEED = process.env.SEED ?? "subgraphs-1";
const simnetFile = path.join(FIXTURES_DIR, "simnet", "simnet-bns-v2-sbtc-events.json");

describe("built-in subgraphs over simulated traffic", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  async function replay(requests: RawRequest[], onChanges?: (changes: RowChange[]) => void): Promise<Service> {
    await testDb.reset();
    const service = await startTestService(testDb.db, { NETWORK: "devnet" });
    if (onChanges) {
      service.subgraphs.onRowChanges(async (_q, changes) => {
        onChanges(changes);
      });
    }
    for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
    await service.idle();
    await service.subgraphs.idle();
    return service;
  }

  /** sg_sbtc_flows.transfers as [sender, recipient, amount, event_index, memo], sorted like expectedTransfers. */
  async function transferRows(): Promise<(string | null)[][]> {
    const { rows } = await testDb.db.query<Record<string, string | null>>(
      "SELECT sender, recipient, amount::text AS amount, event_index::text AS event_index, memo FROM sg_sbtc_flows.transfers",
    );
    return rows.map((r) => [r.sender, r.recipient, r.amount, r.event_index, r.memo]).sort();
  }

  /** Applies row changes to a replica keyed by table and _id, the way a webhook receiver would. */
  function replicate(replica: Map<string, Map<number, Record<string, unknown>>>, changes: RowChange[]) {
    for (const c of changes) {
      const key = `${c.subgraph}.${c.table}`;
      const rows = replica.get(key) ?? new Map();
      replica.set(key, rows);
      if (c.op === "deleted") rows.delete(Number(c.row._id));
      else rows.set(Number(c.row._id), c.row);
    }
  }

  it(`seed ${SEED}: names, flows, transfers, holdings and contracts match; reorgs equal the winning chain; changes and reindex rebuild the tables`, async () => {
    const { payloads, truth } = simulateChain({
      seed: SEED,
      blocks: 80,
      eventsPerBlock: 16,
      forkRate: 0.12,
      mix: {
        stx_transfer: 4,
        ft_transfer: 3,
        ft_mint: 1,
        ft_burn: 1,
        stx_mint: 1,
        stx_burn: 1,
        print: 1,
        bns: 5,
        sbtc: 4,
        deploy: 1,
      },
    });
    const requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    expect(
      truth.forks.some((f) => f.outcome === "won"),
      "the simulation reorgs",
    ).toBe(true);
    const replica = new Map<string, Map<number, Record<string, unknown>>>();
    const changes: RowChange[] = [];
    const service = await replay(requests, (c) => {
      changes.push(...c);
      replicate(replica, c);
    });
    const db = testDb.db;
    let live: Awaited<ReturnType<typeof dumpSubgraphTables>>;
    try {
      const blocks = canonicalBlocks(requests);
      expect(blocks.map((b) => b.index_block_hash)).toEqual(truth.canonical.map((b) => b.indexBlockHash));
      expect(
        blocks.some((b) => b.matured_miner_rewards.length > 0),
        "canonical blocks mature miner rewards (holdings count them)",
      ).toBe(true);

      const names = await db.query<{ fqn: string; owner: string | null; name: string; namespace: string }>(
        "SELECT fqn, owner, name, namespace FROM sg_bns_names.names",
      );
      expect(Object.fromEntries(names.rows.map((r) => [r.fqn, r.owner]))).toEqual(truth.bnsNames);
      for (const r of names.rows) expect(`${r.name}.${r.namespace}`).toBe(r.fqn);

      const flows = await db.query<{ topic: string; request_id: string | null }>(
        "SELECT topic, request_id::text AS request_id FROM sg_sbtc_flows.flows",
      );
      const topics: Record<string, number> = {};
      for (const r of flows.rows) topics[r.topic] = (topics[r.topic] ?? 0) + 1;
      expect(topics).toEqual(Object.fromEntries(Object.entries(truth.sbtcPrints).map(([t, list]) => [t, list.length])));
      expect(flows.rows.length).toBe(expectedFlows(blocks, service.config.contracts.sbtcRegistryContractId).length);

      const { sbtcAssetIdentifier, sbtcTokenContractId } = service.config.contracts;
      const wantTransfers = expectedTransfers(blocks, sbtcAssetIdentifier, sbtcTokenContractId);
      expect(
        wantTransfers.some((t) => t[4] !== null) && wantTransfers.some((t) => t[4] === null),
        "the simulation has sBTC transfers with and without a memo",
      ).toBe(true);
      expect(await transferRows()).toEqual(wantTransfers);

      expect(await readHoldings(db)).toEqual(expectedHoldings(blocks));
      expect(await readContracts(db)).toEqual(expectedContracts(blocks));

      // Webhook receivers converge: the changes (reverts included) rebuild every table, _id for _id.
      expect(changes.some((c) => c.reverted)).toBe(true);
      for (const info of service.subgraphs.list()) {
        for (const table of Object.keys(info.module.tables)) {
          const { rows } = await db.query<Record<string, unknown>>(
            `SELECT _id FROM "${info.module.schema}"."${table}"`,
          );
          const replicaRows = replica.get(`${info.name}.${table}`) ?? new Map();
          expect(
            [...replicaRows.keys()].sort((a, b) => a - b),
            `${info.name}.${table} ids`,
          ).toEqual(rows.map((r) => Number(r._id)).sort((a, b) => a - b));
        }
      }
      const holdingsReplica = [...(replica.get("asset-holdings.holdings")?.values() ?? [])];
      expect(
        new Map(holdingsReplica.map((r) => [`${r.kind}|${r.asset_identifier}|${r.holder}`, BigInt(String(r.amount))])),
      ).toEqual(expectedHoldings(blocks));

      const orphanedUndo = await db.query<{ n: string }>(
        "SELECT count(*) AS n FROM control.subgraph_undo u JOIN chain.blocks b USING (index_block_hash) WHERE NOT b.canonical",
      );
      expect(Number(orphanedUndo.rows[0].n)).toBe(0);

      live = await dumpSubgraphTables(db, service.subgraphs);
      await reindexAll(service.subgraphs);
      expect(await dumpSubgraphTables(db, service.subgraphs)).toEqual(live);
    } finally {
      await service.stop();
    }

    const winning = canonicalBlocks(requests).map((b) => ({ path: "/new_block", body: JSON.stringify(b) }));
    const fresh = await replay(winning);
    try {
      expect(await dumpSubgraphTables(db, fresh.subgraphs)).toEqual(live);
    } finally {
      await fresh.stop();
    }
  });

  it("a listener that wants no changes gets none, and the tables are the same as with one that does", async () => {
    const { payloads } = simulateChain({ seed: `${SEED}-quiet`, blocks: 30, eventsPerBlock: 12, forkRate: 0.1 });
    const requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    const run = async (wants: boolean) => {
      await testDb.reset();
      const service = await startTestService(testDb.db, { NETWORK: "devnet" });
      let calls = 0;
      const listener = Object.assign(
        async (_q: unknown, changes: RowChange[]) => {
          if (changes.length) calls++;
        },
        { wantsChanges: async () => wants },
      );
      service.subgraphs.onRowChanges(listener);
      try {
        for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
        await service.idle();
        await service.subgraphs.idle();
        return { calls, tables: await dumpSubgraphTables(testDb.db, service.subgraphs) };
      } finally {
        await service.stop();
      }
    };
    const quiet = await run(false);
    const told = await run(true);
    expect(quiet.calls).toBe(0);
    expect(told.calls).toBeGreaterThan(0);
    expect(quiet.tables).toEqual(told.tables);
  });

  it.skipIf(!fs.existsSync(simnetFile))(
    "simnet BNS-V2 and sBTC calls: names follow the lifecycle, flows and transfers match",
    async () => {
      const recording = JSON.parse(fs.readFileSync(simnetFile, "utf8")) as SimnetRecording;
      const requests = await simnetBlocks(recording);
      const service = await replay(requests);
      try {
        const bns = `${recording.accounts.deployer}.BNS-V2`;
        // The lifecycle, literally: new-name/transfer-name/renew-name set the printed owner; burn-name clears it.
        const want: Record<string, [string | null, string]> = {};
        for (const call of recording.calls) {
          for (const e of call.events) {
            if (e.event !== "print_event" || e.data.contract_identifier !== bns) continue;
            const v = clarityToJson(hexToCV(e.data.raw_value)) as Record<string, unknown>;
            if (!["new-name", "transfer-name", "renew-name", "burn-name"].includes(String(v.topic))) continue;
            const n = v.name as { name: string; namespace: string };
            const fqn = `${Buffer.from(n.name.slice(2), "hex").toString()}.${Buffer.from(n.namespace.slice(2), "hex").toString()}`;
            want[fqn] = [v.topic === "burn-name" ? null : String(v.owner), String(v.topic)];
          }
        }
        expect(want).toEqual({
          "name1.namespacetest": [recording.accounts.wallet_3, "renew-name"],
          "name2.namespacetest": [recording.accounts.wallet_1, "transfer-name"],
        });
        const names = await testDb.db.query<{ fqn: string; owner: string | null; topic: string }>(
          "SELECT fqn, owner, topic FROM sg_bns_names.names",
        );
        expect(Object.fromEntries(names.rows.map((r) => [r.fqn, [r.owner, r.topic]]))).toEqual(want);

        const blocks = canonicalBlocks(requests);
        const flows = await testDb.db.query<Record<string, string | null>>(
          "SELECT topic, amount, sender, request_id::text AS request_id, burn_height::text AS burn_height, bitcoin_txid FROM sg_sbtc_flows.flows",
        );
        const wantFlows = expectedFlows(blocks, service.config.contracts.sbtcRegistryContractId);
        expect(wantFlows.map((f) => f[0]).sort()).toEqual([
          "completed-deposit",
          "key-rotation",
          "withdrawal-accept",
          "withdrawal-create",
          "withdrawal-create",
          "withdrawal-reject",
        ]);
        expect(
          flows.rows.map((r) => [r.topic, r.amount, r.sender, r.request_id, r.burn_height, r.bitcoin_txid]).sort(),
        ).toEqual(wantFlows);
        // Each sBTC transfer's memo, literally from the recording: the buffer the sbtc-token contract
        // prints as the very next event of the same call (its raw_value is that buffer), else null.
        const { sbtcAssetIdentifier, sbtcTokenContractId } = service.config.contracts;
        const wantTransfers: (string | null)[][] = [];
        for (const call of recording.calls) {
          call.events.forEach((e, n) => {
            if (e.event !== "ft_transfer_event" || e.data.asset_identifier !== sbtcAssetIdentifier) return;
            const next = call.events[n + 1];
            let memo: string | null = null;
            if (next?.event === "print_event" && next.data.contract_identifier === sbtcTokenContractId) {
              const value = next.data.value as unknown as { type: string; value: string };
              if (value.type === "buffer") {
                memo = `0x${value.value}`;
                const length = (value.value.length / 2).toString(16).padStart(8, "0");
                expect(next.data.raw_value).toBe(`0x02${length}${value.value}`);
              }
            }
            // One block per call, its events numbered from 0 in call order: event_index = n.
            wantTransfers.push([e.data.sender, e.data.recipient, e.data.amount, String(n), memo]);
          });
        }
        expect(wantTransfers).toEqual([
          [recording.accounts.wallet_1, recording.accounts.wallet_2, "1000", "0", "0x696e766f6963652d3432"],
        ]);
        expect(await transferRows()).toEqual(wantTransfers);
        expect(expectedTransfers(blocks, sbtcAssetIdentifier, sbtcTokenContractId)).toEqual(wantTransfers);
        expect(await readHoldings(testDb.db)).toEqual(expectedHoldings(blocks));
      } finally {
        await service.stop();
      }
    },
  );
});

interface SimnetRecording {
  accounts: Record<string, string>;
  calls: {
    block_height: number;
    burn_block_height: number;
    sender: string;
    contract_id: string;
    function_name: string;
    events: { event: string; data: Record<string, string> & { contract_identifier: string; raw_value: string } }[];
  }[];
}

const PUBLIC_KEY = "03ef788b3830c00abe8f64f62dc32fc863bc0b2cafeb073b6c8e1c7657d9c2c3ab";

/** One observer `/new_block` per simnet call (its own height), a contract-call tx carrying its events. */
async function simnetBlocks(recording: SimnetRecording): Promise<RawRequest[]> {
  const out: RawRequest[] = [];
  let parent = `0x${"00".repeat(32)}`;
  for (const [i, call] of recording.calls.entries()) {
    const [address, name] = call.contract_id.split(".");
    const tx = await makeUnsignedContractCall({
      contractAddress: address,
      contractName: name,
      functionName: call.function_name,
      functionArgs: [],
      publicKey: PUBLIC_KEY,
      network: "testnet",
      fee: 0,
      nonce: i,
    });
    const txid = `0x${tx.txid()}`;
    const events = call.events.map((e, n) => {
      const kind = e.event === "print_event" ? "contract_event" : e.event;
      const body =
        e.event === "print_event"
          ? { contract_identifier: e.data.contract_identifier, topic: e.data.topic, raw_value: e.data.raw_value }
          : e.data;
      return { committed: true, event_index: n, [kind]: body, txid, type: kind };
    });
    const hash = (tag: number) => `0x${(i + 1).toString(16).padStart(8, "0")}${String(tag).repeat(56)}`;
    const burn = {
      hash: hash(3).slice(2),
      height: call.burn_block_height,
      time: 1_700_000_000 + i,
      consensusHash: "11".repeat(20),
      parentHash: "22".repeat(32),
      minerTxid: "33".repeat(32),
      burnAmount: 0,
    };
    const header = {
      height: call.block_height,
      blockHash: hash(1),
      indexBlockHash: hash(2),
      parentBlockHash: parent,
      parentIndexBlockHash: parent,
      blockTime: burn.time,
      tenureHeight: i,
      burn,
      parentBurn: burn,
      minerSignature: "",
      signerSignatures: [],
    };
    const nodeTx = {
      contract_interface: null,
      execution_cost: { read_count: 0, read_length: 0, runtime: 0, write_count: 0, write_length: 0 },
      raw_result: "0x0703",
      raw_tx: `0x${tx.serialize()}`,
      status: "success",
      tx_index: 0,
      txid,
    };
    out.push({ path: "/new_block", body: JSON.stringify(newBlockBody("devnet", header, [nodeTx], events)) });
    parent = header.indexBlockHash;
  }
  return out;
}
