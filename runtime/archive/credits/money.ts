/**
 * Pure money and quota rules of archive credits (SPEC.md "Authentication" → archive credits;
 * "Limits"): packs of $10, $25, $50, $100; integer cents everywhere; six free repair bundles per
 * calendar month (UTC); the auto-refill trigger; the cost line an instance shows before a charge.
 */

/** Pack sizes in whole dollars (SPEC.md "Limits": credit packs). */
export const PACK_DOLLARS = [10, 25, 50, 100] as const;

/** Free repair bundles per credit key per calendar month, UTC (SPEC.md "Limits"). */
export const FREE_REPAIRS_PER_MONTH = 6;

/** What a bundle is fetched for; only repairs draw on the monthly free quota. */
export type BundleKind = "bootstrap" | "backfill" | "repair";
export const BUNDLE_KINDS: readonly BundleKind[] = ["bootstrap", "backfill", "repair"];

/** One bundle to charge for; the price comes from the archive's manifest. */
export interface BundleCharge {
  /** The partition's bundle file or height range, recorded on the ledger entry. */
  partition: string;
  priceCents: number;
  kind: BundleKind;
}

/** `2512` → `$25.12`; negative amounts keep their sign in front (`-$1.50`). */
export function formatDollars(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/**
 * A dollar amount typed by a person (`5`, `5.5`, `12.34`, `$25`) → cents, or null when it is not a
 * non-negative amount with at most two decimals. Parsed as text: 0.1 + 0.2 never enters.
 */
export function parseDollars(input: string | number): number | null {
  const text = String(input).trim().replace(/^\$/, "");
  const m = /^(\d{1,7})(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
}

/** A pack choice (`25`, `$25`, `25.00`) → cents, or null when it is not one of the packs. */
export function parsePack(input: string | number): number | null {
  const cents = parseDollars(input);
  return cents !== null && (PACK_DOLLARS as readonly number[]).includes(cents / 100) ? cents : null;
}

/** The calendar month (UTC) holding `now`: [start, end). The free repair counter resets at `end`. */
export function monthWindow(now: Date): { start: Date; end: Date } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  return { start: new Date(Date.UTC(y, m, 1)), end: new Date(Date.UTC(y, m + 1, 1)) };
}

/**
 * Auto-refill fires when a charge takes the balance from at or above the threshold to below it:
 * one crossing, one refill, however many charges follow while the balance stays below.
 */
export function crossesThreshold(beforeCents: number, afterCents: number, thresholdCents: number): boolean {
  return beforeCents >= thresholdCents && afterCents < thresholdCents;
}

/** What a planned restore costs against a balance, before any charge. */
export interface CostEstimate {
  bundles: number;
  /** Repair bundles this month's free quota covers. */
  freeBundles: number;
  costCents: number;
  balanceCents: number;
  /** True when the balance covers the cost (the balance is the hard cap). */
  affordable: boolean;
  /** "N bundles, $X, balance $Y" (with the free repairs when some apply). */
  line: string;
}

/**
 * The cost of fetching `prices` (cents per bundle, in the order they will be fetched) for `kind`,
 * with `freeRepairsLeft` of this month's free repairs: the archive grants the free ones to the
 * first repair bundles it is asked for, so they cover the head of the list.
 */
export function estimateCost(
  prices: readonly number[],
  kind: BundleKind,
  balanceCents: number,
  freeRepairsLeft: number,
): CostEstimate {
  const free = kind === "repair" ? Math.min(Math.max(freeRepairsLeft, 0), prices.length) : 0;
  const costCents = prices.slice(free).reduce((s, p) => s + p, 0);
  const n = prices.length;
  const freeNote = free > 0 ? ` (${free} free repair${free === 1 ? "" : "s"} this month)` : "";
  return {
    bundles: n,
    freeBundles: free,
    costCents,
    balanceCents,
    affordable: costCents <= balanceCents,
    line: `${n} bundle${n === 1 ? "" : "s"}, ${formatDollars(costCents)}${freeNote}, balance ${formatDollars(balanceCents)}`,
  };
}

/** The message an instance stops with when the balance is short, naming the command that buys more. */
export function shortBalanceMessage(estimate: CostEstimate): string {
  const short = estimate.costCents - estimate.balanceCents;
  const pack = PACK_DOLLARS.find((p) => p * 100 >= short) ?? PACK_DOLLARS[PACK_DOLLARS.length - 1];
  return [
    `the archive credit balance is short by ${formatDollars(short)}: ${estimate.line}`,
    `buy credits: sluice archive buy --pack ${pack} --email you@example.com`,
  ].join("\n");
}
