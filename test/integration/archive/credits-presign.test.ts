/**
 * The presign seam over real HTTP: a presign route built as the archive server builds it (charge,
 * then sign the URL) with `chargePresign`, called by an instance with `chargeHeaders`. A short
 * balance gets 402 and no URL; concurrent presigns at the cap get one URL; a retried presign of the
 * same bundle of the same restore is charged once; repairs use the month's free bundles first.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  bundleIdempotencyKey,
  bundlePriceCents,
  chargeHeaders,
  chargePresign,
} from "../../../runtime/archive/credits/presign-charge.js";
import type { CreditsService } from "../../../runtime/archive/credits/service.js";
import { type CreditsDb, createCreditsDb, makeService, settableClock, sumOfEntries } from "../../support/credits.js";

/** price_units per bundle, as a manifest would list them. */
const MANIFEST: Record<string, number> = {
  "bundles/0000000000-0000009999.bundle.gz": 3,
  "bundles/0000010000-0000019999.bundle.gz": 5,
};
const UNIT_CENTS = 100;

let t: CreditsDb;
let service: CreditsService;
let url: string;
let server: http.Server;
let issued: string[];
const clock = settableClock("2026-09-01T00:00:00Z");

beforeAll(async () => {
  t = await createCreditsDb();
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const { file, kind } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { file: string; kind: unknown };
      const units = MANIFEST[file];
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (units === undefined) return send(404, { error: `no ${file}`, code: "NOT_FOUND" });
      const charged = await chargePresign(service, req.headers, {
        file,
        priceCents: bundlePriceCents(units, UNIT_CENTS),
        kind,
      });
      if (!charged.ok)
        return send(charged.status, { error: charged.message, code: charged.code, details: charged.details });
      issued.push(file);
      send(200, { url: `/${file}?expires=1&signature=x`, balance_cents: charged.balanceCents });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.drop();
});
beforeEach(async () => {
  await t.reset();
  service = makeService(t.db, null, clock.now);
  issued = [];
});

const [P0, P1] = Object.keys(MANIFEST);

async function presign(headers: Record<string, string>, file: string, kind = "bootstrap") {
  const res = await fetch(`${url}/presign`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ file, kind }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("presign charges a bundle before its URL is issued", () => {
  it("a short balance gets 402 with the numbers, and no URL and no charge", async () => {
    const g = await service.grant({ keyId: null, amountCents: 400 });
    const r = await presign(chargeHeaders(g.credit_key as string, bundleIdempotencyKey("rs_1", P1)), P1);
    expect(r).toMatchObject({
      status: 402,
      body: { code: "INSUFFICIENT_CREDITS", details: { balance_cents: 400, price_cents: 500 } },
    });
    expect(issued).toEqual([]);
    expect(await sumOfEntries(t.db, g.key_id)).toBe(400);
  });

  it("concurrent presigns at the cap: one URL", async () => {
    const g = await service.grant({ keyId: null, amountCents: 300 });
    const key = g.credit_key as string;
    const results = await Promise.all(
      ["rs_a", "rs_b", "rs_c"].map((run) => presign(chargeHeaders(key, bundleIdempotencyKey(run, P0)), P0)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 402, 402]);
    expect(issued).toHaveLength(1);
    expect(await sumOfEntries(t.db, g.key_id)).toBe(0);
  });

  it("a retried presign of the same bundle of the same restore is charged once", async () => {
    const g = await service.grant({ keyId: null, amountCents: 1000 });
    const headers = chargeHeaders(g.credit_key as string, bundleIdempotencyKey("rs_7", P0));
    const first = await presign(headers, P0);
    const retry = await presign(headers, P0);
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(retry.body.balance_cents).toBe(700);
    expect(issued).toEqual([P0, P0]); // a fresh URL each time, one charge
    expect(await sumOfEntries(t.db, g.key_id)).toBe(700);
    // Another restore fetching the same bundle is a new charge.
    await presign(chargeHeaders(g.credit_key as string, bundleIdempotencyKey("rs_8", P0)), P0);
    expect(await sumOfEntries(t.db, g.key_id)).toBe(400);
  });

  it("repairs draw on the free bundles of the month first", async () => {
    const g = await service.grant({ keyId: null, amountCents: 100 });
    const r = await presign(chargeHeaders(g.credit_key as string, "rs_r:p1"), P1, "repair");
    expect(r).toMatchObject({ status: 200, body: { balance_cents: 100 } });
  });

  it("refuses a presign without a credit key, idempotency key or known kind", async () => {
    const g = await service.grant({ keyId: null, amountCents: 1000 });
    const key = g.credit_key as string;
    expect(await presign({}, P0)).toMatchObject({ status: 401, body: { code: "INVALID_CREDIT_KEY" } });
    expect(await presign({ authorization: `Bearer ${key}` }, P0)).toMatchObject({
      status: 400,
      body: { code: "IDEMPOTENCY_KEY_REQUIRED" },
    });
    expect(await presign(chargeHeaders(key, "x"), P0, "verify")).toMatchObject({
      status: 400,
      body: { code: "INVALID_KIND" },
    });
    expect(await presign(chargeHeaders(`sck_${"q".repeat(43)}`, "x"), P0)).toMatchObject({
      status: 401,
      body: { code: "INVALID_CREDIT_KEY" },
    });
    await presign(chargeHeaders(key, "same"), P0);
    expect(await presign(chargeHeaders(key, "same"), P1)).toMatchObject({
      status: 409,
      body: { code: "IDEMPOTENCY_KEY_REUSED" },
    });
    expect(issued).toEqual([P0]);
  });
});
