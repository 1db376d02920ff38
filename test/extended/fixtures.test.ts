/**
 * The Extended view over recorded mainnet traffic with real forks (mainnet-reorg-scenario1: two
 * blocks at heights 30, 45 and 47; 53 STX transfers, 10 STX locks), driven by Hiro's client:
 * every canonical transaction validates against Hiro's JSON schemas and carries the recorded
 * status, fee and events; every account's balance, and the lock in force, equal what the test
 * computes from the recording (test/support/subgraph-expect.ts). Skipped without ../shared/fixtures.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createClient } from "@stacks/blockchain-api-client";
import { createAddress, deserializeTransaction } from "@stacks/transactions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../runtime/service.js";
import type { RawRequest } from "../support/chain-model.js";
import { type TestDb, createTestDb } from "../support/db.js";
import { FIXTURES_DIR, hasFixtures, readReplayTsv } from "../support/fixtures.js";
import { expectHiroShape } from "../support/hiro-schemas.js";
import { postObserver, startTestService } from "../support/service.js";
import { type RawBlock, canonicalBlocks, expectedHoldings, feePaid } from "../support/subgraph-expect.js";

const API_DIR = path.join(FIXTURES_DIR, "observer/stacks-blockchain-api");
const SCENARIO1 = "mainnet-reorg-scenario1.tsv";

/** A replay's requests: a recorded TSV, or one recorded /new_block body. */
function replayRequests(file: string): RawRequest[] {
  if (file.startsWith("single-blocks/"))
    return [{ path: "/new_block", body: readFileSync(path.join(API_DIR, file), "utf8") }];
  return readReplayTsv(`observer/stacks-blockchain-api/${file}`).map((r) => ({ path: r.path, body: r.body }));
}

/** A service on a database of its own that has taken in every request of one replay. */
interface Ingested {
  requests: RawRequest[];
  blocks: RawBlock[];
  service: Service;
  client: ReturnType<typeof createClient>;
  close(): Promise<void>;
}

async function ingestReplay(file: string): Promise<Ingested> {
  const requests = replayRequests(file);
  const testDb: TestDb = await createTestDb();
  const service = await startTestService(testDb.db, { EXTENDED_PORT: "0" });
  try {
    for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
    await service.idle();
  } catch (err) {
    await service.stop();
    await testDb.drop();
    throw err;
  }
  return {
    requests,
    blocks: canonicalBlocks(requests),
    service,
    client: createClient({ baseUrl: service.extendedUrl as string }),
    async close() {
      await service.stop();
      await testDb.drop();
    },
  };
}

/**
 * mainnet-reorg-scenario1's instance serves both suites below (they only read): it is ingested
 * once, and closed after its replay test, or at the end of the file.
 */
let scenario1: Promise<Ingested> | undefined;
const ingestedScenario1 = () => {
  scenario1 ??= ingestReplay(SCENARIO1);
  return scenario1;
};
async function closeScenario1(): Promise<void> {
  const held = scenario1;
  scenario1 = undefined;
  if (held) await (await held).close();
}
afterAll(closeScenario1);

