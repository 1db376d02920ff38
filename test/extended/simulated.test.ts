/**
 * The Extended view (docs/extended.md) driven by Hiro's own client, @stacks/blockchain-api-client,
 * over a simulated devnet chain with reorgs. Every answer validates against Hiro's published JSON
 * schemas (test/support/hiro-schemas.ts); values are computed by the test from the observer
 * payloads (test/support/subgraph-expect.ts, sharing no code with runtime/) and, for the final
 * balances, from the simulator's own ledger. Balances are checked just before and just after a
 * reorg and at the end. HTTP shape only: PGlite (chain.address_activity on both drivers is in
 * test/integration/chain/address-activity.test.ts).
 */
import type { AddressInfo } from "node:net";
import { createServer } from "node:http";
import { createClient } from "@stacks/blockchain-api-client";
import { PayloadType, deserializeTransaction } from "@stacks/transactions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExtendedApp } from "../../runtime/extended/index.js";
import { silentLogger } from "../../runtime/internal/logger.js";
import type { Service } from "../../runtime/service.js";
import { simulateChain } from "../../runtime/simulator/index.js";
import { type RawRequest, expectedChain } from "../support/chain-model.js";
import { type TestDb, createTestDb } from "../support/db.js";
import { expectHiroShape } from "../support/hiro-schemas.js";
import { postObserver, startTestService } from "../support/service.js";
import { type RawBlock, canonicalBlocks, expectedHoldings, feePaid } from "../support/subgraph-expect.js";

const SEED = process.env.SEED ?? "extended-1";

/** µSTX balance of every account the canonical chain of `requests` touched, by the test's own rule. */
function expectedStx(requests: RawRequest[]): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const [key, v] of expectedHoldings(canonicalBlocks(requests))) {
    const [kind, , holder] = key.split("|");
    if (kind === "stx") out.set(holder, v);
  }
  return out;
}

