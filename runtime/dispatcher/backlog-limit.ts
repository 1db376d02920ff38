/**
 * WEBHOOK_MAX_PENDING for live deliveries, pure: how many of a webhook's new rows go to the outbox
 * now, and which of its held shares go out once it drains. A webhook never gets a row that would
 * take it past the limit; what does not fit is held (control.webhook_held) and goes out later,
 * oldest first, so its rows keep the order they were recorded in.
 */

/** What the expander knows of a webhook when a share of a batch comes to it. */
export interface WebhookLoad {
  /** Deliveries outstanding (status pending), counted up to a cap above the limit. */
  pending: number;
  /** Older shares of it are held: new ones wait behind them. */
  held: boolean;
}

/** Rows of a new share of `rows` deliveries that go to the outbox now (the first ones; the rest is held). */
export function admittedRows(load: WebhookLoad, rows: number, limit: number): number {
  if (load.held) return 0;
  return Math.max(0, Math.min(rows, limit - load.pending));
}

/** Held shares to release: the first `whole` entirely, then the first `partial` rows of the next. */
export interface ReleasePlan {
  whole: number;
  partial: number;
}

/**
 * What a webhook with `pending` deliveries outstanding takes of its held shares (sizes oldest
 * first): whole shares while they fit under the limit, then as many rows of the next as still fit.
 */
export function releasePlan(pending: number, sizes: readonly number[], limit: number): ReleasePlan {
  let room = limit - pending;
  let whole = 0;
  while (whole < sizes.length && room > 0 && sizes[whole] <= room) room -= sizes[whole++];
  const partial = whole < sizes.length && room > 0 ? room : 0;
  return { whole, partial };
}
