/**
 * Archive credits (SPEC.md "Authentication" → archive credits): the public entry. The archive
 * server opens the ledger (`openCreditsDb`), makes the service (`createCreditsService`), mounts
 * `createCreditsRouter` at `/credits`, and calls `service.chargeForBundle` before it presigns a
 * bundle URL. Instances use `client.ts` and the CLI commands in command.ts.
 */
export { type CreditsConfig, openCreditsDb, parseCreditsConfig, providerFromConfig } from "./config.js";
export { migrateCredits } from "./migrations.js";
export {
  type BundleCharge,
  type BundleKind,
  type CostEstimate,
  estimateCost,
  formatDollars,
  FREE_REPAIRS_PER_MONTH,
  PACK_DOLLARS,
  shortBalanceMessage,
} from "./money.js";
export type { PaymentProvider, ProviderEvent } from "./provider.js";
export { createCreditsApp, createCreditsRouter, type CreditsRouterDeps } from "./routes.js";
export { type BalanceView, type ChargeResult, type CreditsService, createCreditsService } from "./service.js";
export { createStripeProvider, type StripeProviderOptions } from "./stripe-provider.js";
export { chargeStatus } from "./charge-status.js";
export { archiveCommandOf, formatBalance, registerArchiveCreditCommands } from "./command.js";
export { CreditsRequestError, fetchBalance, loadCreditKey } from "./client.js";
export { CreditsShortError, checkRestoreCost } from "./restore-cost.js";
export {
  bundleIdempotencyKey,
  bundlePriceCents,
  chargeHeaders,
  chargePresign,
  IDEMPOTENCY_HEADER,
  type PresignCharge,
} from "./presign-charge.js";
