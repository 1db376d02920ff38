/**
 * Configuration (DESIGN.md §6): parsed once from the environment into a frozen object.
 * Every bad value is reported, one clear line each, before anything starts.
 */
import { DEFAULT_PGLITE_SHARED_BUFFERS_MB } from "../db/pglite-settings.js";
import { defaultTemplateDir } from "../db/pglite-template.js";
import path from "node:path";
import { ConfigError } from "../internal/errors.js";
import { type AddressRange, parseAddressRanges } from "./address-allow-list.js";
import { NETWORKS, NETWORK_CONTRACTS, type Network, type NetworkContracts } from "./networks.js";
import { ROLES, type Role } from "../scale/roles.js";

export interface Config {
  apiHost: string;
  apiPort: number;
  /** host:port the API is published on; decides the loopback rules (SPEC.md Authentication 3). */
  apiPublishAddr: { host: string; port: number };
  publishedOnLoopback: boolean;
  observerHost: string;
  observerPort: number;
  /**
   * OBSERVER_ALLOW_FROM: the stacks-node addresses allowed to post (loopback always is), or null
   * when unset, which is only allowed while the observer binds to loopback.
   */
  observerAllowFrom: readonly AddressRange[] | null;
  /** INSTANCE_TOKEN, or the legacy SLUICE_API_KEY when the canonical one is unset. */
  instanceToken: string | null;
  databaseUrl: string | null;
  /**
   * DATABASE_READ_URL: PostgreSQL read replicas of DATABASE_URL (streaming standbys) that /v1 reads
   * may use (runtime/scale/read-replicas.ts); empty when unset. Never logged (they may hold passwords).
   */
  readReplicaUrls: readonly string[];
  /** READ_REPLICA_MAX_LAG_MS: a replica further behind the primary than this is not used. */
  readReplicaMaxLagMs: number;
  /** ROLE (or `sluice start --role`): this process's share of the service (runtime/scale/roles.ts). */
  role: Role;
  dataDir: string;
  network: Network;
  contracts: NetworkContracts;
  finalityBurnConfirmations: number;
  webhookAllowPrivate: boolean;
  /** WEBHOOK_MAX_COUNT: webhooks the instance accepts (creating one more is 409 WEBHOOK_LIMIT_REACHED). */
  webhookMaxCount: number;
  /** WEBHOOK_MAX_PENDING: outstanding deliveries per webhook; live ones beyond it are held, a replay at it is 429 WEBHOOK_BACKLOG_FULL. */
  webhookMaxPending: number;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  logFormat: "json" | "pretty";
  /** Largest observer body accepted, bytes (the genesis block is tens of MB). */
  observerBodyLimit: number;
  /** Memory for rendered Index / Streams pages (runtime/api/events/page-cache.ts), bytes; 0 = off. */
  pageCacheBytes: number;
  /** PGLITE_SHARED_BUFFERS_MB: the embedded database's shared_buffers (runtime/db/pglite.ts). */
  pgliteSharedBuffersMb: number;
  /**
   * PGLITE_TEMPLATE: the data-directory template a new embedded database is copied from
   * (runtime/db/pglite-template.ts; by default the one the build made), or null (`off`) for initdb.
   */
  pgliteTemplate: string | null;
  /**
   * SIGNING_KEY_SEED: base64 of a 32-byte ed25519 seed, or null to keep the key in DATA_DIR
   * (runtime/internal/signing-key.ts). Secret: never logged, never echoed in config errors.
   */
  signingKeySeed: string | null;
  /**
   * WEBHOOK_SECRET_KEY: base64 of a 32-byte AES-256-GCM key sealing webhook secrets at rest, or
   * null to keep it in DATA_DIR (runtime/dispatcher/secret-box.ts). Secret: never logged.
   */
  webhookSecretKey: string | null;
  /** STACKS_NODE_RPC_URL: the stacks-node's RPC (http(s)://host:20443), read by GET /api/node; null when unset. */
  stacksNodeRpcUrl: string | null;
  /** The Extended view's port (EXTENDED_PORT, EXTENDED_HOST, EXTENDED_PUBLISH_ADDR); null when off. */
  extended: ExtendedConfig | null;
}

