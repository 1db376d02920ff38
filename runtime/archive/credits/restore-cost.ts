/**
 * The instance's check before a bootstrap, backfill or repair fetches bundles: what the plan
 * costs against the credit balance ("N bundles, $X, balance $Y"), stopping with the buy command
 * when the balance is short. The archive enforces the cap again on every charge; this is the
 * early, readable refusal.
 */
import { fetchBalance } from "./client.js";
import { type BundleKind, type CostEstimate, estimateCost, formatDollars, shortBalanceMessage } from "./money.js";

export class CreditsShortError extends Error {
  constructor(
    message: string,
    readonly estimate: CostEstimate | null,
  ) {
    super(message);
    this.name = "CreditsShortError";
  }
}

/**
 * The cost of fetching bundles priced `prices` (cents, in fetch order). Throws CreditsShortError
 * when the plan costs money and there is no key or not enough balance.
 */
export async function checkRestoreCost(
  archiveUrl: string,
  creditKey: string | null,
  prices: readonly number[],
  kind: BundleKind,
): Promise<CostEstimate> {
  const total = prices.reduce((s, p) => s + p, 0);
  if (creditKey === null) {
    if (total === 0) return estimateCost(prices, kind, 0, 0);
    throw new CreditsShortError(
      [
        `${prices.length} bundle${prices.length === 1 ? "" : "s"} cost up to ${formatDollars(total)} and this instance has no credit key`,
        "buy credits: sluice archive buy --pack 25 --email you@example.com (or set ARCHIVE_CREDIT_KEY)",
      ].join("\n"),
      null,
    );
  }
  const view = await fetchBalance(archiveUrl, creditKey);
  const estimate = estimateCost(prices, kind, view.balance_cents, view.free_repairs_left);
  if (!estimate.affordable) throw new CreditsShortError(shortBalanceMessage(estimate), estimate);
  return estimate;
}
