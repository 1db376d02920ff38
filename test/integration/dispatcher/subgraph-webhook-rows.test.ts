/**
 * A row in a subgraph webhook delivery is the row the read API serves: the same columns and the
 * same strings, `_created_at` with its microseconds included — for live `.created` deliveries
 * and for a replay. contract-deployments' `contracts` rows are written once, so the API's row
 * must equal the delivered one exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../runtime/service.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { type Receiver, startReceiver } from "../../support/receiver.js";
import { postObserver, startTestService, waitFor } from "../../support/service.js";
import { outboxDrained, waitForOutboxDrained, webhookClient } from "../../support/webhooks.js";

interface Delivery {
  type: string;
  data: { row: Record<string, unknown> };
}

let t: TestDb;
let svc: Service;
let receiver: Receiver;

beforeAll(async () => {
  t = await createTestDb();
  svc = await startTestService(
    t.db,
    { WEBHOOK_ALLOW_PRIVATE: "true", NETWORK: "devnet" },
    { dispatcher: { pollIntervalMs: 100 } },
  );
  receiver = await startReceiver();
  const created = await webhookClient(svc.apiUrl).create({
    name: "contracts-hook",
    url: receiver.url,
    subgraphName: "contract-deployments",
    tableName: "contracts",
  });
  expect(created.status).toBe(201);
  // No forks: every deployment stays canonical, so each delivered row is still in the table.
  const { payloads } = simulateChain({ seed: "subgraph-webhook-rows", blocks: 25, eventsPerBlock: 6, forkRate: 0 });
  for (const p of payloads) await postObserver(svc.observerUrl, p.path, JSON.stringify(p.body));
  await svc.idle();
});

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
  await t?.drop();
});

async function apiRow(id: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${svc.apiUrl}/v1/subgraphs/contract-deployments/contracts/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

function delivered(type: string): Delivery[] {
  return (receiver.deliveredBodies() as Delivery[]).filter((d) => d.type === type);
}

describe("subgraph webhook rows", () => {
  it("a live .created row equals the API's row, _created_at to the microsecond", async () => {
    await waitForOutboxDrained(t.db);
    const rows = delivered("contract-deployments.contracts.created").map((d) => d.data.row);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row._created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      expect(await apiRow(row._id)).toEqual(row);
    }
  });

  it("a replayed row equals the API's row too", async () => {
    const { rows: tip } = await t.db.query<{ h: number }>("SELECT block_height AS h FROM control.chain_tip");
    const replay = await webhookClient(svc.apiUrl).replay("contracts-hook", { fromBlock: 1, toBlock: tip[0].h });
    expect(replay.status, JSON.stringify(replay.body)).toBeLessThan(300);
    await waitFor(async () => delivered("contract-deployments.contracts.replay").length > 0 && (await drained()));
    const rows = delivered("contract-deployments.contracts.replay").map((d) => d.data.row);
    const { rows: stored } = await t.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM "sg_contract_deployments".contracts',
    );
    expect(rows.length).toBe(Number(stored[0].n));
    for (const row of rows) expect(await apiRow(row._id)).toEqual(row);
  });
});

async function drained(): Promise<boolean> {
  return outboxDrained(t.db);
}
