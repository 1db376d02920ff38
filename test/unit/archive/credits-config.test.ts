/** The archive server's credit settings: defaults, Stripe all-or-nothing, every problem listed. */
import { describe, expect, it } from "vitest";
import { parseCreditsConfig } from "../../../runtime/archive/credits/config.js";
import { ConfigError } from "../../../runtime/internal/errors.js";

describe("parseCreditsConfig", () => {
  it("defaults to an embedded ledger under DATA_DIR, no operator, no provider, 10 cents a unit", () => {
    expect(parseCreditsConfig({}, "/srv/data")).toEqual({
      databaseUrl: null,
      dir: "/srv/data/credits",
      operatorToken: null,
      unitPriceCents: 10,
      stripe: null,
    });
  });

  it("takes PostgreSQL, the operator token, the unit price and Stripe", () => {
    const c = parseCreditsConfig(
      {
        ARCHIVE_CREDITS_DATABASE_URL: "postgres://db/credits",
        ARCHIVE_OPERATOR_TOKEN: "a-long-operator-token",
        ARCHIVE_UNIT_PRICE_CENTS: "25",
        STRIPE_SECRET_KEY: "sk_live_x",
        STRIPE_WEBHOOK_SECRET: "whsec_x",
        ARCHIVE_CHECKOUT_RETURN_URL: "https://archive.example/thanks",
      },
      "/d",
    );
    expect(c).toMatchObject({
      databaseUrl: "postgres://db/credits",
      operatorToken: "a-long-operator-token",
      unitPriceCents: 25,
      stripe: { secretKey: "sk_live_x", webhookSecret: "whsec_x", returnUrl: "https://archive.example/thanks" },
    });
  });

  it("lists every problem at once", () => {
    let err: unknown;
    try {
      parseCreditsConfig(
        {
          ARCHIVE_CREDITS_DATABASE_URL: "mysql://x",
          ARCHIVE_OPERATOR_TOKEN: "short",
          ARCHIVE_UNIT_PRICE_CENTS: "1.5",
          STRIPE_SECRET_KEY: "sk_test_x",
        },
        "/d",
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      "ARCHIVE_CREDITS_DATABASE_URL must be a postgres:// URL",
      "ARCHIVE_OPERATOR_TOKEN must be at least 16 characters",
      "ARCHIVE_UNIT_PRICE_CENTS must be a whole number of cents (0 to 999999)",
      "STRIPE_WEBHOOK_SECRET (whsec_…) is required with STRIPE_SECRET_KEY",
      "ARCHIVE_CHECKOUT_RETURN_URL (http(s) page the buyer returns to) is required with Stripe",
    ]);
  });
});