/** Where the Extended view (docs/extended.md) listens and how it is published. */
export interface ExtendedConfig {
  host: string;
  port: number;
  /** Decides its loopback rule as API_PUBLISH_ADDR does the API's (SPEC.md Authentication 3). */
  publishAddr: { host: string; port: number };
  publishedOnLoopback: boolean;
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;

/** Parses the environment; throws ConfigError listing every problem. */
export function parseConfig(env: Env = process.env): Readonly<Config> {
  const problems: string[] = [];
  const str = (name: string, fallback: string) => {
    const v = env[name];
    return v === undefined || v === "" ? fallback : v;
  };
  const port = (name: string, fallback: number) => {
    const raw = str(name, String(fallback));
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isInteger(n) || n < 0 || n > 65535) {
      problems.push(`${name}=${JSON.stringify(raw)} is not a port number (0-65535)`);
      return fallback;
    }
    return n;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = str(name, fallback);
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    problems.push(`${name}=${JSON.stringify(raw)} is not one of: ${allowed.join(", ")}`);
    return fallback;
  };
  /** A whole number that `accept` allows, else `problem` (after `NAME="raw" `) is reported. */
  const wholeNumber = (name: string, fallback: number, accept: (n: number) => boolean, problem: string) => {
    const raw = str(name, String(fallback));
    if (/^\d+$/.test(raw) && accept(Number(raw))) return Number(raw);
    problems.push(`${name}=${JSON.stringify(raw)} ${problem}`);
    return fallback;
  };
  const bool = (name: string, fallback: boolean) => {
    const raw = str(name, String(fallback)).toLowerCase();
    if (["true", "1", "yes"].includes(raw)) return true;
    if (["false", "0", "no"].includes(raw)) return false;
    problems.push(`${name}=${JSON.stringify(env[name])} is not a boolean (true or false)`);
    return fallback;
  };

  const apiHost = str("API_HOST", "127.0.0.1");
  const apiPort = port("API_PORT", 3800);
  const observerHost = str("OBSERVER_HOST", "127.0.0.1");
  const observerPort = port("OBSERVER_PORT", 3700);
  const network = oneOf("NETWORK", NETWORKS, "mainnet");
  const logLevel = oneOf("LOG_LEVEL", LOG_LEVELS, "info");
  const logFormat = oneOf("LOG_FORMAT", ["json", "pretty"] as const, "json");
  const webhookAllowPrivate = bool("WEBHOOK_ALLOW_PRIVATE", false);

  const observerAllowFrom = addressRanges("OBSERVER_ALLOW_FROM", env.OBSERVER_ALLOW_FROM, problems);
  // A stacks-node cannot send a token: past loopback, its source address is the only check.
  if (!isLoopbackHost(observerHost) && observerAllowFrom === null) {
    problems.push(
      `the observer is reachable past loopback (OBSERVER_HOST=${observerHost}) but OBSERVER_ALLOW_FROM is not set: ` +
        "set OBSERVER_ALLOW_FROM to the stacks-node addresses (CIDRs, e.g. 10.0.0.5/32) or bind OBSERVER_HOST to 127.0.0.1",
    );
  }

  const publishRaw = env.API_PUBLISH_ADDR;
  let apiPublishAddr = { host: apiHost, port: apiPort };
  if (publishRaw !== undefined && publishRaw !== "") {
    const parsed = parseHostPort(publishRaw);
    if (parsed) apiPublishAddr = parsed;
    else problems.push(`API_PUBLISH_ADDR=${JSON.stringify(publishRaw)} is not host:port (e.g. 127.0.0.1:3800)`);
  }

  const finalityBurnConfirmations = wholeNumber(
    "FINALITY_BURN_CONFIRMATIONS",
    6,
    (n) => n <= 1000,
    "is not a whole number 0-1000",
  );
  const MB = 1024 * 1024;
  const observerBodyLimit =
    wholeNumber("OBSERVER_BODY_LIMIT_MB", 256, (n) => n >= 64, "must be a whole number of at least 64") * MB;

