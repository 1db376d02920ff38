/**
 * Top holders: `_sort=amount` on asset-holdings is accepted under an equality filter on
 * asset_identifier (the spec's `sortWithin`, served by an (asset_identifier, amount, _id) index).
 * Over a simulated chain with forks, the pages walked with next_cursor, descending and ascending,
 * list exactly the holders this test computes from the raw blocks, in amount order; without the
 * equality filter the sort stays a 400 SORT_NOT_SUPPORTED naming the filter it needs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../../runtime/service.js";
import { simulateChain } from "../../../../runtime/simulator/index.js";
import type { RawRequest } from "../../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../../support/db.js";
import { postObserver, startTestService } from "../../../support/service.js";
import { canonicalBlocks, expectedHoldings } from "../../../support/subgraph-expect.js";

const H = "/v1/subgraphs/asset-holdings/holdings";
type Row = { holder: string; amount: string; asset_identifier: string };

describe("top holders (_sort=amount within asset_identifier)", () => {
  let testDb: TestDb;
  let service: Service;
  let requests: RawRequest[];
  beforeAll(async () => {
    testDb = await createTestDb();
    const { payloads } = simulateChain({ seed: "top-holders", blocks: 40, eventsPerBlock: 16, forkRate: 0.1 });
    requests = payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }));
    service = await startTestService(testDb.db, { NETWORK: "devnet" });
    for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
    await service.idle();
    await service.subgraphs.idle();
  });
  afterAll(async () => {
    await service?.stop();
    await testDb?.drop();
  });

  /** Every row of the asset, walking next_cursor with small pages. */
  async function walk(asset: string, order: "asc" | "desc"): Promise<Row[]> {
    const rows: Row[] = [];
    let cursor = "";
    for (let page = 0; page < 1000; page++) {
      const q = new URLSearchParams({ asset_identifier: asset, _sort: "amount", _order: order, _limit: "7" });
      if (cursor) q.set("cursor", cursor);
      const res = await fetch(`${service.apiUrl}${H}?${q}`);
      const body = (await res.json()) as { rows: Row[]; next_cursor: string | null };
      expect(res.status, JSON.stringify(body)).toBe(200);
      rows.push(...body.rows);
      if (body.next_cursor === null) return rows;
      cursor = body.next_cursor;
    }
    throw new Error("no last page after 1000 pages");
  }

  it("lists each asset's holders in amount order, as computed from the blocks", async () => {
    const expected = new Map<string, Map<string, bigint>>(); // asset → holder → balance
    for (const [key, amount] of expectedHoldings(canonicalBlocks(requests))) {
      const [, asset, holder] = key.split("|");
      const holders = expected.get(asset) ?? new Map<string, bigint>();
      holders.set(holder, amount);
      expected.set(asset, holders);
    }
    const assets = [...expected.keys()].sort((a, b) => expected.get(b)!.size - expected.get(a)!.size);
    expect(assets.length).toBeGreaterThan(1);
    for (const asset of assets.slice(0, 3)) {
      const holders = expected.get(asset)!;
      expect(holders.size, asset).toBeGreaterThan(7); // more than one page
      const byAmount = [...holders.values()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (const order of ["desc", "asc"] as const) {
        const rows = await walk(asset, order);
        // Ties may come in any holder order (they are ordered by _id): compare the amounts in
        // order, and each holder's amount.
        const amounts = rows.map((r) => BigInt(r.amount));
        expect(amounts, `${asset} ${order}`).toEqual(order === "asc" ? byAmount : [...byAmount].reverse());
        expect(new Map(rows.map((r) => [r.holder, BigInt(r.amount)])), `${asset} ${order}`).toEqual(holders);
        expect(new Set(rows.map((r) => r.asset_identifier))).toEqual(new Set([asset]));
      }
    }
  });

  it("without an equality filter on asset_identifier the sort is a 400 SORT_NOT_SUPPORTED", async () => {
    for (const query of ["_sort=amount", "_sort=amount&kind=ft", "_sort=amount&asset_identifier.like=STX"]) {
      const res = await fetch(`${service.apiUrl}${H}?${query}`);
      const body = (await res.json()) as { code: string; error: string; details: Record<string, unknown> };
      expect(res.status, query).toBe(400);
      expect(body.code, query).toBe("SORT_NOT_SUPPORTED");
      expect(body.details.requires, query).toBe("asset_identifier");
      expect(body.error, query).toContain("asset_identifier=");
    }
  });
});
