// Same seed → same replay bytes; the TSV format `sluice import` reads; network-specific ids and versions.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { deserializeTransaction } from "@stacks/transactions";
import { afterAll, describe, expect, it } from "vitest";
import { NETWORK_CONTRACTS } from "../../../runtime/config/networks.js";
import {
  ChainSimulator,
  type SimulatorInput,
  writeReplayTsv,
  writeSimulation,
} from "../../../runtime/simulator/index.js";
import { blocksOf } from "../../support/simulator-blocks.js";

async function tsvOf(options: SimulatorInput): Promise<string> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on("data", (chunk: Buffer) => chunks.push(chunk));
  await writeReplayTsv(sink, new ChainSimulator(options).payloads());
  sink.end();
  return Buffer.concat(chunks).toString("utf8");
}

const BASE = { blocks: 40, eventsPerBlock: 10, accounts: 5, forkRate: 0.2 };
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("determinism", () => {
  it("same seed gives identical TSV bytes; another seed differs", async () => {
    const a = await tsvOf({ ...BASE, seed: "alpha" });
    const again = await tsvOf({ ...BASE, seed: "alpha" });
    const b = await tsvOf({ ...BASE, seed: "beta" });
    expect(again).toBe(a);
    expect(b).not.toBe(a);
    expect(a.length).toBeGreaterThan(10_000);
  });

  it("same seed gives identical TSV bytes with the hot mix and a small genesis too", async () => {
    const hot = { ...BASE, seed: "alpha", hotShare: 0.6, genesisStx: 40 };
    const a = await tsvOf(hot);
    expect(await tsvOf(hot)).toBe(a);
    expect(await tsvOf({ ...hot, hotShare: 0.3 })).not.toBe(a);
    expect(a).toContain("sim-pool-sbtc-stx");
  });

  it("writes one `id \\t timestamp \\t path \\t json` line per request with increasing ids and times", async () => {
    const lines = (await tsvOf({ ...BASE, seed: "format" })).trimEnd().split("\n");
    let lastTime = "";
    lines.forEach((line, i) => {
      const columns = line.split("\t");
      expect(columns).toHaveLength(4);
      const [id, timestamp, path, json] = columns;
      expect(Number(id)).toBe(i + 1);
      expect(new Date(timestamp).toISOString()).toBe(timestamp);
      expect(timestamp > lastTime).toBe(true);
      lastTime = timestamp;
      expect(["/new_block", "/new_burn_block"]).toContain(path);
      expect(typeof JSON.parse(json)).toBe("object");
    });
    expect(lines[0].split("\t")[2]).toBe("/new_burn_block");
  });

  it("writeSimulation puts <file>.truth.json beside the TSV", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sluice-sim-"));
    dirs.push(dir);
    const file = join(dir, "chain.tsv");
    const { lines, truth, truthPath } = await writeSimulation({ ...BASE, seed: "file" }, file);
    expect(truthPath).toBe(`${file}.truth.json`);
    expect(JSON.parse(await readFile(truthPath, "utf8"))).toEqual(JSON.parse(JSON.stringify(truth)));
    expect((await readFile(file, "utf8")).trimEnd().split("\n")).toHaveLength(lines);
    expect(truth.payloadCount).toBe(lines);
  });
});

describe("options", () => {
  it("a given mix replaces the default one; events per block average out near the target", () => {
    const simulator = new ChainSimulator({
      seed: "mix",
      blocks: 30,
      eventsPerBlock: 12,
      mix: { stx_transfer: 1 },
      forkRate: 0,
    });
    const blocks = blocksOf([...simulator.payloads()]);
    // The genesis transaction (from the boot address) funds the accounts whatever the mix.
    const genesis = new Set(
      blocks[0].transactions
        .filter((t) => deserializeTransaction(t.raw_tx).auth.spendingCondition.signer === "00".repeat(20))
        .map((t) => t.txid),
    );
    expect(genesis.size).toBe(1);
    const events = blocks.flatMap((b) => b.events.filter((e) => !genesis.has(e.txid)));
    const types = new Set(events.map((e) => e.type));
    expect(types).toEqual(new Set(["stx_transfer_event"]));
    const mean = events.length / blocks.length;
    expect(mean).toBeGreaterThan(12 * 0.8);
    expect(mean).toBeLessThan(12 * 1.2);
  });
});

describe("networks", () => {
  it("mainnet uses mainnet transaction versions, SP addresses and the known contract ids", () => {
    const simulator = new ChainSimulator({
      seed: "mainnet",
      network: "mainnet",
      blocks: 12,
      eventsPerBlock: 20,
      accounts: 4,
      mix: { bns: 5, sbtc: 5 },
    });
    const blocks = blocksOf([...simulator.payloads()]);
    const contracts = new Set<string>();
    for (const block of blocks) {
      for (const tx of block.transactions) {
        expect(tx.raw_tx.slice(0, 12)).toBe("0x0000000001");
        expect(deserializeTransaction(tx.raw_tx).transactionVersion).toBe(0);
      }
      for (const event of block.events) {
        const body = Object.values(event).find((v) => typeof v === "object" && v !== null) as Record<string, string>;
        for (const key of ["sender", "recipient", "locked_address"]) if (body[key]) expect(body[key]).toMatch(/^S[PM]/);
        if (body.contract_identifier) contracts.add(body.contract_identifier);
        if (body.asset_identifier) contracts.add(body.asset_identifier.split("::")[0]);
      }
    }
    expect(contracts).toContain(NETWORK_CONTRACTS.mainnet.bnsContractId);
    expect(contracts).toContain(NETWORK_CONTRACTS.mainnet.sbtcRegistryContractId);
    expect(contracts).toContain(NETWORK_CONTRACTS.mainnet.sbtcTokenContractId);
    expect(simulator.truth().canonical).toHaveLength(12);
  });

  it("devnet deploys under the clarinet deployer", () => {
    const blocks = blocksOf([...new ChainSimulator({ seed: "devnet", blocks: 1, eventsPerBlock: 0 }).payloads()]);
    const deployers = blocks[0].transactions
      .map((tx) => deserializeTransaction(tx.raw_tx))
      .filter((tx) => tx.payload.payloadType === 6)
      .map((tx) => tx.auth.spendingCondition.signer);
    expect(new Set(deployers)).toEqual(new Set(["6d78de7b0625dfbfc16c3a8a5735f6dc3dc3f2ce"]));
    expect(NETWORK_CONTRACTS.devnet.bnsContractId.startsWith("ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.")).toBe(true);
  });
});