  const databaseUrl = env.DATABASE_URL ? env.DATABASE_URL : null;
  const role = oneOf("ROLE", ROLES, "all");
  // Roles split the service across processes sharing one database; the embedded one is in-process.
  if (role !== "all" && !databaseUrl) {
    problems.push(
      `ROLE=${role} needs PostgreSQL (DATABASE_URL): the embedded database serves one process, which runs every role (ROLE=all)`,
    );
  }
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push("DATABASE_URL must start with postgres:// or postgresql://");
  }

  const readReplicaUrls = replicaUrls("DATABASE_READ_URL", env.DATABASE_READ_URL, problems);
  // Replicas follow a PostgreSQL primary; the embedded database has none.
  if (readReplicaUrls.length && !databaseUrl) {
    problems.push(
      "DATABASE_READ_URL needs DATABASE_URL: read replicas follow a PostgreSQL primary, not the embedded database",
    );
  }
  const readReplicaMaxLagMs = wholeNumber(
    "READ_REPLICA_MAX_LAG_MS",
    DEFAULT_READ_REPLICA_MAX_LAG_MS,
    (n) => n >= 1 && n <= 3_600_000,
    "is not a whole number of milliseconds 1-3600000",
  );

  const instanceToken = env.INSTANCE_TOKEN || env.SLUICE_API_KEY || null;
  const publishedOnLoopback = isLoopbackHost(apiPublishAddr.host);
  // SPEC.md Authentication 4: binding past loopback with no token refuses to start.
  if (!instanceToken && (!publishedOnLoopback || !isLoopbackHost(apiHost))) {
    problems.push(
      `the API is reachable past loopback (API_HOST=${apiHost}, API_PUBLISH_ADDR=${apiPublishAddr.host}:${apiPublishAddr.port}) ` +
        "but INSTANCE_TOKEN is not set: set INSTANCE_TOKEN or bind to 127.0.0.1",
    );
  }

  const signingKeySeed = env.SIGNING_KEY_SEED?.trim() ? env.SIGNING_KEY_SEED.trim() : null;
  if (signingKeySeed !== null && !isSeed(signingKeySeed)) {
    // The value is a secret: the problem names the variable, never its content.
    problems.push(
      "SIGNING_KEY_SEED must be the base64 encoding of exactly 32 bytes (e.g. the output of: openssl rand -base64 32)",
    );
  }

  const webhookMaxCount = wholeNumber(
    "WEBHOOK_MAX_COUNT",
    10_000,
    (n) => n >= 1 && n <= 1_000_000,
    "is not a whole number 1-1000000",
  );
  const webhookMaxPending = wholeNumber(
    "WEBHOOK_MAX_PENDING",
    1_000_000,
    (n) => n >= 1 && n <= 100_000_000,
    "is not a whole number 1-100000000",
  );

  const pageCacheBytes =
    wholeNumber("PAGE_CACHE_MB", 64, (n) => n <= 65536, "is not a whole number 0-65536 (0 turns the page cache off)") *
    MB;
  const pgliteSharedBuffersMb = wholeNumber(
    "PGLITE_SHARED_BUFFERS_MB",
    DEFAULT_PGLITE_SHARED_BUFFERS_MB,
    (n) => n >= 1 && n <= 65536,
    "is not a whole number 1-65536",
  );

  const pgliteTemplate = parsePgliteTemplate(env.PGLITE_TEMPLATE, problems);

  const webhookSecretKey = env.WEBHOOK_SECRET_KEY?.trim() ? env.WEBHOOK_SECRET_KEY.trim() : null;
  if (webhookSecretKey !== null && !isSeed(webhookSecretKey)) {
    problems.push(
      "WEBHOOK_SECRET_KEY must be the base64 encoding of exactly 32 bytes (e.g. the output of: openssl rand -base64 32)",
    );
  }

  const stacksNodeRpcUrl = httpUrl("STACKS_NODE_RPC_URL", env.STACKS_NODE_RPC_URL, problems);

  // The Extended view: off unless EXTENDED_PORT is set; its own listen and publish addresses, the
  // same token rule as the API (a port reachable past loopback needs INSTANCE_TOKEN).
  let extended: ExtendedConfig | null = null;
  if (env.EXTENDED_PORT !== undefined && env.EXTENDED_PORT !== "") {
    const extPort = port("EXTENDED_PORT", 3999);
    const extHost = str("EXTENDED_HOST", apiHost);
    let publishAddr = { host: extHost, port: extPort };
    const extPublishRaw = env.EXTENDED_PUBLISH_ADDR;
    if (extPublishRaw !== undefined && extPublishRaw !== "") {
      const parsed = parseHostPort(extPublishRaw);
      if (parsed) publishAddr = parsed;
      else
        problems.push(`EXTENDED_PUBLISH_ADDR=${JSON.stringify(extPublishRaw)} is not host:port (e.g. 127.0.0.1:3999)`);
    }
    const extLoopback = isLoopbackHost(publishAddr.host);
    if (!instanceToken && (!extLoopback || !isLoopbackHost(extHost))) {
      problems.push(
        `the Extended view is reachable past loopback (EXTENDED_HOST=${extHost}, EXTENDED_PUBLISH_ADDR=${publishAddr.host}:${publishAddr.port}) ` +
          "but INSTANCE_TOKEN is not set: set INSTANCE_TOKEN or bind to 127.0.0.1",
      );
    }
    extended = { host: extHost, port: extPort, publishAddr, publishedOnLoopback: extLoopback };
  }

  if (problems.length) throw new ConfigError(problems);
  return Object.freeze({
    apiHost,
    apiPort,
    apiPublishAddr,
    publishedOnLoopback,
    observerHost,
    observerPort,
    observerAllowFrom,
    instanceToken,
    databaseUrl,
    readReplicaUrls: Object.freeze(readReplicaUrls),
    readReplicaMaxLagMs,
    role,
    dataDir: path.resolve(str("DATA_DIR", "./data")),
    network,
    contracts: NETWORK_CONTRACTS[network],
    finalityBurnConfirmations,
    webhookAllowPrivate,
    webhookMaxCount,
    webhookMaxPending,
    logLevel,
    logFormat,
    observerBodyLimit,
    pageCacheBytes,
    pgliteSharedBuffersMb,
    pgliteTemplate,
    signingKeySeed,
    webhookSecretKey,
    stacksNodeRpcUrl,
    extended,
  });
}

