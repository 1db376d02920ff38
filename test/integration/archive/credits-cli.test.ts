/**
 * The credit commands as a user runs them (`sluice archive buy | balance | auto-refill | credits
 * grant`, child processes) against a real credits server whose checkout goes to a local Stripe API
 * server; and the instance's cost check before a restore.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CreditsShortError, checkRestoreCost } from "../../../runtime/archive/credits/restore-cost.js";
import { createStripeProvider } from "../../../runtime/archive/credits/stripe-provider.js";
import { runCli } from "../../support/cli.js";
import { TEST_DB_KIND } from "../../support/db.js";
import {
  type CreditsDb,
  type CreditsServer,
  createCreditsDb,
  settableClock,
  startCreditsServer,
} from "../../support/credits.js";
import { type FakeStripe, startFakeStripe } from "../../support/stripe-api.js";

const WHSEC = "whsec_cli_test_secret";
const OPERATOR = "cli-operator-token-0123456789";

let t: CreditsDb;
let fake: FakeStripe;
let server: CreditsServer;
let dataDir: string;
const clock = settableClock("2026-07-15T08:00:00Z");

// The commands and the cost check talk to the credits server over HTTP: what they show does not
// depend on the server's database, whose storage the credits ledger and HTTP suites cover on both.
describe.skipIf(TEST_DB_KIND !== "pglite")("archive credits from the command line", () => {
  beforeAll(async () => {
    t = await createCreditsDb();
    fake = await startFakeStripe();
    const provider = createStripeProvider({
      secretKey: "sk_test_cli",
      webhookSecret: WHSEC,
      successUrl: "https://archive.example/paid",
      cancelUrl: "https://archive.example/cancelled",
      api: { host: fake.host, port: fake.port, protocol: "http" },
    });
    server = await startCreditsServer({ db: t.db, provider, now: clock.now, operatorToken: OPERATOR });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-credits-cli-"));
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
    await t.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string> = {}) => ({ ARCHIVE_URL: server.url, DATA_DIR: dataDir, ...extra });

  /** Plays the buyer paying the last checkout opened, and Stripe posting the signed event. */
  async function payLatestCheckout(): Promise<void> {
    const { rows } = await t.db.query<{ session_id: string }>(
      "SELECT session_id FROM credits.checkouts ORDER BY created_at DESC, session_id LIMIT 1",
    );
    const event = JSON.stringify(fake.event("checkout.session.completed", fake.pay(rows[0].session_id)));
    const header = new Stripe("sk_test_x").webhooks.generateTestHeaderString({ payload: event, secret: WHSEC });
    const res = await fetch(`${server.url}/credits/provider-events`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": header },
      body: event,
    });
    expect(res.status).toBe(200);
  }

  describe("sluice archive credit commands", () => {
    it("buy prints the checkout URL and the new key once, saves the key, and balance reads it", async () => {
      const bought = await runCli(["archive", "buy", "--pack", "25", "--email", "ops@example.com"], env());
      expect(bought.code, bought.stderr).toBe(0);
      const { rows } = await t.db.query<{ session_id: string }>("SELECT session_id FROM credits.checkouts");
      expect(rows).toHaveLength(1);
      expect(bought.stdout).toContain(`https://checkout.stripe.test/c/pay/${rows[0].session_id}`);
      const secret = /(sck_[A-Za-z0-9_-]{43})/.exec(bought.stdout)?.[1];
      const keyFile = path.join(dataDir, "archive-credit-key");
      expect(fs.readFileSync(keyFile, "utf8").trim()).toBe(secret);
      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);

      await payLatestCheckout();
      const balance = await runCli(["archive", "balance"], env());
      expect(balance.code, balance.stderr).toBe(0);
      expect(balance.stdout).toContain("balance $25.00");
      expect(balance.stdout).toContain("free repair bundles left this month: 6 (resets 2026-08-01)");
      expect(balance.stdout).toContain("auto-refill: off");

      // A second purchase tops the same key up: no new key is printed.
      const again = await runCli(["archive", "buy", "--pack", "10", "--email", "ops@example.com"], env());
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).not.toContain("sck_");
    });

    it("auto-refill is set with a threshold and a pack, and turned off", async () => {
      const set = await runCli(["archive", "auto-refill", "--threshold", "5", "--pack", "25"], env());
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout).toContain("auto-refill: below $5.00, buy the $25.00 pack");
      const off = await runCli(["archive", "auto-refill", "--off"], env());
      expect(off.code, off.stderr).toBe(0);
      expect(off.stdout).toContain("auto-refill: off");
    });

    it("credits grant needs the operator token and prints a new key once", async () => {
      const denied = await runCli(["archive", "credits", "grant", "--amount", "10"], env());
      expect(denied.code).toBe(1);
      expect(denied.stderr).toContain("ARCHIVE_OPERATOR_TOKEN");
      const wrong = await runCli(
        ["archive", "credits", "grant", "--amount", "10"],
        env({ ARCHIVE_OPERATOR_TOKEN: "not-the-token-at-all" }),
      );
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain("(UNAUTHORIZED)");
      const granted = await runCli(
        ["archive", "credits", "grant", "--amount", "12.50", "--note", "self-hosted"],
        env({ ARCHIVE_OPERATOR_TOKEN: OPERATOR }),
      );
      expect(granted.code, granted.stderr).toBe(0);
      expect(granted.stdout).toMatch(/granted \$12\.50 to ck_\S+; balance \$12\.50/);
      const secret = /(sck_[A-Za-z0-9_-]{43})/.exec(granted.stdout)?.[1] as string;
      const balance = await runCli(["archive", "balance"], env({ ARCHIVE_CREDIT_KEY: secret }));
      expect(balance.stdout).toContain("balance $12.50");
    });

    it("bad input exits non-zero with a message, never a stack trace", async () => {
      const cases: [string[], Record<string, string>, RegExp][] = [
        [["archive", "buy", "--pack", "20", "--email", "a@b.co"], env(), /must be one of 10, 25, 50, 100/],
        [["archive", "buy", "--pack", "25", "--email", "nope"], env(), /must be an e-mail address/],
        [["archive", "auto-refill"], env(), /give --threshold DOLLARS and --pack DOLLARS, or --off/],
        [["archive", "auto-refill", "--threshold", "-1", "--pack", "25"], env(), /dollar amount above zero/],
        [["archive", "balance"], { ARCHIVE_URL: server.url, DATA_DIR: path.join(dataDir, "empty") }, /no credit key/],
        [["archive", "balance"], { DATA_DIR: dataDir, ARCHIVE_URL: "" }, /no archive: pass --archive URL/],
        [["archive", "balance"], env({ ARCHIVE_CREDIT_KEY: `sck_${"z".repeat(43)}` }), /INVALID_CREDIT_KEY/],
      ];
      for (const [args, e, message] of cases) {
        const r = await runCli(args, e);
        expect(r.code, args.join(" ")).not.toBe(0);
        expect(r.stderr, args.join(" ")).toMatch(message);
        expect(r.stderr).not.toMatch(/\n\s+at /);
      }
    });
  });

  describe("the cost check before a restore", () => {
    it("states bundles, price and balance, and stops with the buy command when the balance is short", async () => {
      const grant = await server.service.grant({ keyId: null, amountCents: 1000 });
      const key = grant.credit_key as string;
      const ok = await checkRestoreCost(server.url, key, [300, 300, 300], "bootstrap");
      expect(ok.line).toBe("3 bundles, $9.00, balance $10.00");
      // Repairs: the month's six free ones cover the first six bundles.
      const repair = await checkRestoreCost(server.url, key, [500, 500, 500, 500, 500, 500, 500, 500], "repair");
      expect(repair.line).toBe("8 bundles, $10.00 (6 free repairs this month), balance $10.00");
      const short = checkRestoreCost(server.url, key, [400, 400, 400], "backfill");
      await expect(short).rejects.toBeInstanceOf(CreditsShortError);
      await expect(short).rejects.toThrow(
        /short by \$2\.00: 3 bundles, \$12\.00, balance \$10\.00\nbuy credits: sluice archive buy --pack 10/,
      );
      await expect(checkRestoreCost(server.url, null, [100], "bootstrap")).rejects.toThrow(/no credit key/);
    });
  });
});
