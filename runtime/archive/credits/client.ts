/**
 * The instance's side of the credits API (routes.ts): balance, buy, auto-refill and operator
 * grants over HTTP, and where the instance keeps its credit key (ARCHIVE_CREDIT_KEY, else the file
 * DATA_DIR/archive-credit-key written when a purchase made the key). Errors carry the server's code.
 */
import fs from "node:fs";
import path from "node:path";
import type { BalanceView } from "./service.js";

export class CreditsRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message);
    this.name = "CreditsRequestError";
  }
}

async function request<T>(
  archiveUrl: string,
  method: string,
  route: string,
  o: { bearer?: string | null; body?: unknown } = {},
): Promise<T> {
  const url = `${archiveUrl.replace(/\/+$/, "")}/credits${route}`;
  const headers: Record<string, string> = { accept: "application/json" };
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  if (o.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  } catch (err) {
    throw new CreditsRequestError(`cannot reach the archive at ${url}: ${(err as Error).message}`, 0, "UNREACHABLE");
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CreditsRequestError(
      `${url} answered ${res.status} with a body that is not JSON`,
      res.status,
      "BAD_RESPONSE",
    );
  }
  if (!res.ok) {
    const e = parsed as { error?: string; code?: string };
    throw new CreditsRequestError(e.error ?? `HTTP ${res.status}`, res.status, e.code ?? "HTTP_ERROR");
  }
  return parsed as T;
}

export function fetchBalance(archiveUrl: string, creditKey: string): Promise<BalanceView> {
  return request(archiveUrl, "GET", "/balance", { bearer: creditKey });
}

export function openCheckout(
  archiveUrl: string,
  o: { pack: number; email: string; creditKey: string | null },
): Promise<{ checkout_url: string; session_id: string; key_id: string; credit_key?: string }> {
  return request(archiveUrl, "POST", "/checkout", { bearer: o.creditKey, body: { pack: o.pack, email: o.email } });
}

export function putAutoRefill(
  archiveUrl: string,
  creditKey: string,
  setting: { threshold: string; pack: number } | null,
): Promise<BalanceView> {
  return setting
    ? request(archiveUrl, "PUT", "/auto-refill", { bearer: creditKey, body: setting })
    : request(archiveUrl, "DELETE", "/auto-refill", { bearer: creditKey });
}

export function postGrant(
  archiveUrl: string,
  operatorToken: string,
  body: { key_id?: string; amount: string; note?: string; idempotency_key?: string },
): Promise<{ key_id: string; credit_key?: string; duplicate: boolean; balance_cents: number }> {
  return request(archiveUrl, "POST", "/grants", { bearer: operatorToken, body });
}

export const CREDIT_KEY_FILE = "archive-credit-key";

/** The instance's credit key: ARCHIVE_CREDIT_KEY, else DATA_DIR/archive-credit-key, else null. */
export function loadCreditKey(env: NodeJS.ProcessEnv, dataDir: string): string | null {
  const fromEnv = env.ARCHIVE_CREDIT_KEY?.trim();
  if (fromEnv) return fromEnv;
  try {
    return fs.readFileSync(path.join(dataDir, CREDIT_KEY_FILE), "utf8").trim() || null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/** Keeps a new key readable by this user only; never overwrites a key already saved. Returns the path. */
export function saveCreditKey(dataDir: string, secret: string): string | null {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, CREDIT_KEY_FILE);
  try {
    fs.writeFileSync(file, `${secret}\n`, { flag: "wx", mode: 0o600 });
    return file;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return null;
    throw err;
  }
}
