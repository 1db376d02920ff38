/**
 * Webhook management API against the real service (SPEC.md "Webhook (resource)", "Trigger
 * object", "Authentication", "Errors", "Versioning" 4):
 * create/list/get/update/delete, pause/resume, secrets shown once and rotated with a grace period,
 * test deliveries by id and name, the delivery log, dead letters and requeue, replay validation,
 * every trigger 400 through the API, URL rules, tokens, and the deprecated `/api/subscriptions`.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../../runtime/service.js";
import { createTestDb, type TestDb } from "../../../support/db.js";
import { type Receiver, startReceiver } from "../../../support/receiver.js";
import { startTestService, waitFor } from "../../../support/service.js";
import { webhookClient } from "../../../support/webhooks.js";

const TOKEN = "tok_webhooks-api-test";
let t: TestDb;
let svc: Service;
let receiver: Receiver;
let api: ReturnType<typeof webhookClient>;

beforeAll(async () => {
  t = await createTestDb();
  svc = await startTestService(t.db, { WEBHOOK_ALLOW_PRIVATE: "true", INSTANCE_TOKEN: TOKEN });
  receiver = await startReceiver();
  api = webhookClient(svc.apiUrl, { token: TOKEN });
});

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
  await t?.drop();
});

const chain = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  url: receiver.url,
  triggers: [{ type: "stx_transfer" }],
  ...extra,
});

describe("create, read, list", () => {
  it("create returns the record and the whsec_ secret once; later reads never show it", async () => {
    const created = await api.create(
      chain("first", { format: "cloudevents", timeoutMs: 5000, maxAttempts: 3, concurrency: 2 }),
    );
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(created.body).toMatchObject({
      name: "first",
      kind: "chain",
      url: receiver.url,
      format: "cloudevents",
      status: "active",
      triggers: [{ type: "stx_transfer" }],
      startHeight: -1,
      timeoutMs: 5000,
      maxAttempts: 3,
      concurrency: 2,
      circuit: { state: "closed", consecutiveFailures: 0, openedAt: null, retryAt: null },
    });
    const id = String(created.body.id);
    expect(id).toMatch(/^wh_/);
    for (const key of [id, "first"]) {
      const got = await api.get(key);
      expect(got.status).toBe(200);
      expect(got.body.id).toBe(id);
      expect(JSON.stringify(got.body)).not.toContain("whsec_");
    }
    const listed = await api.list();
    expect(JSON.stringify(listed.body)).not.toContain("whsec_");
    expect((listed.body.webhooks as { id: string }[]).map((w) => w.id)).toContain(id);
    // At rest the secret is sealed.
    const { rows } = await t.db.query<{ secret_sealed: string }>(
      "SELECT secret_sealed FROM control.webhooks WHERE id = $1",
      [id],
    );
    expect(rows[0].secret_sealed).not.toContain(String(created.body.secret).slice(6));
  });

  it("defaults: standard-webhooks, 10 s timeout, 10 attempts, concurrency 8", async () => {
    const created = await api.create(chain("defaults"));
    expect(created.body).toMatchObject({
      format: "standard-webhooks",
      timeoutMs: 10_000,
      maxAttempts: 10,
      concurrency: 8,
    });
  });

  it("names are unique: 409 WEBHOOK_NAME_TAKEN on create and on rename", async () => {
    await api.create(chain("taken"));
    const again = await api.create(chain("taken"));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "WEBHOOK_NAME_TAKEN" });
    await api.create(chain("other"));
    expect((await api.update("other", { name: "taken" })).body).toMatchObject({ code: "WEBHOOK_NAME_TAKEN" });
  });

  it("subgraph kind with a filter over the table's columns", async () => {
    const created = await api.create({
      name: "holders",
      url: receiver.url,
      subgraphName: "asset-holdings",
      tableName: "holdings",
      filter: { kind: "ft", amount: { gte: "1000" }, holder: { in: ["SP1", "SP2"] } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: "subgraph",
      subgraphName: "asset-holdings",
      tableName: "holdings",
      filter: { kind: { eq: "ft" }, amount: { gte: "1000" }, holder: { in: ["SP1", "SP2"] } },
    });
    expect(created.body).not.toHaveProperty("triggers");
  });

  it.each([
    ["no kind", { name: "x1", url: "http://127.0.0.1:1/" }, "triggers"],
    [
      "both kinds",
      {
        name: "x2",
        url: "http://127.0.0.1:1/",
        triggers: [{ type: "stx_mint" }],
        subgraphName: "bns-names",
        tableName: "names",
      },
      "triggers",
    ],
    [
      "unknown subgraph",
      { name: "x3", url: "http://127.0.0.1:1/", subgraphName: "nope", tableName: "names" },
      "subgraphName",
    ],
    [
      "unknown table",
      { name: "x4", url: "http://127.0.0.1:1/", subgraphName: "bns-names", tableName: "nope" },
      "tableName",
    ],
    [
      "filter on an unknown column",
      { name: "x5", url: "http://127.0.0.1:1/", subgraphName: "bns-names", tableName: "names", filter: { nope: 1 } },
      "filter.nope",
    ],
    [
      "filter on a chain webhook",
      { name: "x6", url: "http://127.0.0.1:1/", triggers: [{ type: "stx_mint" }], filter: {} },
      "filter",
    ],
    ["bad name", { name: "has space", url: "http://127.0.0.1:1/", triggers: [{ type: "stx_mint" }] }, "name"],
    [
      "bad format",
      { name: "x7", url: "http://127.0.0.1:1/", triggers: [{ type: "stx_mint" }], format: "xml" },
      "format",
    ],
    [
      "timeout out of range",
      { name: "x8", url: "http://127.0.0.1:1/", triggers: [{ type: "stx_mint" }], timeoutMs: 10 },
      "timeoutMs",
    ],
    [
      "unknown field",
      { name: "x9", url: "http://127.0.0.1:1/", triggers: [{ type: "stx_mint" }], colour: "red" },
      "colour",
    ],
  ])("%s → 400 VALIDATION_ERROR naming %s", async (_n, body, field) => {
    const res = await api.create(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", details: { field } });
  });

  it.each([
    ["sender on a mint", [{ type: "ft_mint", sender: "SP1" }], 0, "sender"],
    ["recipient on a burn", [{ type: "stx_transfer" }, { type: "ft_burn", recipient: "SP1" }], 1, "recipient"],
    ["unknown type", [{ type: "stx_mint" }, { type: "stx_mint" }, { type: "wormhole" }], 2, "type"],
    ["bad amount string", [{ type: "stx_transfer", minAmount: "1.5" }], 0, "minAmount"],
    ["amount as a number", [{ type: "stx_transfer", minAmount: 5 }], 0, "minAmount"],
    ["no triggers", [], 0, "triggers"],
    ["51 triggers", Array.from({ length: 51 }, () => ({ type: "stx_mint" })), 50, "triggers"],
  ])("%s → 400 INVALID_TRIGGER with index %i and field %s", async (_n, triggers, index, field) => {
    const res = await api.create({ name: "bad-trigger", url: receiver.url, triggers });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "INVALID_TRIGGER", details: { index, field } });
  });

  it("URLs must be http(s)", async () => {
    const res = await api.create(chain("ftp", { url: "ftp://127.0.0.1/x" }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "URL_NOT_ALLOWED", details: { field: "url" } });
  });

  it("unknown webhooks → 404 WEBHOOK_NOT_FOUND", async () => {
    expect((await api.get("wh_missing")).body).toMatchObject({ code: "WEBHOOK_NOT_FOUND" });
    expect((await api.test("nobody")).status).toBe(404);
  });
});

describe("update, pause, resume, delete", () => {
  it("updates url, format, limits and triggers; refuses kind changes", async () => {
    await api.create(chain("upd"));
    const res = await api.update("upd", {
      format: "raw",
      timeoutMs: 2000,
      maxAttempts: 2,
      concurrency: 1,
      triggers: [{ type: "ft_mint", minAmount: "5" }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      format: "raw",
      timeoutMs: 2000,
      maxAttempts: 2,
      concurrency: 1,
      triggers: [{ type: "ft_mint", minAmount: "5" }],
    });
    expect((await api.update("upd", { triggers: [{ type: "ft_mint", sender: "SP1" }] })).body).toMatchObject({
      code: "INVALID_TRIGGER",
    });
    expect((await api.update("upd", { subgraphName: "bns-names" })).body).toMatchObject({
      code: "VALIDATION_ERROR",
      details: { field: "subgraphName" },
    });
    expect((await api.update("upd", { filter: {} })).body).toMatchObject({
      code: "VALIDATION_ERROR",
      details: { field: "filter" },
    });
    expect((await api.update("upd", {})).status).toBe(400);
  });

  it("updates a subgraph webhook's filter against its table", async () => {
    await api.create({ name: "names-hook", url: receiver.url, subgraphName: "bns-names", tableName: "names" });
    expect((await api.update("names-hook", { filter: { namespace: "btc" } })).body).toMatchObject({
      filter: { namespace: { eq: "btc" } },
    });
    expect((await api.update("names-hook", { filter: { namespace: { gt: "a" } } })).status).toBe(400);
  });

  it("pause and resume flip the status; delete removes the webhook", async () => {
    await api.create(chain("lifecycle"));
    expect((await api.pause("lifecycle")).body).toMatchObject({ status: "paused" });
    expect((await api.resume("lifecycle")).body).toMatchObject({ status: "active" });
    const del = await api.remove("lifecycle");
    expect(del.status).toBe(204);
    expect((await api.get("lifecycle")).status).toBe(404);
  });
});

describe("test deliveries, rotation, log, dead letters", () => {
  it("a test delivery by id and by name: chain.test.apply with data.test, signed", async () => {
    const created = await api.create(chain("pinged"));
    const id = String(created.body.id);
    for (const key of [id, "pinged"]) {
      const before = receiver.requests.length;
      const res = await api.test(key, { message: "hello" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ type: "chain.test.apply", success: true, responseStatus: 200, error: null });
      const got = receiver.requests[before];
      const body = JSON.parse(got.body);
      expect(body.type).toBe("chain.test.apply");
      expect(body.data).toMatchObject({ test: true, message: "hello", webhook_id: id, subscription_id: id });
      expect(Date.parse(body.data.sent_at)).not.toBeNaN();
      expect(got.headers["webhook-id"]).toBe(res.body.deliveryId);
      expect(
        new Webhook(String(created.body.secret)).verify(got.body, got.headers as Record<string, string>),
      ).toBeTruthy();
    }
  });

  it("rotate: the new secret is returned once; both signatures are sent during the grace period", async () => {
    const created = await api.create(chain("rotating"));
    const oldSecret = String(created.body.secret);
    const rotated = await api.rotate("rotating", { gracePeriodSeconds: 3600 });
    expect(rotated.status).toBe(200);
    const newSecret = String(rotated.body.secret);
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(Date.parse(String(rotated.body.previousSecretExpiresAt))).toBeGreaterThan(Date.now() + 3_500_000);
    expect(JSON.stringify((await api.get("rotating")).body)).not.toContain("whsec_");
    const before = receiver.requests.length;
    await api.test("rotating");
    const got = receiver.requests[before];
    expect(String(got.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(new Webhook(newSecret).verify(got.body, got.headers as Record<string, string>)).toBeTruthy();
    expect(new Webhook(oldSecret).verify(got.body, got.headers as Record<string, string>)).toBeTruthy();
    // Without a grace period the old secret stops signing at once.
    const again = await api.rotate("rotating", { gracePeriodSeconds: 0 });
    const n = receiver.requests.length;
    await api.test("rotating");
    expect(String(receiver.requests[n].headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(
      new Webhook(String(again.body.secret)).verify(
        receiver.requests[n].body,
        receiver.requests[n].headers as Record<string, string>,
      ),
    ).toBeTruthy();
    expect((await api.rotate("rotating", { gracePeriodSeconds: -1 })).status).toBe(400);
  });

  it("the delivery log lists every attempt with time, status, latency, excerpt and error; paged", async () => {
    await api.create(chain("logged"));
    receiver.set({ status: 503, responseBody: "maintenance window" });
    const failed = await api.test("logged");
    receiver.set({ status: 200, responseBody: "ok" });
    const ok = await api.test("logged");
    expect(failed.body).toMatchObject({ success: false, responseStatus: 503, error: "endpoint answered 503" });
    const log = await api.deliveries("logged");
    expect(log.status).toBe(200);
    const entries = log.body.deliveries as Record<string, unknown>[];
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      deliveryId: ok.body.deliveryId,
      type: "chain.test.apply",
      attempt: 1,
      success: true,
      responseStatus: 200,
      responseExcerpt: "ok",
      error: null,
    });
    expect(entries[1]).toMatchObject({
      deliveryId: failed.body.deliveryId,
      success: false,
      responseStatus: 503,
      responseExcerpt: "maintenance window",
      error: "endpoint answered 503",
    });
    expect(typeof entries[0].latencyMs).toBe("number");
    expect(Date.parse(String(entries[0].attemptedAt))).not.toBeNaN();
    const page1 = await api.deliveries("logged", "?limit=1");
    expect((page1.body.deliveries as unknown[]).length).toBe(1);
    const page2 = await api.deliveries("logged", `?limit=1&cursor=${page1.body.nextCursor}`);
    expect((page2.body.deliveries as { deliveryId: string }[])[0].deliveryId).toBe(failed.body.deliveryId);
    expect(page2.body.nextCursor).toBeNull();
    expect((await api.deliveries("logged", "?limit=0")).status).toBe(400);
    expect((await api.deliveries("logged", "?bogus=1")).status).toBe(400);
  });

  it("a failed test delivery is a dead letter; requeue delivers it", async () => {
    await api.create(chain("deadly"));
    receiver.set({ status: 500 });
    const failed = await api.test("deadly");
    receiver.set({ status: 200 });
    const dead = await api.deadLetters("deadly");
    expect(dead.body.deadLetters).toEqual([
      expect.objectContaining({
        deliveryId: failed.body.deliveryId,
        type: "chain.test.apply",
        attempts: 1,
        lastStatus: 500,
        lastError: "endpoint answered 500",
      }),
    ]);
    const requeued = await api.requeue("deadly", String(failed.body.deliveryId));
    expect(requeued.body).toEqual({ deliveryId: failed.body.deliveryId, status: "pending" });
    await waitFor(() =>
      receiver.requests.some((r) => r.headers["webhook-id"] === failed.body.deliveryId && r.status === 200),
    );
    await waitFor(async () => ((await api.deadLetters("deadly")).body.deadLetters as unknown[]).length === 0);
    expect((await api.requeue("deadly", String(failed.body.deliveryId))).body).toMatchObject({
      code: "DELIVERY_NOT_FOUND",
    });
  });
});

describe("replay validation", () => {
  it.each([
    ["over 100,000 blocks", { fromBlock: 0, toBlock: 100_000 }, "REPLAY_RANGE_TOO_LARGE"],
    ["from above to", { fromBlock: 5, toBlock: 4 }, "VALIDATION_ERROR"],
    ["beyond the tip", { fromBlock: 0, toBlock: 5 }, "VALIDATION_ERROR"],
    ["missing fields", {}, "VALIDATION_ERROR"],
    ["not integers", { fromBlock: "1", toBlock: 2 }, "VALIDATION_ERROR"],
  ])("%s → 400 %s", async (_n, body, code) => {
    await api.create(chain("replayed"));
    const res = await api.replay("replayed", body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code });
  });
});

describe("access and the deprecated alias", () => {
  it("every webhook route needs the instance token, loopback included", async () => {
    const anon = webhookClient(svc.apiUrl);
    expect((await anon.list()).status).toBe(401);
    expect((await anon.create(chain("anon"))).status).toBe(401);
    expect((await webhookClient(svc.apiUrl, { prefix: "/api/subscriptions" }).list()).status).toBe(401);
  });

  it("/api/subscriptions answers the same with a Deprecation header", async () => {
    const old = webhookClient(svc.apiUrl, { token: TOKEN, prefix: "/api/subscriptions" });
    const created = await old.create(chain("via-alias"));
    expect(created.status).toBe(201);
    expect(created.headers.get("deprecation")).toBe("true");
    expect(created.headers.get("link")).toBe('</api/webhooks>; rel="successor-version"');
    const viaNew = await api.get("via-alias");
    const viaOld = await old.get("via-alias");
    expect(viaOld.body).toEqual(viaNew.body);
    expect(viaOld.headers.get("deprecation")).toBe("true");
    expect(viaNew.headers.get("deprecation")).toBeNull();
    expect((await old.test("via-alias")).body).toMatchObject({ success: true });
  });
});

describe("private targets", () => {
  it("are refused unless WEBHOOK_ALLOW_PRIVATE=true", async () => {
    const strict = await startTestService(t.db, { INSTANCE_TOKEN: TOKEN });
    try {
      const client = webhookClient(strict.apiUrl, { token: TOKEN });
      for (const url of [
        "http://127.0.0.1:9/hook",
        "http://localhost/hook",
        "http://10.0.0.1/",
        "http://[::1]/",
        "http://169.254.169.254/",
      ]) {
        const res = await client.create(chain(`strict-${url.length}`, { url }));
        expect(res.status, url).toBe(400);
        expect(res.body).toMatchObject({ code: "URL_NOT_ALLOWED" });
      }
      expect((await client.update("first", { url: "http://127.0.0.1:1/" })).body).toMatchObject({
        code: "URL_NOT_ALLOWED",
      });
    } finally {
      await strict.stop();
    }
  });
});
