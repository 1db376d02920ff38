/**
 * The credit ledger on a real database (PGlite; PostgreSQL with SLUICE_TEST_DB=postgres): the
 * balance is the hard cap, a charge happens once per idempotency key, concurrent charges never
 * overdraw, six free repairs per calendar month (UTC), and the balance is always the sum of the
 * entries (a seeded random sequence checked against a model kept by the test).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { BundleCharge } from "../../../runtime/archive/credits/money.js";
import type { CreditsService } from "../../../runtime/archive/credits/service.js";
import { type CreditsDb, createCreditsDb, makeService, settableClock, sumOfEntries } from "../../support/credits.js";

let t: CreditsDb;
const clock = settableClock("2026-03-10T12:00:00Z");
let service: CreditsService;

beforeAll(async () => {
  t = await createCreditsDb();
});
afterAll(async () => {
  await t.drop();
});
beforeEach(async () => {
  await t.reset();
  clock.set("2026-03-10T12:00:00Z");
  service = makeService(t.db, null, clock.now);
});

async function fundedKey(cents: number): Promise<{ secret: string; keyId: string }> {
  const g = await service.grant({ keyId: null, amountCents: cents });
  return { secret: g.credit_key as string, keyId: g.key_id };
}

const bundle = (partition: string, priceCents: number, kind: BundleCharge["kind"] = "bootstrap"): BundleCharge => ({
  partition,
  priceCents,
  kind,
});

async function entryCount(keyId: string): Promise<number> {
  const { rows } = await t.db.query<{ n: string }>(
    "SELECT count(*)::text AS n FROM credits.entries WHERE key_id = $1",
    [keyId],
  );
  return Number(rows[0].n);
}

describe("archive credit ledger", () => {
  it("refuses a bundle the balance does not cover and writes nothing", async () => {
    const { secret, keyId } = await fundedKey(500);
    const result = await service.chargeForBundle(secret, bundle("bundles/p1", 600), "op1:p1");
    expect(result).toMatchObject({ ok: false, error: "INSUFFICIENT_CREDITS", balanceCents: 500, priceCents: 600 });
    expect(await entryCount(keyId)).toBe(1); // the grant only
    expect((await service.balance(secret)).balance_cents).toBe(500);
    // Exactly the balance is allowed: the cap is inclusive.
    expect(await service.chargeForBundle(secret, bundle("bundles/p1", 500), "op1:p1b")).toMatchObject({
      ok: true,
      balanceCents: 0,
    });
  });

  it("two concurrent charges at the cap: exactly one succeeds", async () => {
    const { secret, keyId } = await fundedKey(1000);
    const results = await Promise.all([
      service.chargeForBundle(secret, bundle("bundles/a", 1000), "a"),
      service.chargeForBundle(secret, bundle("bundles/b", 1000), "b"),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.error === "INSUFFICIENT_CREDITS")).toHaveLength(1);
    expect(await sumOfEntries(t.db, keyId)).toBe(0);
  });

  it("many concurrent charges take exactly as many bundles as the balance covers", async () => {
    const { secret, keyId } = await fundedKey(1000);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => service.chargeForBundle(secret, bundle(`bundles/${i}`, 300), `k${i}`)),
    );
    // floor(1000 / 300) = 3 bundles, 100 cents left.
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    expect(await sumOfEntries(t.db, keyId)).toBe(100);
    expect((await service.balance(secret)).balance_cents).toBe(100);
  });

  it("a retried charge with the same idempotency key charges once, also when the retries race", async () => {
    const { secret, keyId } = await fundedKey(2000);
    const first = await service.chargeForBundle(secret, bundle("bundles/p7", 700), "restore-1:p7");
    const again = await service.chargeForBundle(secret, bundle("bundles/p7", 700), "restore-1:p7");
    expect(first).toMatchObject({ ok: true, chargedCents: 700, balanceCents: 1300, replayed: false });
    expect(again).toMatchObject({ ok: true, chargedCents: 700, balanceCents: 1300, replayed: true });
    const raced = await Promise.all(
      [1, 2, 3].map(() => service.chargeForBundle(secret, bundle("bundles/p8", 700), "restore-1:p8")),
    );
    expect(raced.filter((r) => r.ok && !r.replayed)).toHaveLength(1);
    expect(raced.every((r) => r.ok)).toBe(true);
    expect(await sumOfEntries(t.db, keyId)).toBe(2000 - 700 - 700);
    expect(await entryCount(keyId)).toBe(3);
    // The same key for another bundle is a client bug, refused.
    expect(await service.chargeForBundle(secret, bundle("bundles/p9", 700), "restore-1:p7")).toMatchObject({
      ok: false,
      error: "IDEMPOTENCY_KEY_REUSED",
    });
  });

  it("the seventh repair in a month is charged, and the free quota resets when the month starts (UTC)", async () => {
    const { secret, keyId } = await fundedKey(1000);
    clock.set("2026-03-31T20:00:00Z");
    const repairs = [];
    for (let i = 1; i <= 7; i++)
      repairs.push(await service.chargeForBundle(secret, bundle(`bundles/r${i}`, 150, "repair"), `repair:${i}`));
    expect(repairs.slice(0, 6).every((r) => r.ok && r.free && r.chargedCents === 0)).toBe(true);
    expect(repairs[6]).toMatchObject({ ok: true, free: false, chargedCents: 150, balanceCents: 850 });
    // Non-repair bundles never draw on the quota and are always charged.
    expect(await service.chargeForBundle(secret, bundle("bundles/b1", 100), "boot:1")).toMatchObject({
      free: false,
      chargedCents: 100,
    });
    const march = await service.balance(secret);
    expect(march.free_repairs_left).toBe(0);
    expect(march.free_repairs_reset_at).toBe("2026-04-01T00:00:00.000Z");

    clock.set("2026-03-31T23:59:59.999Z"); // still March
    expect(await service.chargeForBundle(secret, bundle("bundles/r8", 150, "repair"), "repair:8")).toMatchObject({
      free: false,
    });
    clock.set("2026-04-01T00:00:00.000Z"); // April: six free again
    expect(await service.chargeForBundle(secret, bundle("bundles/r9", 150, "repair"), "repair:9")).toMatchObject({
      ok: true,
      free: true,
      chargedCents: 0,
    });
    expect((await service.balance(secret)).free_repairs_left).toBe(5);
    expect(await sumOfEntries(t.db, keyId)).toBe(1000 - 150 - 100 - 150);
  });

  it("a free repair needs no balance; a charged one does", async () => {
    const { secret } = await fundedKey(1);
    for (let i = 0; i < 6; i++)
      expect((await service.chargeForBundle(secret, bundle(`r${i}`, 500, "repair"), `r${i}`)).ok).toBe(true);
    expect(await service.chargeForBundle(secret, bundle("r6", 500, "repair"), "r6")).toMatchObject({
      ok: false,
      error: "INSUFFICIENT_CREDITS",
    });
  });

  it("refuses unknown keys and malformed bundles without writing", async () => {
    const { secret, keyId } = await fundedKey(1000);
    expect(await service.chargeForBundle(`sck_${"A".repeat(43)}`, bundle("p", 1), "x")).toMatchObject({
      ok: false,
      error: "INVALID_CREDIT_KEY",
    });
    expect(await service.chargeForBundle("not a key", bundle("p", 1), "x")).toMatchObject({
      error: "INVALID_CREDIT_KEY",
    });
    for (const [b, k] of [
      [bundle("p", -1), "x"],
      [bundle("p", 1.5), "x"],
      [bundle("", 1), "x"],
      [{ partition: "p", priceCents: 1, kind: "verify" } as unknown as BundleCharge, "x"],
      [bundle("p", 1), ""],
    ] as const)
      expect(await service.chargeForBundle(secret, b, k)).toMatchObject({ ok: false, error: "INVALID_BUNDLE" });
    expect(await entryCount(keyId)).toBe(1);
  });

  it("a grant's idempotency key never collides with a charge's", async () => {
    const { secret, keyId } = await fundedKey(1000);
    await service.chargeForBundle(secret, bundle("bundles/q", 300), "july");
    const g1 = await service.grant({ keyId, amountCents: 500, idempotencyKey: "july" });
    const g2 = await service.grant({ keyId, amountCents: 500, idempotencyKey: "july" });
    expect([g1.duplicate, g2.duplicate]).toEqual([false, true]);
    expect(await service.chargeForBundle(secret, bundle("bundles/q", 300), "july")).toMatchObject({
      ok: true,
      replayed: true,
    });
    expect(await sumOfEntries(t.db, keyId)).toBe(1000 - 300 + 500);
  });

  it("entries are append-only: the database refuses UPDATE and DELETE", async () => {
    const { keyId } = await fundedKey(1000);
    await expect(
      t.db.query("UPDATE credits.entries SET amount_cents = 99999 WHERE key_id = $1", [keyId]),
    ).rejects.toThrow(/append-only/);
    await expect(t.db.query("DELETE FROM credits.entries WHERE key_id = $1", [keyId])).rejects.toThrow(/append-only/);
    expect(await sumOfEntries(t.db, keyId)).toBe(1000);
  });

  it("a refund gives one charge back once", async () => {
    const { secret, keyId } = await fundedKey(1000);
    await service.chargeForBundle(secret, bundle("bundles/x", 400), "x");
    const r1 = await service.refund({ keyId, idempotencyKey: "x" });
    const r2 = await service.refund({ keyId, idempotencyKey: "x" });
    expect(r1).toMatchObject({ duplicate: false, refunded_cents: 400, balance_cents: 1000 });
    expect(r2).toMatchObject({ duplicate: true, refunded_cents: 0, balance_cents: 1000 });
    await expect(service.refund({ keyId, idempotencyKey: "nope" })).rejects.toMatchObject({ code: "CHARGE_NOT_FOUND" });
  });

  it("the balance always equals the sum of the entries and a model of the rules (seeded random sequences)", async () => {
    for (const seed of [1, 2, 3]) {
      await t.reset();
      service = makeService(t.db, null, clock.now);
      clock.set("2026-01-30T00:00:00Z");
      const rand = mulberry32(seed);
      const pick = (n: number) => Math.floor(rand() * n);
      const { secret, keyId } = await fundedKey(2000);
      // The test's own model of the ledger rules.
      let balance = 2000;
      const freeUsed = new Map<string, number>();
      const charged = new Map<string, { partition: string; kind: string; cents: number; free: boolean }>();
      const refunded = new Set<string>();
      const month = () => clock.now().toISOString().slice(0, 7);
      for (let step = 0; step < 60; step++) {
        const op = pick(10);
        const context = `seed ${seed} step ${step} op ${op}`;
        if (op < 6) {
          const retry = charged.size > 0 && pick(4) === 0;
          const idem = retry ? [...charged.keys()][pick(charged.size)] : `i${step}`;
          const prior = charged.get(idem);
          const kind = prior
            ? (prior.kind as BundleCharge["kind"])
            : (["bootstrap", "backfill", "repair"] as const)[pick(3)];
          const partition = prior ? prior.partition : `p${step}`;
          const price = prior ? prior.cents : 50 * (1 + pick(12));
          const r = await service.chargeForBundle(secret, bundle(partition, price, kind), idem);
          if (prior) {
            expect(r, context).toMatchObject({ ok: true, replayed: true });
          } else {
            const free = kind === "repair" && (freeUsed.get(month()) ?? 0) < 6;
            if (free) {
              freeUsed.set(month(), (freeUsed.get(month()) ?? 0) + 1);
              expect(r, context).toMatchObject({ ok: true, free: true, chargedCents: 0 });
              charged.set(idem, { partition, kind, cents: price, free: true });
            } else if (price <= balance) {
              balance -= price;
              expect(r, context).toMatchObject({ ok: true, free: false, chargedCents: price });
              charged.set(idem, { partition, kind, cents: price, free: false });
            } else expect(r, context).toMatchObject({ ok: false, error: "INSUFFICIENT_CREDITS" });
          }
        } else if (op < 7) {
          const cents = 100 * (1 + pick(5));
          await service.grant({ keyId, amountCents: cents });
          balance += cents;
        } else if (op < 8) {
          const paid = [...charged].filter(([, c]) => !c.free);
          if (paid.length) {
            const [idem, c] = paid[pick(paid.length)];
            const r = await service.refund({ keyId, idempotencyKey: idem });
            if (!refunded.has(idem)) {
              refunded.add(idem);
              balance += c.cents;
              expect(r.duplicate, context).toBe(false);
            } else expect(r.duplicate, context).toBe(true);
          }
        } else {
          clock.set(new Date(clock.now().getTime() + (1 + pick(5)) * 86_400_000).toISOString());
        }
        const view = await service.balance(secret);
        expect(view.balance_cents, context).toBe(balance);
        expect(await sumOfEntries(t.db, keyId), context).toBe(balance);
        expect(balance, context).toBeGreaterThanOrEqual(0);
      }
    }
  });
});

/** A small seeded PRNG (public-domain mulberry32): the sequences are the same on every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
