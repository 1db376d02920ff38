/**
 * The stacks-node's own RPC (STACKS_NODE_RPC_URL): `GET /v2/info`, fetched with a short timeout.
 * Never throws: an unreachable node, a timeout or an unexpected answer is a result to report.
 */

/** The fields of /v2/info that sluice reports (the node sends more; they are passed through). */
export interface NodeInfo {
  stacks_tip_height: number;
  burn_block_height: number;
  stacks_tip: string;
  [field: string]: unknown;
}

export type NodeInfoResult =
  | { reachable: true; info: NodeInfo; elapsed_ms: number }
  | { reachable: false; error: string; elapsed_ms: number };

export const NODE_RPC_TIMEOUT_MS = 2000;

export async function fetchNodeInfo(
  rpcUrl: string,
  timeoutMs = NODE_RPC_TIMEOUT_MS,
  now: () => number = Date.now,
): Promise<NodeInfoResult> {
  const target = new URL("v2/info", rpcUrl.endsWith("/") ? rpcUrl : `${rpcUrl}/`);
  const url = shownUrl(target.toString());
  const started = now();
  const elapsed = () => now() - started;
  try {
    // fetch refuses URLs with credentials: they travel as Basic authorization instead.
    const headers: Record<string, string> = { accept: "application/json" };
    if (target.username || target.password) {
      const user = decodeURIComponent(target.username);
      const pass = decodeURIComponent(target.password);
      headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
    }
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers });
    const text = await res.text();
    if (res.status !== 200) {
      return { reachable: false, error: `${url} answered HTTP ${res.status}`, elapsed_ms: elapsed() };
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { reachable: false, error: `${url} did not answer JSON`, elapsed_ms: elapsed() };
    }
    if (!isNodeInfo(body)) {
      return {
        reachable: false,
        error: `${url} answered without stacks_tip_height, burn_block_height and stacks_tip`,
        elapsed_ms: elapsed(),
      };
    }
    return { reachable: true, info: body, elapsed_ms: elapsed() };
  } catch (err) {
    return { reachable: false, error: describeFetchError(url, err, timeoutMs), elapsed_ms: elapsed() };
  }
}

function isNodeInfo(v: unknown): v is NodeInfo {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    Number.isInteger(o.stacks_tip_height) && Number.isInteger(o.burn_block_height) && typeof o.stacks_tip === "string"
  );
}

function describeFetchError(url: string, err: unknown, timeoutMs: number): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return `${url} did not answer within ${timeoutMs} ms`;
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `${url} is unreachable: ${cause ?? e?.message ?? String(err)}`;
}

/** The URL without credentials, as reports and errors show it. */
export function shownUrl(raw: string): string {
  const url = new URL(raw);
  url.username = "";
  url.password = "";
  return url.toString();
}
