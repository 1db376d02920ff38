/**
 * The archive server's credit settings, from the environment, parsed once and all problems listed:
 * the ledger's own database (ARCHIVE_CREDITS_DATABASE_URL, else an embedded one in
 * ARCHIVE_CREDITS_DIR), the operator token, and Stripe (secret key, webhook secret, return URL).
 */
import path from "node:path";
import { openDb } from "../../db/index.js";
import type { Db } from "../../db/types.js";
import { ConfigError } from "../../internal/errors.js";
import { migrateCredits } from "./migrations.js";
import type { PaymentProvider } from "./provider.js";
import { createStripeProvider } from "./stripe-provider.js";

/** Price of one manifest price unit when ARCHIVE_UNIT_PRICE_CENTS is unset. */
export const DEFAULT_UNIT_PRICE_CENTS = 10;

export interface CreditsConfig {
  databaseUrl: string | null;
  /** Embedded ledger directory (its own database, apart from any instance's). */
  dir: string;
  operatorToken: string | null;
  /** Cents per manifest price unit (ARCHIVE_UNIT_PRICE_CENTS, default 10). */
  unitPriceCents: number;
  stripe: { secretKey: string; webhookSecret: string; returnUrl: string } | null;
}

/** Reads the variables; throws ConfigError naming every bad or missing one. */
export function parseCreditsConfig(env: NodeJS.ProcessEnv, dataDir: string): CreditsConfig {
  const problems: string[] = [];
  const get = (name: string) => {
    const v = env[name]?.trim();
    return v ? v : null;
  };
  const databaseUrl = get("ARCHIVE_CREDITS_DATABASE_URL");
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl))
    problems.push("ARCHIVE_CREDITS_DATABASE_URL must be a postgres:// URL");
  const operatorToken = get("ARCHIVE_OPERATOR_TOKEN");
  if (operatorToken && operatorToken.length < 16)
    problems.push("ARCHIVE_OPERATOR_TOKEN must be at least 16 characters");
  const unitRaw = get("ARCHIVE_UNIT_PRICE_CENTS") ?? String(DEFAULT_UNIT_PRICE_CENTS);
  const unitPriceCents = Number(unitRaw);
  if (!/^\d{1,6}$/.test(unitRaw))
    problems.push("ARCHIVE_UNIT_PRICE_CENTS must be a whole number of cents (0 to 999999)");
  const secretKey = get("STRIPE_SECRET_KEY");
  const webhookSecret = get("STRIPE_WEBHOOK_SECRET");
  const returnUrl = get("ARCHIVE_CHECKOUT_RETURN_URL");
  let stripe: CreditsConfig["stripe"] = null;
  if (secretKey || webhookSecret) {
    if (!secretKey) problems.push("STRIPE_SECRET_KEY is required with STRIPE_WEBHOOK_SECRET");
    if (!webhookSecret) problems.push("STRIPE_WEBHOOK_SECRET (whsec_…) is required with STRIPE_SECRET_KEY");
    if (!returnUrl || !/^https?:\/\//.test(returnUrl))
      problems.push("ARCHIVE_CHECKOUT_RETURN_URL (http(s) page the buyer returns to) is required with Stripe");
    if (secretKey && webhookSecret && returnUrl) stripe = { secretKey, webhookSecret, returnUrl };
  }
  if (problems.length) throw new ConfigError(problems);
  return {
    databaseUrl,
    dir: get("ARCHIVE_CREDITS_DIR") ?? path.join(dataDir, "credits"),
    operatorToken,
    unitPriceCents,
    stripe,
  };
}

/** Opens and migrates the ledger's database. */
export async function openCreditsDb(config: CreditsConfig): Promise<Db> {
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dir });
  try {
    await migrateCredits(db);
    return db;
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** The configured payment provider, or null when the archive sells nothing. */
export function providerFromConfig(config: CreditsConfig): PaymentProvider | null {
  if (!config.stripe) return null;
  const back = config.stripe.returnUrl;
  return createStripeProvider({
    secretKey: config.stripe.secretKey,
    webhookSecret: config.stripe.webhookSecret,
    successUrl: `${back}${back.includes("?") ? "&" : "?"}checkout=paid`,
    cancelUrl: `${back}${back.includes("?") ? "&" : "?"}checkout=cancelled`,
  });
}
