/**
 * chain.address_activity (migration 0014, runtime/chain/address-activity.ts) on both drivers,
 * over a simulated devnet chain with forks: each address's canonical sum equals the STX balance the
 * test computes from the observer payloads (test/support/subgraph-expect.ts) just before a reorg
 * that moves balances, just after it, and at the end; the SQL rebuild used by the migration's
 * backfill and by archive restores gives exactly the rows ingestion wrote (side branches
 * included); every transaction's execution cost is kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildAddressActivity } from "../../../runtime/chain/address-activity.js";
import type { Service } from "../../../runtime/service.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { expectedChain, type RawRequest } from "../../support/chain-model.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { postObserver, startTestService } from "../../support/service.js";
import { canonicalBlocks, expectedHoldings } from "../../support/subgraph-expect.js";

const SEED = process.env.SEED ?? "extended-1";

function expectedStx(requests: RawRequest[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, v] of expectedHoldings(canonicalBlocks(requests))) {
    const [kind, , holder] = key.split("|");
    if (kind === "stx" && v !== 0n) out[holder] = String(v);
  }
  return out;
}

describe(`chain.address_activity (seed ${SEED})`, () => {
  let t: TestDb;
  let service: Service;
  const { payloads } = simulateChain({ seed: SEED, blocks: 40, eventsPerBlock: 10, forkRate: 0.2 });
  const requests: RawRequest[] = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));

  beforeAll(async () => {
    t = await createTestDb();
    service = await startTestService(t.db, { NETWORK: "devnet" });
  });
  afterAll(async () => {
    await service?.stop();
    await t?.drop();
  });

  /** Non-zero canonical sums per address, as the Extended view's balance reads them. */
  async function servedSums(): Promise<Record<string, string>> {
    const { rows } = await t.db.query<{ address: string; balance: string }>(
      `SELECT address, (sum(received) - sum(sent) - sum(fees) + sum(miner_rewards))::text AS balance
         FROM chain.address_activity WHERE canonical GROUP BY address`,
    );
    return Object.fromEntries(rows.filter((r) => r.balance !== "0").map((r) => [r.address, r.balance]));
  }

  async function allRows(): Promise<string[]> {
    const { rows } = await t.db.query<{ r: string }>(
      `SELECT concat_ws('|', index_block_hash, address, block_height, canonical, received, sent, fees, miner_rewards) AS r
         FROM chain.address_activity ORDER BY 1`,
    );
    return rows.map((r) => r.r);
  }

  it("follows the canonical chain through a reorg; the SQL rebuild equals what ingestion wrote", async () => {
    let reorgAt = -1;
    for (let k = 1; k <= requests.length && reorgAt < 0; k++) {
      if (requests[k - 1].path !== "/new_block") continue;
      if (expectedChain(requests.slice(0, k)).reorgForkPoints.length === 0) continue;
      const before = expectedStx(requests.slice(0, k - 1));
      const after = expectedStx(requests.slice(0, k));
      if (JSON.stringify(before) !== JSON.stringify(after)) reorgAt = k;
    }
    expect(reorgAt, "the simulation has a reorg that moves balances").toBeGreaterThan(0);

    let posted = 0;
    const postUpTo = async (n: number) => {
      for (; posted < n; posted++)
        await postObserver(service.observerUrl, requests[posted].path, requests[posted].body);
      await service.idle();
    };
    await postUpTo(reorgAt - 1);
    const before = await servedSums();
    expect(before).toEqual(expectedStx(requests.slice(0, reorgAt - 1)));
    await postUpTo(reorgAt);
    const after = await servedSums();
    expect(after).toEqual(expectedStx(requests.slice(0, reorgAt)));
    expect(after).not.toEqual(before);
    await postUpTo(requests.length);
    expect(await servedSums()).toEqual(expectedStx(requests));

    const { rows: sides } = await t.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM chain.address_activity WHERE NOT canonical",
    );
    expect(Number(sides[0].n), "orphaned blocks keep their rows, flagged").toBeGreaterThan(0);

    const ingested = await allRows();
    await t.db.transaction((q) => rebuildAddressActivity(q, 0, 2_147_483_647));
    expect(await allRows()).toEqual(ingested);
  });

  it("keeps every transaction's execution cost", async () => {
    const seen = new Map<string, number>();
    for (const r of requests) {
      if (r.path !== "/new_block") continue;
      for (const tx of JSON.parse(r.body).transactions) seen.set(tx.txid, tx.execution_cost.runtime);
    }
    const { rows } = await t.db.query<{ tx_id: string; runtime: string | null }>(
      `SELECT DISTINCT t.tx_id, (c.costs -> t.tx_index ->> 2) AS runtime
         FROM chain.transactions t JOIN chain.block_execution_costs c USING (index_block_hash)`,
    );
    expect(rows.length).toBe(seen.size);
    for (const r of rows) expect(Number(r.runtime), r.tx_id).toBe(seen.get(r.tx_id));
  });
});