describe.skipIf(!hasFixtures)("Extended view over mainnet-reorg-scenario1", () => {
  let client: ReturnType<typeof createClient>;
  let requests: RawRequest[];
  let blocks: RawBlock[];

  beforeAll(async () => {
    ({ client, requests, blocks } = await ingestedScenario1());
  });

  it("lists the canonical blocks (each transaction is read back by the replay test below)", async () => {
    const { data: page } = await client.GET("/extended/v2/blocks/", { params: { query: { limit: 30 } } });
    expectHiroShape("api/blocks/get-nakamoto-blocks.schema.json", page);
    expect(page?.total).toBe(blocks.length);
    expect(page?.results[0].index_block_hash).toBe(blocks[blocks.length - 1].index_block_hash);
    expect(
      blocks.reduce((n, b) => n + b.transactions.length, 0),
      "canonical transactions of the recording",
    ).toBe(95);
  });

  it("balances equal the recording's, and the STX lock in force is reported", async () => {
    const expected = new Map<string, bigint>();
    for (const [key, v] of expectedHoldings(blocks)) {
      const [kind, , holder] = key.split("|");
      if (kind === "stx") expected.set(holder, v);
    }
    expect(expected.size).toBeGreaterThan(10);
    for (const [address, balance] of expected) {
      const { data } = await client.GET("/extended/v1/address/{principal}/stx", {
        params: { path: { principal: address } },
      });
      expectHiroShape("api/address/get-address-stx-balance.schema.json", data);
      expect(data?.balance, address).toBe(String(balance));
    }

    // The lock in force: each account's latest canonical committed stx_lock whose unlock burn
    // height is above the highest burn height the recording reached.
    let burnTip = 0;
    for (const r of requests) {
      const body = JSON.parse(r.body);
      if (r.path === "/new_burn_block") burnTip = Math.max(burnTip, body.burn_block_height);
      if (r.path === "/new_block") burnTip = Math.max(burnTip, body.burn_block_height);
    }
    const locks = new Map<string, { amount: string; unlock: number; txid: string }>();
    for (const b of blocks) {
      for (const e of b.events) {
        if (!e.committed || e.type !== "stx_lock_event") continue;
        const l = e.stx_lock_event;
        locks.set(l.locked_address, { amount: l.locked_amount, unlock: Number(l.unlock_height), txid: e.txid });
      }
    }
    expect(locks.size).toBeGreaterThan(0);
    for (const [address, lock] of locks) {
      const { data } = await client.GET("/extended/v1/address/{principal}/stx", {
        params: { path: { principal: address } },
      });
      const inForce = lock.unlock > burnTip;
      expect(data?.locked, address).toBe(inForce ? lock.amount : "0");
      expect(data?.lock_tx_id).toBe(inForce ? lock.txid : "");
      expect(data?.burnchain_unlock_height).toBe(inForce ? lock.unlock : 0);
    }
  });
});

/**
 * Every recorded stacks-blockchain-api replay, each on its own instance (mainnet-reorg-scenario1 on
 * the one the suite above read, ingested once): every canonical
 * transaction reads back through Hiro's client with the recorded block, status, fee, nonce and
 * event count and validates against Hiro's schema (Bitcoin operations too, as the Stacks
 * transaction each stands for: expectedBurnchainOp), and every account's STX balance equals what
 * the test computes from the recording.
 */
const REPLAYS = hasFixtures
  ? [
      ...readdirSync(API_DIR)
        .filter((f) => /\.tsv(\.gz)?$/.test(f))
        .sort(),
      ...readdirSync(path.join(API_DIR, "single-blocks"))
        .sort()
        .map((f) => `single-blocks/${f}`),
    ]
  : [];

describe.skipIf(!hasFixtures).each(REPLAYS)("Extended view over %s", (file) => {
  it("every canonical transaction and every STX balance equal the recording's", async () => {
    const shared = file === SCENARIO1;
    const { blocks, client, close } = shared ? await ingestedScenario1() : await ingestReplay(file);
    try {
      let txs = 0;
      let burnOps = 0;
      for (const b of blocks) {
        for (const t of b.transactions) {
          const { data, response } = await client.GET("/extended/v1/tx/{tx_id}", {
            params: { path: { tx_id: t.txid }, query: { event_limit: 100 } },
          });
          expect(response.status, t.txid).toBe(200);
          const tx = data as Record<string, unknown> & { events: unknown[]; event_count: number };
          expectHiroShape("entities/transactions/transaction.schema.json", data);
          expect(tx.block_hash, t.txid).toBe(b.block_hash);
          expect(tx.tx_status, t.txid).toBe(t.status);
          if (t.raw_tx !== "0x00") {
            expect(tx.fee_rate, t.txid).toBe(String(feePaid(t.raw_tx).fee));
            expect(tx.nonce, t.txid).toBe(Number(deserializeTransaction(t.raw_tx).auth.spendingCondition.nonce));
          } else {
            expect(pick(tx, Object.keys(expectedBurnchainOp(b, t)))).toEqual(expectedBurnchainOp(b, t));
            burnOps++;
          }
          expect(tx.event_count, t.txid).toBe(b.events.filter((e: { txid: string }) => e.txid === t.txid).length);
          expect(tx.events.length, t.txid).toBe(Math.min(100, tx.event_count));
          txs++;
        }
      }
      expect(txs).toBe(blocks.reduce((n, b) => n + b.transactions.length, 0));

      // Lists render Bitcoin operations as the single read does (without events).
      for (const b of blocks.filter((x) => x.transactions.some((t: { raw_tx: string }) => t.raw_tx === "0x00"))) {
        const { data: page } = await client.GET("/extended/v2/blocks/{height_or_hash}/transactions", {
          params: { path: { height_or_hash: b.index_block_hash }, query: { limit: 50 } },
        });
        expectHiroShape("api/transaction/get-transactions.schema.json", page);
        for (const t of b.transactions.filter((x: { raw_tx: string }) => x.raw_tx === "0x00")) {
          const listed = page?.results.find((r) => r.tx_id === t.txid) as Record<string, unknown>;
          const expected = expectedBurnchainOp(b, t);
          expect(pick(listed, Object.keys(expected)), t.txid).toEqual(expected);
        }
      }
      const recorded = blocks.reduce(
        (n, b) => n + b.transactions.filter((t: { raw_tx: string }) => t.raw_tx === "0x00").length,
        0,
      );
      expect(burnOps).toBe(recorded);

      for (const [key, balance] of expectedHoldings(blocks)) {
        const [kind, , address] = key.split("|");
        if (kind !== "stx") continue;
        const { data } = await client.GET("/extended/v1/address/{principal}/stx", {
          params: { path: { principal: address } },
        });
        expect(data?.balance, address).toBe(String(balance));
      }
    } finally {
      await (shared ? closeScenario1() : close());
    }
  });
});

