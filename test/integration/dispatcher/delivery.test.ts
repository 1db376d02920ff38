/**
 * Chain-webhook deliveries end to end: blocks from the devnet
 * simulator go through the observer; real receivers (node:http on port 0) get every format with
 * its headers; ed25519 verified with node:crypto against the published key, HMAC with the public
 * `standardwebhooks` package; a receiver that fails then recovers loses nothing and gets no
 * duplicate; a timing-out endpoint does not delay another; a re-ingested block adds nothing; the
 * circuit state shows in the webhook record.
 */
import { createPublicKey, verify } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORMATS } from "../../../runtime/dispatcher/formats.js";
import type { Service } from "../../../runtime/service.js";
import { ChainSimulator, type SimPayload } from "../../../runtime/simulator/index.js";
import { createTestDb, type TestDb } from "../../support/db.js";
import { type Receiver, type ReceivedRequest, startReceiver } from "../../support/receiver.js";
import { postObserver, startTestService, waitFor } from "../../support/service.js";
import { outboxCount, waitForExpanded, waitForOutboxDrained, webhookClient } from "../../support/webhooks.js";

const TRIGGERS = [{ type: "ft_transfer" }, { type: "stx_transfer" }, { type: "print_event" }];
let t: TestDb;
let svc: Service;
let api: ReturnType<typeof webhookClient>;
const receivers: Receiver[] = [];

async function receiver(initial?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(initial);
  receivers.push(r);
  return r;
}

// One simulated devnet chain, fed to the service a few blocks at a time by the tests.
const chain: Iterator<SimPayload> = new ChainSimulator({
  seed: "webhooks-delivery",
  blocks: 500,
  eventsPerBlock: 12,
  forkRate: 0,
})
  .payloads()
  [Symbol.iterator]();

/** Posts the chain's next `blocks` blocks (and their burn blocks); waits until they are ingested. */
async function ingest(blocks: number): Promise<{ path: string; body: string }[]> {
  const requests: { path: string; body: string }[] = [];
  while (requests.filter((r) => r.path === "/new_block").length < blocks) {
    const next = chain.next();
    if (next.done) throw new Error("the simulated chain ran out");
    requests.push({ path: next.value.path, body: JSON.stringify(next.value.body) });
  }
  for (const r of requests) await postObserver(svc.observerUrl, r.path, r.body);
  await svc.idle();
  return requests;
}

/** Canonical committed events of the triggers' types above a height (what the webhooks must get). */
async function expectedKeys(
  aboveHeight: number,
  types = ["ft_transfer", "stx_transfer", "print"],
): Promise<Set<string>> {
  const { rows } = await t.db.query<{ k: string }>(
    `SELECT e.tx_id || ':' || e.event_index AS k FROM chain.events e
      WHERE e.canonical AND e.committed AND e.event_type = ANY($1::text[]) AND e.block_height > $2`,
    [types, aboveHeight],
  );
  return new Set(rows.map((r) => r.k));
}

async function tip(): Promise<number> {
  const { rows } = await t.db.query<{ h: number | null }>("SELECT block_height AS h FROM control.chain_tip");
  return rows[0].h ?? -1;
}

beforeAll(async () => {
  t = await createTestDb();
  svc = await startTestService(
    t.db,
    { WEBHOOK_ALLOW_PRIVATE: "true", NETWORK: "devnet" },
    {
      dispatcher: {
        retry: { baseDelayMs: 40, maxDelayMs: 400 },
        breaker: { failureThreshold: 5, cooldownMs: 300 },
        pollIntervalMs: 100,
      },
    },
  );
  api = webhookClient(svc.apiUrl);
});

afterAll(async () => {
  await svc?.stop();
  for (const r of receivers) await r.close();
  await t?.drop();
});

/** The `data` a body carries, per format (SPEC.md "Formats"). */
function dataOf(format: string, body: unknown): Record<string, unknown> {
  const b = body as Record<string, unknown>;
  switch (format) {
    case "raw":
      return b;
    case "inngest":
      return (b as unknown as { data: Record<string, unknown> }[])[0].data;
    case "trigger":
      return b.payload as Record<string, unknown>;
    case "cloudflare": {
      const { _type, _outboxId, ...data } = b.params as Record<string, unknown>;
      return data;
    }
    default:
      return b.data as Record<string, unknown>;
  }
}

