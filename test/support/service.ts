/** Starts the real service in-process on ephemeral ports against a test database. */
import { parseConfig } from "../../runtime/config/index.js";
import type { NetworkContracts } from "../../runtime/config/networks.js";
import type { Db } from "../../runtime/db/types.js";
import { silentLogger } from "../../runtime/internal/logger.js";
import { type Service, type ServiceOptions, startService as start } from "../../runtime/service.js";

export async function startTestService(
  db: Db,
  env: Record<string, string> = {},
  options: Partial<Pick<ServiceOptions, "dispatcher" | "hooks">> & { contracts?: Partial<NetworkContracts> } = {},
): Promise<Service> {
  const { contracts, ...rest } = options;
  const parsed = parseConfig({ API_PORT: "0", OBSERVER_PORT: "0", DATA_DIR: ".tmp/unused", ...env });
  // `contracts` stands in for the network's ids, for recordings made under other deployers.
  const config = contracts ? { ...parsed, contracts: { ...parsed.contracts, ...contracts } } : parsed;
  return start({ config, logger: silentLogger, db, ...rest });
}

/** POSTs one observer request and expects 200. */
export async function postObserver(observerUrl: string, path: string, body: string): Promise<void> {
  const res = await fetch(observerUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  if (res.status !== 200) throw new Error(`observer answered ${res.status} for ${path}: ${await res.text()}`);
}

/**
 * Starts a service on `db`, posts every request to its observer, waits until the chain and the
 * subgraphs have taken them all in, and stops it.
 */
export async function ingestThroughService(
  db: Db,
  requests: readonly { path: string; body: string }[],
  env: Record<string, string> = {},
): Promise<void> {
  const service = await startTestService(db, env);
  try {
    for (const r of requests) await postObserver(service.observerUrl, r.path, r.body);
    await service.idle();
    await service.subgraphs.idle();
  } finally {
    await service.stop();
  }
}

/** Polls until fn returns a truthy value (never sleeps a fixed time). */
export async function waitFor<T>(
  fn: () => Promise<T> | T,
  { timeoutMs = 30_000, intervalMs = 50 } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error("waitFor timed out");
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
