/**
 * Archive credits over real HTTP: the credits router on an ephemeral port, the official `stripe`
 * client talking to a local server that answers as Stripe's API reference documents, and provider
 * events signed with the package's own `generateTestHeaderString`. Covers checkout → signed event
 * → credit (once per event id, once per payment), refused signatures, auto-refill (once per
 * threshold crossing, a decline reported and never overdrawing), operator grants, and 4xx codes.
 */
import { compileErrors, validate } from "@readme/openapi-parser";
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { creditsOpenApi } from "../../../runtime/archive/credits/openapi.js";
import { createStripeProvider } from "../../../runtime/archive/credits/stripe-provider.js";
import {
  type CreditsDb,
  type CreditsServer,
  createCreditsDb,
  settableClock,
  startCreditsServer,
  sumOfEntries,
} from "../../support/credits.js";
import { type FakeStripe, startFakeStripe } from "../../support/stripe-api.js";

const WHSEC = "whsec_test_5f0c1d2e3a4b5c6d7e8f";
const OPERATOR = "operator-token-0123456789";
const signer = new Stripe("sk_test_signer");

let t: CreditsDb;
let fake: FakeStripe;
let server: CreditsServer;
const clock = settableClock("2026-05-02T10:00:00Z");

beforeAll(async () => {
  t = await createCreditsDb();
  fake = await startFakeStripe();
});
afterAll(async () => {
  await fake.close();
  await t.drop();
});
beforeEach(async () => {
  await t.reset();
  fake.reset();
  clock.set("2026-05-02T10:00:00Z");
  const provider = createStripeProvider({
    secretKey: "sk_test_archive",
    webhookSecret: WHSEC,
    successUrl: "https://archive.example/credits?checkout=paid",
    cancelUrl: "https://archive.example/credits?checkout=cancelled",
    api: { host: fake.host, port: fake.port, protocol: "http" },
  });
  server = await startCreditsServer({ db: t.db, provider, now: clock.now, operatorToken: OPERATOR });
});
afterEach(async () => {
  await server.close();
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(
  method: string,
  path: string,
  o: { body?: unknown; auth?: string; raw?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (o.auth) headers.authorization = `Bearer ${o.auth}`;
  let body: string | undefined;
  if (o.raw !== undefined) body = o.raw;
  else if (o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${server.url}/credits${path}`, { method, headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function postEvent(
  event: Record<string, unknown>,
  o: { secret?: string; tamper?: boolean; timestamp?: number } = {},
) {
  const payload = JSON.stringify(event);
  const header = signer.webhooks.generateTestHeaderString({
    payload,
    secret: o.secret ?? WHSEC,
    timestamp: o.timestamp,
  });
  const sent = o.tamper ? payload.replace(/"amount_total":\d+/, '"amount_total":10000') : payload;
  const res = await fetch(`${server.url}/credits/provider-events`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": header },
    body: sent,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Buys a pack and pays it: returns the new key and the paid session. */
async function buyAndPay(pack = 25) {
  const bought = await call("POST", "/checkout", { body: { pack, email: "ops@example.com" } });
  expect(bought.status).toBe(201);
  const session = fake.pay(String(bought.body.session_id));
  const event = fake.event("checkout.session.completed", session);
  return { secret: String(bought.body.credit_key), keyId: String(bought.body.key_id), session, event };
}

describe("archive credits over HTTP with Stripe Checkout", () => {
  it("a pack bought by checkout is credited when the signed event confirms the payment", async () => {
    const bought = await call("POST", "/checkout", { body: { pack: 25, email: "ops@example.com" } });
    expect(bought.status).toBe(201);
    expect(bought.body.checkout_url).toBe(`https://checkout.stripe.test/c/pay/${bought.body.session_id}`);
    expect(bought.body.credit_key).toMatch(/^sck_/);
    // What the official client sent, as Stripe's reference names the parameters.
    const create = fake.requests.find((r) => r.path === "/v1/checkout/sessions");
    expect(create?.params).toMatchObject({
      mode: "payment",
      customer_email: "ops@example.com",
      customer_creation: "always",
      line_items: [{ quantity: "1", price_data: { currency: "usd", unit_amount: "2500" } }],
      payment_intent_data: { setup_future_usage: "off_session" },
      metadata: { credit_key_id: bought.body.key_id },
      success_url: "https://archive.example/credits?checkout=paid",
    });
    expect(create?.idempotencyKey).toMatch(/^co_/);

    const secret = String(bought.body.credit_key);
    expect((await call("GET", "/balance", { auth: secret })).body.balance_cents).toBe(0);

    const session = fake.pay(String(bought.body.session_id));
    const credited = await postEvent(fake.event("checkout.session.completed", session));
    expect(credited).toMatchObject({ status: 200, body: { received: true, duplicate: false, credited_cents: 2500 } });
    const balance = await call("GET", "/balance", { auth: secret });
    expect(balance.body).toMatchObject({
      balance_cents: 2500,
      balance: "$25.00",
      can_auto_refill: true,
      free_repairs_left: 6,
    });
    expect(await sumOfEntries(t.db, String(bought.body.key_id))).toBe(2500);
  });

  it("an event with a bad signature is refused with 400 and credits nothing", async () => {
    const { secret, keyId, event } = await buyAndPay();
    const wrongSecret = await postEvent(event, { secret: "whsec_someone_else" });
    const tampered = await postEvent(event, { tamper: true });
    const stale = await postEvent(event, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    const unsigned = await fetch(`${server.url}/credits/provider-events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(event),
    });
    for (const r of [wrongSecret, tampered, stale])
      expect(r).toMatchObject({ status: 400, body: { code: "SIGNATURE_INVALID" } });
    expect(unsigned.status).toBe(400);
    expect(await sumOfEntries(t.db, keyId)).toBe(0);
    const { rows } = await t.db.query("SELECT * FROM credits.provider_events");
    expect(rows).toEqual([]);
    // The genuine event still credits afterwards.
    expect((await postEvent(event)).body.credited_cents).toBe(2500);
    expect((await call("GET", "/balance", { auth: secret })).body.balance_cents).toBe(2500);
  });

  it("the same event twice is credited once; another event for the same payment also is not", async () => {
    const { keyId, session, event } = await buyAndPay(50);
    const first = await postEvent(event);
    const second = await postEvent(event);
    const twin = await postEvent(fake.event("checkout.session.async_payment_succeeded", session));
    expect(first.body).toMatchObject({ duplicate: false, credited_cents: 5000 });
    expect(second.body).toMatchObject({ duplicate: true, credited_cents: 0 });
    expect(twin.body).toMatchObject({ duplicate: true, credited_cents: 0 });
    expect(await sumOfEntries(t.db, keyId)).toBe(5000);
  });

  it("an unpaid or unknown session credits nothing", async () => {
    const bought = await call("POST", "/checkout", { body: { pack: 10, email: "ops@example.com" } });
    const unpaid = { ...fake.pay(String(bought.body.session_id)), payment_status: "unpaid" };
    expect((await postEvent(fake.event("checkout.session.completed", unpaid))).body.credited_cents).toBe(0);
    const stranger = { ...unpaid, id: "cs_test_not_ours", payment_status: "paid" };
    expect((await postEvent(fake.event("checkout.session.completed", stranger))).body.credited_cents).toBe(0);
    expect(await sumOfEntries(t.db, String(bought.body.key_id))).toBe(0);
  });

  it("auto-refill starts one payment when a charge crosses the threshold, and the signed event credits it", async () => {
    const { secret, keyId, session, event } = await buyAndPay(25);
    await postEvent(event);
    const set = await call("PUT", "/auto-refill", { auth: secret, body: { threshold: 5, pack: 10 } });
    expect(set).toMatchObject({ status: 200, body: { auto_refill: { threshold_cents: 500, pack_cents: 1000 } } });

    const charge = (i: number, cents: number) =>
      server.service.chargeForBundle(
        secret,
        { partition: `bundles/${i}`, priceCents: cents, kind: "bootstrap" },
        `boot:${i}`,
      );
    // 2500 → 1800 → 1100 → 400 (crosses $5) → 100: one refill.
    for (const [i, cents] of [
      [1, 700],
      [2, 700],
      [3, 700],
      [4, 300],
    ])
      expect((await charge(i, cents)).ok).toBe(true);
    await server.service.settled();
    const intents = fake.paymentIntents();
    expect(intents).toHaveLength(1);
    const saved = fake.requests.find(
      (r) => r.method === "GET" && r.path === `/v1/payment_intents/${session.payment_intent}`,
    );
    expect(saved).toBeDefined();
    const create = fake.requests.find((r) => r.method === "POST" && r.path === "/v1/payment_intents");
    expect(create?.params).toMatchObject({
      amount: "1000",
      currency: "usd",
      off_session: "true",
      confirm: "true",
      customer: session.customer,
    });
    expect(create?.params.payment_method).toMatch(/^pm_test_/);
    expect(create?.idempotencyKey).toMatch(/^rf_/);
    expect((await call("GET", "/balance", { auth: secret })).body).toMatchObject({
      balance_cents: 100,
      auto_refill: { last_refill: { status: "started", amount_cents: 1000 } },
    });

    const paid = fake.event("payment_intent.succeeded", intents[0]);
    expect((await postEvent(paid)).body).toMatchObject({ credited_cents: 1000 });
    expect((await postEvent(paid)).body).toMatchObject({ duplicate: true, credited_cents: 0 });
    expect((await call("GET", "/balance", { auth: secret })).body).toMatchObject({
      balance_cents: 1100,
      auto_refill: { last_refill: { status: "succeeded" } },
    });
    // Back above the threshold: the next crossing starts the next refill.
    expect((await charge(5, 700)).ok).toBe(true);
    await server.service.settled();
    expect(fake.paymentIntents()).toHaveLength(2);
    expect(await sumOfEntries(t.db, keyId)).toBe(2500 - 2400 + 1000 - 700);
  });

  it("a declined refill is reported and never lets a charge exceed the balance", async () => {
    const { secret, event } = await buyAndPay(10);
    await postEvent(event);
    await call("PUT", "/auto-refill", { auth: secret, body: { threshold: "5.00", pack: 25 } });
    fake.declineOffSession(true);
    const charge = (i: number, cents: number) =>
      server.service.chargeForBundle(
        secret,
        { partition: `bundles/${i}`, priceCents: cents, kind: "backfill" },
        `bf:${i}`,
      );
    expect(await charge(1, 600)).toMatchObject({ ok: true, balanceCents: 400 });
    await server.service.settled();
    const view = await call("GET", "/balance", { auth: secret });
    expect(view.body).toMatchObject({
      balance_cents: 400,
      auto_refill: { last_refill: { status: "failed", error: "Your card has insufficient funds." } },
    });
    expect(await charge(2, 500)).toMatchObject({ ok: false, error: "INSUFFICIENT_CREDITS", balanceCents: 400 });
    expect(await charge(3, 300)).toMatchObject({ ok: true, balanceCents: 100 });
    await server.service.settled();
    expect(fake.paymentIntents()).toHaveLength(1); // no retry storm below the threshold
  });

  it("a refill never confirmed stops blocking the next one after a day, and is credited if its event comes late", async () => {
    const { secret, keyId, event } = await buyAndPay(10);
    await postEvent(event);
    await call("PUT", "/auto-refill", { auth: secret, body: { threshold: 5, pack: 10 } });
    const charge = (i: number, cents: number) =>
      server.service.chargeForBundle(
        secret,
        { partition: `bundles/${i}`, priceCents: cents, kind: "bootstrap" },
        `s:${i}`,
      );
    const topUp = (cents: number) => server.service.grant({ keyId, amountCents: cents });
    expect(await charge(1, 600)).toMatchObject({ ok: true, balanceCents: 400 }); // crosses: refill 1 started
    await server.service.settled();
    await topUp(1000); // 1400
    clock.set("2026-05-03T09:00:00Z"); // 23 h later: refill 1 still in flight
    expect(await charge(2, 1000)).toMatchObject({ ok: true, balanceCents: 400 });
    await server.service.settled();
    expect(fake.paymentIntents()).toHaveLength(1);
    await topUp(1000); // 1400
    clock.set("2026-05-03T10:00:01Z"); // a day and a second after refill 1
    expect(await charge(3, 1000)).toMatchObject({ ok: true, balanceCents: 400 });
    await server.service.settled();
    const intents = fake.paymentIntents();
    expect(intents).toHaveLength(2);
    const { rows } = await t.db.query<{ status: string; error: string | null }>(
      "SELECT status, error FROM credits.refills WHERE key_id = $1 ORDER BY created_at",
      [keyId],
    );
    expect(rows.map((r) => r.status)).toEqual(["failed", "started"]);
    expect(rows[0].error).toMatch(/no confirmation/);
    // The first payment's event arrives late: the money was taken, so it is credited.
    expect((await postEvent(fake.event("payment_intent.succeeded", intents[0]))).body).toMatchObject({
      credited_cents: 1000,
    });
    expect(await sumOfEntries(t.db, keyId)).toBe(1400);
  });

  it("auto-refill needs a card from an earlier purchase, and validates its input", async () => {
    const granted = await call("POST", "/grants", { auth: OPERATOR, body: { amount: 20 } });
    const secret = String(granted.body.credit_key);
    expect(await call("PUT", "/auto-refill", { auth: secret, body: { threshold: 5, pack: 25 } })).toMatchObject({
      status: 409,
      body: { code: "NO_SAVED_PAYMENT_METHOD" },
    });
    const bad = [
      [{ threshold: 0, pack: 25 }, "INVALID_THRESHOLD"],
      [{ threshold: "five", pack: 25 }, "INVALID_THRESHOLD"],
      [{ threshold: 5, pack: 20 }, "INVALID_PACK"],
      [{ threshold: 5 }, "INVALID_BODY"],
      [{ threshold: 5, pack: 25, extra: 1 }, "UNKNOWN_FIELD"],
    ] as const;
    for (const [body, code] of bad)
      expect(await call("PUT", "/auto-refill", { auth: secret, body })).toMatchObject({ status: 400, body: { code } });
    const off = await call("DELETE", "/auto-refill", { auth: secret });
    expect(off).toMatchObject({ status: 200, body: { auto_refill: null } });
  });

  it("a checkout the provider cannot open answers 502 and leaves no key behind", async () => {
    const down = createStripeProvider({
      secretKey: "sk_test_archive",
      webhookSecret: WHSEC,
      successUrl: "https://archive.example/paid",
      cancelUrl: "https://archive.example/cancelled",
      api: { host: "127.0.0.1", port: 9, protocol: "http" }, // discard port: nothing listens
    });
    const broken = await startCreditsServer({ db: t.db, provider: down, now: clock.now });
    try {
      const res = await fetch(`${broken.url}/credits/checkout`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ pack: 25, email: "ops@example.com" }),
      });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { code: string }).code).toBe("PROVIDER_UNAVAILABLE");
      expect((await t.db.query("SELECT * FROM credits.keys")).rows).toEqual([]);
    } finally {
      await broken.close();
    }
  });

  it("answers bad input with clear 4xx codes", async () => {
    const cases: [string, string, { body?: unknown; auth?: string; raw?: string }, number, string][] = [
      ["POST", "/checkout", { body: { pack: 20, email: "a@b.co" } }, 400, "INVALID_PACK"],
      ["POST", "/checkout", { body: { pack: 25, email: "not-an-email" } }, 400, "INVALID_EMAIL"],
      ["POST", "/checkout", { body: { pack: 25 } }, 400, "INVALID_EMAIL"],
      ["POST", "/checkout", { body: { pack: 25, email: "a@b.co", coupon: "x" } }, 400, "UNKNOWN_FIELD"],
      ["POST", "/checkout", { raw: "{not json" }, 400, "INVALID_JSON"],
      ["POST", "/checkout", { body: [1, 2] }, 400, "INVALID_BODY"],
      ["POST", "/checkout", { body: { pack: 25, email: "a@b.co" }, auth: "sck_wrong" }, 401, "INVALID_CREDIT_KEY"],
      ["GET", "/balance", {}, 401, "INVALID_CREDIT_KEY"],
      ["GET", "/balance", { auth: `sck_${"x".repeat(43)}` }, 401, "INVALID_CREDIT_KEY"],
      ["GET", "/nowhere", {}, 404, "NOT_FOUND"],
      ["POST", "/grants", { body: { amount: 5 } }, 401, "UNAUTHORIZED"],
      ["POST", "/grants", { body: { amount: 5 }, auth: "wrong-operator-token" }, 401, "UNAUTHORIZED"],
      ["POST", "/grants", { body: { amount: -5 }, auth: OPERATOR }, 400, "INVALID_AMOUNT"],
      ["POST", "/grants", { body: { amount: 5, key_id: "ck_missing" }, auth: OPERATOR }, 404, "CREDIT_KEY_NOT_FOUND"],
      ["POST", "/refunds", { body: { key_id: "ck_missing" }, auth: OPERATOR }, 400, "INVALID_BODY"],
    ];
    for (const [method, path, o, status, code] of cases)
      expect(await call(method, path, o), `${method} ${path} ${JSON.stringify(o)}`).toMatchObject({
        status,
        body: { code },
      });
    expect(await t.db.query("SELECT * FROM credits.entries")).toMatchObject({ rows: [] });
  });

  it("operator grants credit a new or existing key, once per idempotency key", async () => {
    const made = await call("POST", "/grants", { auth: OPERATOR, body: { amount: "12.50", note: "beta tester" } });
    expect(made).toMatchObject({ status: 201, body: { balance_cents: 1250, duplicate: false } });
    const keyId = String(made.body.key_id);
    const again = { key_id: keyId, amount: 10, idempotency_key: "grant-2026-05" };
    expect(await call("POST", "/grants", { auth: OPERATOR, body: again })).toMatchObject({
      status: 201,
      body: { balance_cents: 2250 },
    });
    expect(await call("POST", "/grants", { auth: OPERATOR, body: again })).toMatchObject({
      status: 200,
      body: { balance_cents: 2250, duplicate: true },
    });
    expect(made.body.credit_key).toMatch(/^sck_/);
    expect((await call("GET", "/balance", { auth: String(made.body.credit_key) })).body.balance_cents).toBe(2250);
    // The secret is not stored, only its hash.
    const { rows } = await t.db.query<{ secret_sha256: string }>("SELECT secret_sha256 FROM credits.keys");
    expect(JSON.stringify(rows)).not.toContain(String(made.body.credit_key));
  });

  it("publishes a valid OpenAPI 3.1 document whose every operation is served", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    expect(doc).toEqual(creditsOpenApi());
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? "" : compileErrors(result)).toBe("");
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>))
      for (const method of Object.keys(ops)) {
        const r = await call(method.toUpperCase(), path, method === "get" || method === "delete" ? {} : { body: {} });
        expect(r.body.code, `${method} ${path}`).not.toBe("NOT_FOUND");
      }
  });
});

describe("archive credits without a payment provider", () => {
  it("sells nothing (503) and takes no events, while operator grants still work", async () => {
    const bare = await startCreditsServer({ db: t.db, provider: null, now: clock.now, operatorToken: null });
    try {
      const res = await fetch(`${bare.url}/credits/checkout`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ pack: 25, email: "a@b.co" }),
      });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { code: string }).code).toBe("PAYMENTS_NOT_CONFIGURED");
      const grant = await fetch(`${bare.url}/credits/grants`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer anything-at-all-here" },
        body: JSON.stringify({ amount: 5 }),
      });
      expect(grant.status).toBe(403); // no operator token configured: the route is off
    } finally {
      await bare.close();
    }
  });
});