export const DEFAULT_READ_REPLICA_MAX_LAG_MS = 5000;

/**
 * Comma-separated PostgreSQL URLs (none when unset). A bad item is reported by its position and
 * address, never its password.
 */
function replicaUrls(name: string, raw: string | undefined, problems: string[]): string[] {
  const value = raw?.trim();
  if (!value) return [];
  const urls: string[] = [];
  value.split(",").forEach((item, i) => {
    const url = item.trim();
    const which = `${name} item ${i + 1}`;
    if (url === "") {
      problems.push(`${which} is empty (separate PostgreSQL URLs with single commas)`);
      return;
    }
    if (!/^postgres(ql)?:\/\//.test(url)) {
      problems.push(`${which} must start with postgres:// or postgresql://`);
      return;
    }
    let host = "";
    try {
      host = new URL(url).host;
    } catch {
      problems.push(`${which} is not a URL (expected e.g. postgres://user@replica-host:5432/sluice)`);
      return;
    }
    if (!host) {
      problems.push(`${which} has no host (expected e.g. postgres://user@replica-host:5432/sluice)`);
      return;
    }
    if (urls.includes(url)) {
      problems.push(`${which} repeats an earlier one (${host})`);
      return;
    }
    urls.push(url);
  });
  return urls;
}

/** PGLITE_TEMPLATE: unset or `on` → the build's template, `off` → none, a path (with a `/`) → that one. */
function parsePgliteTemplate(raw: string | undefined, problems: string[]): string | null {
  const value = raw?.trim() ?? "";
  if (value === "" || value === "on") return defaultTemplateDir();
  if (value === "off") return null;
  if (value.includes("/")) return path.resolve(value);
  problems.push(`PGLITE_TEMPLATE=${JSON.stringify(raw)} is not on, off or a template directory (a path with a /)`);
  return null;
}

/** An http(s) URL with a host, or null when unset; anything else is reported. */
function httpUrl(name: string, raw: string | undefined, problems: string[]): string | null {
  const value = raw?.trim();
  if (!value) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`${name}=${JSON.stringify(value)} is not a URL (expected e.g. http://127.0.0.1:20443)`);
    return null;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) {
    problems.push(`${name}=${JSON.stringify(value)} must be an http:// or https:// URL with a host`);
    return null;
  }
  return value;
}

/** A list of CIDRs, or null when it names none (unset, empty); each bad item is reported. */
function addressRanges(name: string, raw: string | undefined, problems: string[]): readonly AddressRange[] | null {
  const { ranges, problems: bad } = parseAddressRanges(raw ?? "");
  for (const item of bad) {
    problems.push(`${name}: ${item} is not an IPv4 or IPv6 address or CIDR (e.g. 10.0.0.0/8, fd00::/64)`);
  }
  return ranges.length || bad.length ? Object.freeze(ranges) : null;
}

/** Base64 (or base64url) text of exactly 32 bytes. */
function isSeed(text: string): boolean {
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) && Buffer.from(text, "base64").length === 32;
}

/** Parses `host:port`, `[v6]:port`; undefined when malformed. */
export function parseHostPort(raw: string): { host: string; port: number } | undefined {
  const m = /^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(raw) ?? /^([A-Za-z0-9.-]+):(\d{1,5})$/.exec(raw);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port > 65535) return undefined;
  return { host: m[1], port };
}

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
