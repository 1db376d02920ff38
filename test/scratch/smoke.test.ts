import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDb, type TestDb } from "../support/db.js";
import { FIXTURES_DIR, readReplayTsv } from "../support/fixtures.js";
import { startReceiver } from "../support/receiver.js";
import { postObserver, startTestService, waitFor } from "../support/service.js";

let t: TestDb;
beforeAll(async () => { t = await createTestDb(); });
afterAll(async () => { await t.drop(); });

it("smoke", async () => {
  const svc = await startTestService(t.db, { WEBHOOK_ALLOW_PRIVATE: "true" });
  const rcv = await startReceiver();
  const res = await fetch(`${svc.apiUrl}/api/webhooks`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "stx", url: rcv.url, triggers: [{ type: "stx_transfer" }] }) });
  const created = await res.json();
  console.log(res.status, created);
  const rows = readReplayTsv(path.join(FIXTURES_DIR, "observer/stacks-blockchain-api/mainnet-reorg-scenario1.tsv"));
  for (const r of rows) await postObserver(svc.observerUrl, r.path, r.body);
  await svc.idle();
  const { rows: ob } = await t.db.query("SELECT dedupe_kind, status, count(*) FROM control.webhook_outbox GROUP BY 1,2");
  console.log(ob);
  await waitFor(async () => { const { rows } = await t.db.query<{ n: string }>("SELECT count(*) AS n FROM control.webhook_outbox WHERE status = 'pending'"); return Number(rows[0].n) === 0; });
  console.log(rcv.requests.length, rcv.requests[0]?.headers, rcv.requests[0]?.body);
  const rb = rcv.requests.filter((r) => r.body.includes("rollback"));
  console.log(rb.map((r) => r.body.slice(0, 600)));
  const del = await (await fetch(`${svc.apiUrl}/api/webhooks/stx/deliveries?limit=2`)).json();
  console.log(JSON.stringify(del));
  await svc.stop();
  await rcv.close();
});
