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
import { EndpointPool } from "./http1-client.js";
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
  /** The endpoint's keep-alive pool (http1-client.ts): plain-http targets go through it. */
  pool?: EndpointPool;
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
  if (options.pool && target.protocol === "http:") {
    return options.pool.post(headers, body, options.timeoutMs).then((r) => {
      const status = r.status;
      if (status === null) return done({ status: null, retryAfter: undefined, excerpt: null, error: r.error });
      return done({
        status,
        retryAfter: r.retryAfter,
        excerpt: r.body?.length ? excerptOf(r.body, r.truncated) : null,
        error: statusError(status, r.location),
      });
    });
  }
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
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      path: target.path,
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
        const excerpt = excerptOf(Buffer.concat(chunks), truncated);
        const retryAfter = typeof res.headers["retry-after"] === "string" ? res.headers["retry-after"] : undefined;
        const location = res.headers.location ? String(res.headers.location) : undefined;
        finish({ status, retryAfter, excerpt: excerpt || null, error: statusError(status, location) });
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

/** The log excerpt of a response body: its first characters, with an ellipsis when cut. */
function excerptOf(body: Buffer, truncated: boolean): string {
  const text = body.toString("utf8");
  return text.length > EXCERPT_CHARS || truncated ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/** Why a response status is a failed attempt (null: it is a success). */
function statusError(status: number, location: string | undefined): string | null {
  if (status >= 300 && status < 400) {
    return `redirect not followed (${status}${location ? ` to ${location.slice(0, 200)}` : ""})`;
  }
  if (status < 200 || status >= 300) return `endpoint answered ${status}`;
  return null;
}

type RequestTarget = Pick<http.RequestOptions, "protocol" | "hostname" | "port" | "path"> & {
  /** The Host header (host name and a non-default port). */
  host: string;
};

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
          host: verdict.url.host,
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

/**
 * Keep-alive connections, one set per endpoint, sized to its concurrency: a pool of the small
 * HTTP/1.1 client for plain-http URLs (`pool`), node:http agents otherwise (`get`).
 */
export function createEndpointAgents(): {
  get(key: string, url: string, maxSockets: number): http.Agent;
  /** The endpoint's pool, or undefined when its URL is not plain http (or is refused: postDelivery says why). */
  pool(key: string, url: string, maxSockets: number, allowPrivate: boolean): EndpointPool | undefined;
  destroy(): void;
} {
  const agents = new Map<string, { agent: http.Agent; maxSockets: number; https: boolean }>();
  const pools = new Map<string, { pool: EndpointPool; url: string; allowPrivate: boolean }>();
  return {
    pool(key, url, maxSockets, allowPrivate) {
      const existing = pools.get(key);
      if (existing && existing.url === url && existing.allowPrivate === allowPrivate) {
        existing.pool.maxSockets = maxSockets;
        return existing.pool;
      }
      existing?.pool.close();
      pools.delete(key);
      const target = requestTarget(url, allowPrivate);
      if (typeof target === "string" || target.protocol !== "http:") return undefined;
      const pool = new EndpointPool(
        {
          hostname: target.hostname ?? "",
          port: Number(target.port ?? 80),
          path: target.path ?? "/",
          host: target.host,
          lookup: allowPrivate ? lookupAllowingPrivate : lookupPublicOnly,
        },
        maxSockets,
        MAX_RESPONSE_BYTES,
      );
      pools.set(key, { pool, url, allowPrivate });
      return pool;
    },
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
      for (const { pool } of pools.values()) pool.close();
      pools.clear();
    },
  };
}
