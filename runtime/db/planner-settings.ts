/**
 * Planner costs for our own sessions. PostgreSQL's default random_page_cost (4) models spinning
 * disks; with it, a keyset page over a low-selectivity filter (`asset_identifier=<token>`, 2% of
 * a million holdings) walks the primary key through ~2,500 rows instead of reading 51 entries of
 * the `(asset_identifier, _id)` index: 1.5 ms against 0.18 ms measured on PostgreSQL 15. The
 * value used is the usual one for SSDs or a cached working set; a server whose operator has set
 * random_page_cost keeps that setting.
 */
export const DEFAULT_RANDOM_PAGE_COST = "4";
/** Reads the server's setting (column `cost`) before our sessions change it. */
export const SERVER_RANDOM_PAGE_COST_SQL = "SELECT current_setting('random_page_cost') AS cost";
export const SESSION_RANDOM_PAGE_COST = "1.1";

/** The settings our sessions start with: none when the server's random_page_cost is not the default. */
export function plannerSessionSettings(serverRandomPageCost: string): Record<string, string> {
  return serverRandomPageCost.trim() === DEFAULT_RANDOM_PAGE_COST ? { random_page_cost: SESSION_RANDOM_PAGE_COST } : {};
}

/** As a libpq `options` value (`-c name=value …`), applied when each connection starts. */
export function startupOptions(settings: Record<string, string>): string | undefined {
  const parts = Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`);
  return parts.length ? parts.join(" ") : undefined;
}
