/**
 * Ingest leadership (README "Running several processes"): among the `ingest` processes sharing a
 * PostgreSQL database, the one holding a session-level advisory lock applies blocks; the others
 * journal what they receive and wait. The lock lives on a connection of its own, so it is released
 * by the server the moment its holder dies (kill -9 closes the socket) or that connection drops,
 * and a standby polling for it takes over within about `retryMs`. A holder whose connection fails
 * (error, end, or a ping that does not answer) counts itself a standby at once: it must not apply
 * while another process may already hold the lock.
 */
import pg from "pg";
import { errorMessage } from "../internal/errors.js";
import type { Logger } from "../internal/logger.js";

/** Arbitrary constant naming the ingest leadership among the database's advisory locks. */
export const INGEST_LEADER_LOCK = "8315447019365974017";

export interface IngestLeadership {
  /** True while this process holds the lock on a connection that answered its last ping. */
  readonly isLeader: boolean;
  /** Hears every change of leadership (true: just became leader). */
  onChange(listener: (leader: boolean) => void): void;
  /** Starts contending; resolves after the first attempt. */
  start(): Promise<void>;
  /** Releases the lock (if held) and closes the connection. */
  stop(): Promise<void>;
}

export interface IngestLeadershipOptions {
  databaseUrl: string;
  logger: Logger;
  /** How often a standby tries the lock, and the delay before reconnecting; default 1000 ms. */
  retryMs?: number;
  /** How often the leader checks its connection; default 2000 ms. */
  pingMs?: number;
}

export function createIngestLeadership(options: IngestLeadershipOptions): IngestLeadership {
  const { logger } = options;
  const retryMs = options.retryMs ?? 1000;
  const pingMs = options.pingMs ?? 2000;
  const listeners: ((leader: boolean) => void)[] = [];
  let client: pg.Client | null = null;
  let leader = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  const setLeader = (value: boolean) => {
    if (leader === value) return;
    leader = value;
    logger.info({ msg: value ? "ingest leadership acquired" : "ingest leadership lost" });
    for (const l of listeners) l(value);
  };

  /** Gives up the connection (and with it the lock, once the server sees the session end). */
  const drop = (reason: string) => {
    const c = client;
    client = null;
    if (leader) logger.warn({ msg: "ingest leadership connection failed", reason });
    setLeader(false);
    c?.end().catch(() => {});
  };

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => void attempt(), ms);
  };

  async function connect(): Promise<pg.Client> {
    const c = new pg.Client({
      connectionString: options.databaseUrl,
      keepAlive: true,
      query_timeout: Math.max(5000, pingMs * 2),
      application_name: "sluice ingest leadership",
    });
    c.on("error", (err) => {
      if (client === c) drop(errorMessage(err));
    });
    c.on("end", () => {
      if (client === c) drop("connection ended");
    });
    await c.connect();
    return c;
  }

  /** One step: connect if needed; a standby tries the lock, the leader pings. */
  async function attempt(): Promise<void> {
    timer = null;
    try {
      if (!client) {
        const fresh = await connect();
        if (stopped) {
          await fresh.end().catch(() => {});
          return;
        }
        client = fresh;
      }
      const c = client;
      if (leader) {
        await c.query("SELECT 1");
      } else {
        const { rows } = await c.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS ok", [
          INGEST_LEADER_LOCK,
        ]);
        if (stopped) return;
        if (rows[0]?.ok && client === c) setLeader(true);
      }
    } catch (err) {
      drop(errorMessage(err));
    }
    schedule(leader ? pingMs : retryMs);
  }

  return {
    get isLeader() {
      return leader;
    },
    onChange(listener) {
      listeners.push(listener);
    },
    start: () => attempt(),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      setLeader(false);
      // Ending the session releases the lock; an explicit unlock first lets a standby in sooner.
      if (c) {
        await c.query("SELECT pg_advisory_unlock_all()").catch(() => {});
        await c.end().catch(() => {});
      }
    },
  };
}