/**
 * The Stacks transaction a recorded Bitcoin operation stands for, as Hiro's API renders one,
 * computed here from the recorded block: an STX transfer event → token transfer; an STX lock →
 * a `stack-stx` call to the PoX contract (amount, the stacker's hash as its PoX address, the
 * block's burn height, whole reward cycles (2,100 burn blocks on mainnet) until the unlock
 * height); no event (a failed op from a node that sends no `burnchain_op`) → a call nothing names.
 */
function expectedBurnchainOp(b: RawBlock, t: { txid: string }): Record<string, unknown> {
  const events = b.events.filter((e: { txid: string }) => e.txid === t.txid);
  const common = { nonce: 0, fee_rate: "0", anchor_mode: "any", post_condition_mode: "allow", post_conditions: [] };
  const transfer = events.find((e: { type: string }) => e.type === "stx_transfer_event")?.stx_transfer_event;
  if (transfer) {
    return {
      ...common,
      sender_address: transfer.sender,
      tx_type: "token_transfer",
      token_transfer: { recipient_address: transfer.recipient, amount: transfer.amount, memo: "0x" },
    };
  }
  const lock = events.find((e: { type: string }) => e.type === "stx_lock_event")?.stx_lock_event;
  if (lock) {
    const { version, hash160 } = createAddress(lock.locked_address);
    // SP/ST single-sig → p2pkh (0x00), SM/SN multisig → p2sh (0x01)
    const poxVersion = version === 22 || version === 26 ? "00" : "01";
    const uint = (n: bigint | number) => `0x01${BigInt(n).toString(16).padStart(32, "0")}`;
    const buff = (hex: string) => `02${(hex.length / 2).toString(16).padStart(8, "0")}${hex}`;
    const name = (s: string) => `${s.length.toString(16).padStart(2, "0")}${Buffer.from(s).toString("hex")}`;
    const burn = Number(b.burn_block_height);
    const period = Math.floor((Number(lock.unlock_height) - burn) / 2100);
    const contract = lock.contract_identifier ?? "SP000000000000000000002Q6VF78.pox";
    const args = [
      { hex: uint(BigInt(lock.locked_amount)), repr: `u${lock.locked_amount}` },
      {
        hex: `0x0c00000002${name("hashbytes")}${buff(hash160)}${name("version")}${buff(poxVersion)}`,
        repr: `(tuple (hashbytes 0x${hash160}) (version 0x${poxVersion}))`,
      },
      { hex: uint(burn), repr: `u${burn}` },
      { hex: uint(period), repr: `u${period}` },
    ];
    return {
      ...common,
      sender_address: lock.locked_address,
      tx_type: "contract_call",
      contract_call: expect.objectContaining({
        contract_id: contract,
        function_name: "stack-stx",
        function_args: args.map((a) => expect.objectContaining(a)),
      }),
    };
  }
  expect(events, t.txid).toEqual([]);
  return {
    ...common,
    tx_type: "contract_call",
    contract_call: { contract_id: "", function_name: "", function_signature: "" },
  };
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}