describe("every format, signed", () => {
  it("delivers the same data in each format with its headers; signatures verify", async () => {
    const r = await receiver();
    const secrets = new Map<string, string>();
    for (const format of FORMATS) {
      const created = await api.create({
        name: `fmt-${format}`,
        url: `${r.url}/${format}`,
        format,
        triggers: TRIGGERS,
      });
      expect(created.status).toBe(201);
      secrets.set(format, String(created.body.secret));
    }
    const start = await tip();
    await ingest(6);
    const expected = await expectedKeys(start);
    expect(expected.size).toBeGreaterThan(10);
    await waitFor(() => r.requests.filter((q) => q.status === 200).length === expected.size * FORMATS.length);

    const keyAnswer = await fetch(`${svc.apiUrl}/public/streams/signing-key`);
    const published = { key_id: keyAnswer.headers.get("x-service-signature-keyid"), pem: await keyAnswer.text() };
    const publicKey = createPublicKey(published.pem);
    const byFormat = new Map<string, ReceivedRequest[]>();
    for (const req of r.requests) {
      const format = req.path.split("/").pop() as string;
      byFormat.set(format, [...(byFormat.get(format) ?? []), req]);
    }
    const canonicalData = new Map<string, string>();
    for (const format of FORMATS) {
      const reqs = byFormat.get(format) ?? [];
      expect(reqs, format).toHaveLength(expected.size);
      const keys = new Set<string>();
      for (const req of reqs) {
        const id = String(req.headers["webhook-id"]);
        expect(id).toMatch(/^msg_/);
        expect(req.headers["x-service-signature-keyid"]).toBe(published.key_id);
        const signed = verify(
          null,
          Buffer.from(`${id}.${req.body}`, "utf8"),
          publicKey,
          Buffer.from(String(req.headers["x-service-signature"]), "base64"),
        );
        expect(signed, `${format} ed25519`).toBe(true);
        expect(req.headers["content-type"]).toBe(
          format === "cloudevents" ? "application/cloudevents+json" : "application/json",
        );
        const body = JSON.parse(req.body);
        if (format === "standard-webhooks") {
          expect(
            new Webhook(secrets.get(format) as string).verify(req.body, req.headers as Record<string, string>),
          ).toEqual(body);
          expect(Object.keys(body)).toEqual(["type", "timestamp", "data"]);
        } else {
          expect(req.headers).not.toHaveProperty("webhook-signature");
        }
        if (format === "cloudevents")
          expect(body).toMatchObject({ specversion: "1.0", id, datacontenttype: "application/json" });
        if (format === "inngest") expect(body[0]).toMatchObject({ id, v: "1" });
        if (format === "trigger") expect(body.options).toEqual({ idempotencyKey: id });
        if (format === "cloudflare") expect(body.params._outboxId).toBe(id);
        const data = dataOf(format, body);
        expect(Object.keys(data)).toEqual([
          "action",
          "trigger",
          "tx_id",
          "block_hash",
          "block_height",
          "canonical",
          "event",
        ]);
        const event = data.event as { type: string; event_index: number; tx_id: string };
        const key = `${data.tx_id}:${event.event_index}`;
        keys.add(key);
        const text = JSON.stringify(data);
        if (canonicalData.has(key)) expect(text, `${format} data`).toBe(canonicalData.get(key));
        else canonicalData.set(key, text);
        expect(["stx_transfer_event", "ft_transfer_event", "contract_event"]).toContain(event.type);
      }
      expect(keys, format).toEqual(expected);
    }
  });
});

