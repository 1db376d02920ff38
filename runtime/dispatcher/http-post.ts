/**
 * One delivery attempt over HTTP (DESIGN.md §5): POST with a per-attempt deadline
 * covering connect, send and response; redirects are never followed (a 3xx is a failed attempt
 * naming its Location); the response body is read up to a cap and an excerpt kept for the log;
 * every address a host name resolves to is checked at connect time (no DNS-rebinding bypass of
 * the URL check). Connections are kept alive per endpoint (see createEndpointAgents).
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { checkResolved, checkWebhookUrl } from "./ssrf.js";

export interface PostOutcome {
  /** HTTP status, or null when no response arrived (connect error, timeout, refused target). */
  status: number | null;
  retryAfter: string | undefined;
  /** First bytes of the response body (UTF-8, at most EXCERPT_CHARS characters). */
  excerpt: string | null;
  error: string | null;
  durationMs: number;
}

export const MAX_RESPONSE_BYTES = 64 * 1024;
export const EXCERPT_CHARS = 1024;

export interface PostOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  agent?: http.Agent;
  now?: () => number;
}

/** Sends one POST and settles with its outcome; never rejects. */
export function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostOutcome> {
  const clock = options.now ?? Date.now;
  const started = clock();
  const done = (o: Omit<PostOutcome, "durationMs">): PostOutcome => ({
    ...o,
    durationMs: Math.max(0, clock() - started),
  });
  const target = requestTarget(url, options.allowPrivate);
  if (typeof target === "string")
    return Promise.resolve(done({ status: null, retryAfter: undefined, excerpt: null, error: target }));
  const payload = Buffer.from(body, "utf8");

  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (o: Omit<PostOutcome, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(o));
    };
    const mod = target.protocol === "https:" ? https : http;
    const req = mod.request({
      ...target,
      method: "POST",
      headers: { ...headers, "content-length": String(payload.length) },
      agent: options.agent,
      lookup: options.allowPrivate ? lookupAllowingPrivate : lookupPublicOnly,
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ status: null, retryAfter: undefined, excerpt: null, error: `timed out after ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    req.on("error", (err: NodeJS.ErrnoException) => {
      finish({ status: null, retryAfter: undefined, excerpt: null, error: describeError(err) });
    });
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const settle = (truncated: boolean) => {
        const text = Buffer.concat(chunks).toString("utf8");
        const excerpt = text.length > EXCERPT_CHARS || truncated ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
        const retryAfter = typeof res.headers["retry-after"] === "string" ? res.headers["retry-after"] : undefined;
        let error: string | null = null;
        if (status >= 300 && status < 400) {
          error = `redirect not followed (${status}${res.headers.location ? ` to ${String(res.headers.location).slice(0, 200)}` : ""})`;
        } else if (status < 200 || status >= 300) {
          error = `endpoint answered ${status}`;
        }
        finish({ status, retryAfter, excerpt: excerpt || null, error });
      };
      res.on("data", (chunk: Buffer) => {
        if (size >= MAX_RESPONSE_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_RESPONSE_BYTES) {
          // Enough for the log: stop reading and drop the connection rather than drain a huge body.
          settle(true);
          res.destroy();
        }
      });
      res.on("end", () => settle(false));
      res.on("error", () => settle(true));
      res.on("aborted", () => settle(true));
    });
    req.end(payload);
  });
}

type RequestTarget = Pick<http.RequestOptions, "protocol" | "hostname" | "port" | "path">;

/**
 * The checked URL as request options, or why it is refused. Kept per URL (the same few URLs get
 * every delivery): parsing and checking each time costs more than the rest of building a request.
 */
const targets = new Map<string, RequestTarget | string>();
const MAX_TARGETS = 10_000;

function requestTarget(url: string, allowPrivate: boolean): RequestTarget | string {
  const key = `${allowPrivate ? "p" : "-"}${url}`;
  let target = targets.get(key);
  if (target === undefined) {
    const verdict = checkWebhookUrl(url, allowPrivate);
    target = verdict.ok
      ? {
          protocol: verdict.url.protocol,
          // [::1] → ::1, as a request's hostname option expects
          hostname: verdict.url.hostname.replace(/^\[(.*)\]$/, "$1"),
          port: verdict.url.port || undefined,
          path: `${verdict.url.pathname}${verdict.url.search}`,
        }
      : verdict.reason;
    if (targets.size >= MAX_TARGETS) targets.clear();
    targets.set(key, target);
  }
  return target;
}

/** dns.lookup, refusing any resolved address that is not public (unless private targets are allowed). */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const verdict = checkResolved(
        addresses.map((a) => a.address),
        allowPrivate,
      );
      if (!verdict.ok) {
        const refused = Object.assign(new Error(verdict.reason), { code: "EADDRNOTALLOWED" });
        return callback(refused, "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

const lookupAllowingPrivate = guardedLookup(true);
const lookupPublicOnly = guardedLookup(false);

function describeError(err: NodeJS.ErrnoException): string {
  if (err.code === "EADDRNOTALLOWED") return err.message;
  return err.code ? `${err.code}: ${err.message}` : err.message;
}

/** Keep-alive agents, one per endpoint, sized to its concurrency. */
export function createEndpointAgents(): {
  get(key: string, url: string, maxSockets: number): http.Agent;
  destroy(): void;
} {
  const agents = new Map<string, { agent: http.Agent; maxSockets: number; https: boolean }>();
  return {
    get(key, url, maxSockets) {
      const isHttps = url.startsWith("https:");
      const existing = agents.get(key);
      if (existing && existing.maxSockets === maxSockets && existing.https === isHttps) return existing.agent;
      existing?.agent.destroy();
      const Agent = isHttps ? https.Agent : http.Agent;
      const agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: "lifo" });
      agents.set(key, { agent, maxSockets, https: isHttps });
      return agent;
    },
    destroy() {
      for (const { agent } of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}