describe(`Extended view over a simulated chain (seed ${SEED})`, () => {
  let testDb: TestDb;
  let service: Service;
  let client: ReturnType<typeof createClient>;
  let base: string;
  const { payloads, truth } = simulateChain({ seed: SEED, blocks: 40, eventsPerBlock: 10, forkRate: 0.2 });
  const requests: RawRequest[] = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
  let posted = 0;

  async function postUpTo(n: number): Promise<void> {
    for (; posted < n; posted++) await postObserver(service.observerUrl, requests[posted].path, requests[posted].body);
    await service.idle();
  }

  async function stxBalance(principal: string) {
    const { data, response } = await client.GET("/extended/v1/address/{principal}/stx", {
      params: { path: { principal } },
    });
    expect(response.status).toBe(200);
    expectHiroShape("api/address/get-address-stx-balance.schema.json", data);
    return data as NonNullable<typeof data>;
  }

  /** Every address's balance as served equals the test's computation over `requests[0, n)`. */
  async function expectBalancesAt(n: number): Promise<Map<string, bigint>> {
    const expected = expectedStx(requests.slice(0, n));
    const served = new Map<string, bigint>();
    for (const address of expected.keys()) served.set(address, BigInt((await stxBalance(address)).balance));
    expect(Object.fromEntries([...served].map(([a, v]) => [a, String(v)]))).toEqual(
      Object.fromEntries([...expected].map(([a, v]) => [a, String(v)])),
    );
    return served;
  }

  beforeAll(async () => {
    testDb = await createTestDb();
    service = await startTestService(testDb.db, { NETWORK: "devnet", EXTENDED_PORT: "0" });
    base = service.extendedUrl as string;
    client = createClient({ baseUrl: base });
  });
  afterAll(async () => {
    await service?.stop();
    await testDb?.drop();
  });

  it("balances follow the canonical chain before and after a reorg and equal the simulator's ledger", async () => {
    // The first request whose block switches the canonical chain away from a block that moved STX.
    let reorgAt = -1;
    for (let k = 1; k <= requests.length && reorgAt < 0; k++) {
      if (requests[k - 1].path !== "/new_block") continue;
      if (expectedChain(requests.slice(0, k)).reorgForkPoints.length === 0) continue;
      const before = expectedStx(requests.slice(0, k - 1));
      const after = expectedStx(requests.slice(0, k));
      const moved = [...new Set([...before.keys(), ...after.keys()])].some((a) => before.get(a) !== after.get(a));
      if (moved) reorgAt = k;
    }
    expect(reorgAt, "the simulation has a reorg that moves balances").toBeGreaterThan(0);

    await postUpTo(reorgAt - 1);
    const before = await expectBalancesAt(reorgAt - 1);
    await postUpTo(reorgAt);
    const after = await expectBalancesAt(reorgAt);
    expect(
      [...after].some(([a, v]) => before.get(a) !== v),
      "the reorg moved a served balance",
    ).toBe(true);

    await postUpTo(requests.length);
    const final = await expectBalancesAt(requests.length);
    // The simulator's ledger lists the non-zero balances at its tip.
    const ledger = Object.fromEntries(
      Object.entries(truth.balances)
        .filter(([k]) => k.startsWith("stx|"))
        .map(([k, v]) => [k.split("|")[2], v]),
    );
    const nonZero = Object.fromEntries([...final].filter(([, v]) => v !== 0n).map(([a, v]) => [a, String(v)]));
    expect(nonZero).toEqual(ledger);

    // The parts add up: received − sent − fees + miner rewards.
    const [someone] = Object.keys(ledger);
    const s = await stxBalance(someone);
    expect(
      BigInt(s.total_received ?? "0") -
        BigInt(s.total_sent ?? "0") -
        BigInt(s.total_fees_sent ?? "0") +
        BigInt(s.total_miner_rewards_received),
    ).toBe(BigInt(s.balance));
    const { data: all } = await client.GET("/extended/v1/address/{principal}/balances", {
      params: { path: { principal: someone } },
    });
    expectHiroShape("api/address/get-address-balances.schema.json", all);
    expect(all?.stx.balance).toBe(ledger[someone]);

    // Fungible token balances of the busiest token holder, as the test computes them.
    const holdings = expectedHoldings(canonicalBlocks(requests));
    const ftHolders = new Map<string, number>();
    for (const key of holdings.keys()) {
      const [kind, , holder] = key.split("|");
      if (kind === "ft") ftHolders.set(holder, (ftHolders.get(holder) ?? 0) + 1);
    }
    const [holder] = [...ftHolders].sort((a, b) => b[1] - a[1])[0];
    const { data: tokens } = await client.GET("/extended/v1/address/{principal}/balances", {
      params: { path: { principal: holder } },
    });
    expectHiroShape("api/address/get-address-balances.schema.json", tokens);
    const expectedFt: Record<string, string> = {};
    for (const [key, v] of holdings) {
      const [kind, asset, h] = key.split("|");
      if (kind === "ft" && h === holder) expectedFt[asset] = String(v);
    }
    const servedFt = Object.fromEntries(
      Object.entries(tokens?.fungible_tokens ?? {}).map(([asset, b]) => [asset, (b as { balance: string }).balance]),
    );
    expect(servedFt).toEqual(expectedFt);
  });

  it("status, blocks and block transactions describe the canonical chain", async () => {
    const blocks: RawBlock[] = canonicalBlocks(requests);
    const tip = blocks[blocks.length - 1];
    const { data: status } = await client.GET("/extended");
    expectHiroShape("api/info/get-status.schema.json", status);
    expect(status?.chain_tip?.index_block_hash).toBe(tip.index_block_hash);
    expect(status?.chain_tip?.block_height).toBe(truth.tip.height);

    const { data: page } = await client.GET("/extended/v2/blocks/", { params: { query: { limit: 30, offset: 2 } } });
    expectHiroShape("api/blocks/get-nakamoto-blocks.schema.json", page);
    expect(page?.total).toBe(blocks.length);
    expect(page?.results.map((b) => b.index_block_hash)).toEqual(
      blocks
        .slice()
        .reverse()
        .slice(2, 32)
        .map((b) => b.index_block_hash),
    );

    const busiest = blocks.reduce((a, b) => (b.transactions.length > a.transactions.length ? b : a));
    for (const id of [String(busiest.block_height), busiest.index_block_hash, busiest.block_hash]) {
      const { data } = await client.GET("/extended/v2/blocks/{height_or_hash}", {
        params: { path: { height_or_hash: id } },
      });
      expectHiroShape("entities/blocks/nakamoto-block.schema.json", data);
      expect(data?.index_block_hash).toBe(busiest.index_block_hash);
      expect(data?.tx_count).toBe(busiest.transactions.length);
      const cost = (k: string) =>
        busiest.transactions.reduce(
          (n: number, t: { execution_cost: Record<string, number> }) => n + t.execution_cost[k],
          0,
        );
      expect(data?.execution_cost_runtime).toBe(cost("runtime"));
      expect(data?.execution_cost_write_length).toBe(cost("write_length"));
    }
    const { data: txs } = await client.GET("/extended/v2/blocks/{height_or_hash}/transactions", {
      params: { path: { height_or_hash: busiest.block_height }, query: { limit: 50 } },
    });
    expectHiroShape("api/transaction/get-transactions.schema.json", txs);
    expect(txs?.total).toBe(busiest.transactions.length);
    expect(txs?.results.map((t) => t.tx_id)).toEqual(busiest.transactions.map((t: { txid: string }) => t.txid));

    const { data: v1 } = await client.GET("/extended/v1/block/by_height/{height}", {
      params: { path: { height: busiest.block_height } },
    });
    expectHiroShape("entities/blocks/block.schema.json", v1);
    expect(v1?.txs).toEqual(busiest.transactions.map((t: { txid: string }) => t.txid));
  });

  it("every canonical transaction reads back with its fee, status, events and payload", async () => {
    const blocks: RawBlock[] = canonicalBlocks(requests);
    let count = 0;
    const types = new Set<string>();
    for (const b of blocks) {
      for (const t of b.transactions) {
        const { data, response } = await client.GET("/extended/v1/tx/{tx_id}", {
          params: { path: { tx_id: t.txid }, query: { event_limit: 100 } },
        });
        expect(response.status).toBe(200);
        expectHiroShape("entities/transactions/transaction.schema.json", data);
        const tx = data as Record<string, unknown> & { events: { event_index: number }[] };
        const wire = deserializeTransaction(t.raw_tx);
        const events = b.events.filter((e: { txid: string }) => e.txid === t.txid);
        expect(tx.canonical).toBe(true);
        expect(tx.block_height).toBe(b.block_height);
        expect(tx.tx_status).toBe(t.status);
        expect(tx.fee_rate).toBe(String(feePaid(t.raw_tx).fee));
        expect(tx.nonce).toBe(Number(wire.auth.spendingCondition.nonce));
        expect(tx.event_count).toBe(events.length);
        expect(tx.events.map((e) => e.event_index).sort((x, y) => x - y)).toEqual(
          events.map((e: { event_index: number }) => e.event_index).sort((x: number, y: number) => x - y),
        );
        expect(tx.tx_result).toEqual(expect.objectContaining({ hex: t.raw_result }));
        expect(tx.execution_cost_runtime).toBe(t.execution_cost.runtime);
        if (
          wire.payload.payloadType === PayloadType.SmartContract ||
          wire.payload.payloadType === PayloadType.VersionedSmartContract
        ) {
          expect((tx.smart_contract as { source_code: string }).source_code).toBe(wire.payload.codeBody.content);
        }
        types.add(String(tx.tx_type));
        count++;
      }
    }
    expect(count).toBe(truth.txCount);
    expect([...types].sort()).toEqual(expect.arrayContaining(["coinbase", "contract_call", "token_transfer"]));

    const { data: recent } = await client.GET("/extended/v1/tx/", { params: { query: { limit: 5 } } });
    expectHiroShape("api/transaction/get-transactions.schema.json", recent);
    expect(recent?.total).toBe(truth.txCount);
    const tip = blocks[blocks.length - 1];
    expect(recent?.results[0].tx_id).toBe(tip.transactions[tip.transactions.length - 1].txid);
    const { data: slim } = await client.GET("/extended/v1/tx/", {
      params: { query: { limit: 50, exclude_function_args: true } },
    });
    const calls = (slim?.results ?? []).filter((t) => t.tx_type === "contract_call");
    expect(calls.length).toBeGreaterThan(0);
    for (const t of calls) expect(t.contract_call).not.toHaveProperty("function_args");
  });

  it("events by transaction, by address and by contract, and an address's transactions", async () => {
    const blocks: RawBlock[] = canonicalBlocks(requests);
    const committed = blocks.flatMap((b) => b.events.filter((e: { committed: boolean }) => e.committed));
    const printing = new Map<string, number>();
    for (const e of committed) {
      if (e.type !== "contract_event") continue;
      const id = e.contract_event.contract_identifier;
      printing.set(id, (printing.get(id) ?? 0) + 1);
    }
    const [contractId, prints] = [...printing].sort((a, b) => b[1] - a[1])[0];
    const { data: logs } = await client.GET("/extended/v1/contract/{contract_id}/events", {
      params: { path: { contract_id: contractId }, query: { limit: 50 } },
    });
    expect(logs?.results.length).toBe(Math.min(prints, 50));
    for (const e of logs?.results ?? [])
      expectHiroShape("entities/transaction-events/transaction-event.schema.json", e);

    const deploy = blocks
      .flatMap((b) => b.transactions)
      .find(
        (t: { raw_tx: string }) =>
          deserializeTransaction(t.raw_tx).payload.payloadType === PayloadType.VersionedSmartContract ||
          deserializeTransaction(t.raw_tx).payload.payloadType === PayloadType.SmartContract,
      );
    if (deploy) {
      const wire = deserializeTransaction(deploy.raw_tx);
      const payload = wire.payload as { contractName: { content: string }; codeBody: { content: string } };
      const sender = feePaid(deploy.raw_tx).payer;
      const { data: contract } = await client.GET("/extended/v1/contract/{contract_id}", {
        params: { path: { contract_id: `${sender}.${payload.contractName.content}` } },
      });
      expect(contract?.tx_id).toBe(deploy.txid);
      expect(contract?.source_code).toBe(payload.codeBody.content);
      // `clarity_version` came with the current API (the client's type has it); the 7.x schema
      // file predates it.
      const { clarity_version, ...published } = contract as NonNullable<typeof contract>;
      expect(clarity_version === null || typeof clarity_version === "number").toBe(true);
      expectHiroShape("entities/contracts/smart-contract.schema.json", published);
    }

    // The address with the most committed events: its events and its transactions.
    const partiesOf = (e: Record<string, Record<string, unknown>>) => {
      const body = e[e.type as unknown as string];
      return [body.sender, body.recipient, body.locked_address].filter((p) => typeof p === "string");
    };
    const parties = new Map<string, number>();
    for (const e of committed)
      for (const p of partiesOf(e)) parties.set(p as string, (parties.get(p as string) ?? 0) + 1);
    const [address] = [...parties].sort((a, b) => b[1] - a[1])[0];
    const { data: evs } = await client.GET("/extended/v1/tx/events", {
      params: { query: { address, limit: 100 } },
    });
    const mine = committed.filter((e: Record<string, Record<string, unknown>>) => partiesOf(e).includes(address));
    expect(evs?.events.length).toBe(Math.min(mine.length, 100));
    for (const e of evs?.events ?? []) expectHiroShape("entities/transaction-events/transaction-event.schema.json", e);

    const txIds = new Set<string>();
    const sent = new Map<string, bigint>();
    for (const b of blocks) {
      for (const t of b.transactions) {
        const wire = deserializeTransaction(t.raw_tx);
        const payload = wire.payload as { payloadType: number; recipient?: { value: string } };
        const origin = feePaid(t.raw_tx);
        const involved =
          origin.payer === address ||
          // A token transfer's recipient, a coinbase's alternative recipient.
          payload.recipient?.value === address ||
          b.events.some(
            (e: Record<string, Record<string, unknown>> & { txid: string; committed: boolean }) =>
              e.txid === t.txid && e.committed && partiesOf(e).includes(address),
          );
        if (involved) txIds.add(t.txid);
        for (const e of b.events) {
          if (
            e.txid !== t.txid ||
            !e.committed ||
            e.type !== "stx_transfer_event" ||
            e.stx_transfer_event.sender !== address
          )
            continue;
          sent.set(t.txid, (sent.get(t.txid) ?? 0n) + BigInt(e.stx_transfer_event.amount));
        }
      }
    }
    const { data: addressTxs } = await client.GET("/extended/v2/addresses/{address}/transactions", {
      params: { path: { address }, query: { limit: 30 } },
    });
    expect(addressTxs?.total).toBe(txIds.size);
    expectHiroShape("api/address/get-v2-address-transactions.schema.json", addressTxs);
    for (const r of addressTxs?.results ?? []) {
      expect(txIds.has(r.tx.tx_id)).toBe(true);
      expect(BigInt(r.stx_sent) >= (sent.get(r.tx.tx_id) ?? 0n)).toBe(true);
    }
  });

  it("node-only routes answer 501 with a code; bad parameters 400 with a code; unknown ids 404", async () => {
    const get = async (path: string) => {
      const res = await fetch(base + path);
      return { status: res.status, body: (await res.json()) as { error: string; code: string } };
    };
    for (const path of [
      "/extended/v1/tx/mempool",
      "/extended/v2/mempool/fees",
      "/v2/info",
      "/extended/v1/address/ST000000000000000000002AMW42H/nonces",
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(501);
      expect(r.body.code).toBe("NODE_RPC_REQUIRED");
      expect(typeof r.body.error).toBe("string");
    }
    for (const path of [
      "/extended/v2/blocks?limit=31",
      "/extended/v2/blocks?offset=-1",
      "/extended/v2/blocks?limit=abc",
      "/extended/v1/tx/0x1234",
      "/extended/v1/address/not-an-address/stx",
      "/extended/v1/contract/STNOTACONTRACT/events",
      "/extended/v1/tx/events?address=ST000000000000000000002AMW42H&tx_id=0x00",
      "/extended/v1/tx/events?address=ST000000000000000000002AMW42H&type=nope",
      "/extended/v1/address/ST000000000000000000002AMW42H/stx?until_block=3",
      "/extended/v1/tx?type=coinbase",
      "/extended/v2/blocks?cursor=abc",
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(400);
      expect(r.body.code).toBe("INVALID_PARAMETER");
    }
    expect((await get("/extended/v2/blocks?limit=1&unanchored=false")).status).toBe(200);
    const missingTx = `0x${"ab".repeat(32)}`;
    const r = await get(`/extended/v1/tx/${missingTx}`);
    expect(r).toEqual({ status: 404, body: expect.objectContaining({ code: "TX_NOT_FOUND", tx_id: missingTx }) });
    expect((await get("/extended/v2/blocks/999999")).body.code).toBe("BLOCK_NOT_FOUND");
    expect((await get("/extended/v1/contract/ST000000000000000000002AMW42H.nothing")).body.code).toBe(
      "CONTRACT_NOT_FOUND",
    );
  });

  it("keeps /v1's access rules: free on loopback (a wrong token ignored), the token past it", async () => {
    const wrong = await fetch(`${base}/extended`, { headers: { authorization: "Bearer wrong" } });
    expect(wrong.status).toBe(200);
    expect(wrong.headers.get("access-control-allow-origin")).toBe("*");

    const app = createExtendedApp({
      db: testDb.db,
      logger: silentLogger,
      access: { publishedOnLoopback: false, instanceToken: "s3cret" },
    });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const path of ["/extended", "/extended/v2/blocks", "/extended/nothing-here", "/v2/info"]) {
        for (const authorization of [undefined, "Bearer wrong"]) {
          const res = await fetch(url + path, { headers: authorization ? { authorization } : {} });
          expect(res.status, `${path} ${authorization}`).toBe(401);
          expect(((await res.json()) as { code: string }).code).toBe("UNAUTHORIZED");
          expect(res.headers.get("access-control-allow-origin")).toBeNull();
        }
      }
      const client = createClient({ baseUrl: url, headers: { authorization: "Bearer s3cret" } });
      const { data, response } = await client.GET("/extended/v2/blocks/", { params: { query: { limit: 1 } } });
      expect(response.status).toBe(200);
      expect(data?.total).toBe(canonicalBlocks(requests).length);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