describe("failures, recovery and isolation", () => {
  it("a receiver that fails then recovers gets every delivery exactly once", async () => {
    const r = await receiver({ status: 503 });
    const created = await api.create({
      name: "flaky",
      url: r.url,
      triggers: TRIGGERS,
      concurrency: 4,
      maxAttempts: 30,
    });
    const start = await tip();
    await ingest(4);
    const expected = await expectedKeys(start);
    await waitFor(() => r.requests.length >= 12); // failing attempts (retries and a circuit in between)
    r.set({ status: 200 });
    await waitForOutboxDrained(t.db, String(created.body.id));
    const ok = r.requests.filter((q) => q.status === 200);
    const ids = ok.map((q) => String(q.headers["webhook-id"]));
    expect(new Set(ids).size).toBe(ids.length); // no delivery succeeded twice
    const keys = ok.map((q) => {
      const d = JSON.parse(q.body).data;
      return `${d.tx_id}:${d.event.event_index}`;
    });
    expect(new Set(keys)).toEqual(expected);
    expect(keys).toHaveLength(expected.size);
    expect(await outboxCount(t.db, "webhook_id = $1 AND status <> 'delivered'", [created.body.id])).toBe(0);
    const log = (await api.deliveries("flaky", "?limit=1000")).body.deliveries as { success: boolean }[];
    expect(log.filter((e) => !e.success).length).toBeGreaterThan(0);
    expect(log.filter((e) => e.success)).toHaveLength(expected.size);
  });

  it("a timing-out endpoint does not delay another endpoint", async () => {
    const stuck = await receiver({ hang: true });
    const healthy = await receiver();
    await api.create({ name: "stuck", url: stuck.url, triggers: TRIGGERS, timeoutMs: 8000, concurrency: 2 });
    await api.create({ name: "healthy", url: healthy.url, triggers: TRIGGERS, concurrency: 2 });
    const start = await tip();
    const begun = Date.now();
    await ingest(4);
    const expected = await expectedKeys(start);
    await waitFor(() => healthy.requests.filter((q) => q.status === 200).length === expected.size, {
      timeoutMs: 20_000,
    });
    const elapsed = Date.now() - begun;
    // Everything reached the healthy endpoint before the stuck one's first attempt even timed out,
    // and the stuck one only ever held its own two slots.
    expect(elapsed).toBeLessThan(8000);
    expect(stuck.requests.length).toBeLessThanOrEqual(2);
    await api.pause("stuck");
  });

  it("the circuit opens after consecutive failures and shows in the webhook record", async () => {
    const down = await receiver({ status: 500 });
    await api.create({ name: "down", url: down.url, triggers: TRIGGERS, maxAttempts: 30 });
    await ingest(2);
    const open = await waitFor(async () => {
      const w = (await api.get("down")).body as {
        circuit: { state: string; consecutiveFailures: number; retryAt: string | null };
      };
      return w.circuit.state === "open" ? w.circuit : null;
    });
    expect(open.consecutiveFailures).toBeGreaterThanOrEqual(5);
    expect(Date.parse(String(open.retryAt))).not.toBeNaN();
    down.set({ status: 200 });
    await waitForOutboxDrained(t.db, String((await api.get("down")).body.id));
    expect(((await api.get("down")).body as { circuit: { state: string } }).circuit.state).toBe("closed");
  });

  it("a re-ingested block adds no outbox row and no delivery", async () => {
    const r = await receiver();
    await api.create({ name: "reingest", url: r.url, triggers: TRIGGERS });
    const requests = await ingest(3);
    const id = String((await api.get("reingest")).body.id);
    await waitForOutboxDrained(t.db, id);
    const rows = await outboxCount(t.db);
    const delivered = r.requests.length;
    expect(delivered).toBeGreaterThan(0);
    for (const q of requests) await postObserver(svc.observerUrl, q.path, q.body);
    await svc.idle();
    expect(await outboxCount(t.db)).toBe(rows);
    await waitForOutboxDrained(t.db, id);
    expect(r.requests.length).toBe(delivered);
  });

  it("a paused webhook keeps its deliveries until resumed", async () => {
    const r = await receiver();
    await api.create({ name: "paused", url: r.url, triggers: TRIGGERS });
    await api.pause("paused");
    const start = await tip();
    await ingest(2);
    const expected = await expectedKeys(start);
    await waitForExpanded(t.db);
    expect(
      await outboxCount(
        t.db,
        "webhook_id = (SELECT id FROM control.webhooks WHERE name = 'paused') AND status = 'pending'",
      ),
    ).toBe(expected.size);
    expect(r.requests).toHaveLength(0);
    await api.resume("paused");
    await waitFor(() => r.requests.filter((q) => q.status === 200).length === expected.size);
  });
});
