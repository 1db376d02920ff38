/**
 * The PostgreSQL driver's LISTEN connection (DESIGN.md §2 "SSE fan-out across processes uses
 * LISTEN/NOTIFY"): one connection per process, outside the pool, for every channel.
 *
 * A lost connection (the server restarted, a proxy or `pg_terminate_backend` cut it, the network
 * dropped) is made again with a backoff of 100 ms doubling to 5 s, and every channel is listened
 * to again. NOTIFY is not queued for a listener that is away, so what was sent meanwhile is lost:
 * subscribers are told (`onLost`, then `onResume` once listening again) and read what changed
 * from the tables. TCP keepalive makes a silently dead connection fail instead of hanging.
 */
import pg from "pg";
import type { ListenOptions, NotificationHandler } from "./types.js";

/** `application_name` of the connection, so an operator can find it in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = "sluice listener";

export const RECONNECT_MIN_MS = 100;
export const RECONNECT_MAX_MS = 5_000;

interface Subscription extends ListenOptions {
  handler: NotificationHandler;
}

export interface PgListener {
  listen(channel: string, handler: NotificationHandler, options?: ListenOptions): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** `connectionTimeoutMillis`: as the pool's (postgres.ts), so a dead server fails a try instead of hanging it. */
export function createPgListener(
  connectionString: string,
  options: { connectionTimeoutMillis?: number } = {},
): PgListener {
  const channels = new Map<string, Set<Subscription>>();
  let client: pg.Client | null = null;
  /** Channels the current client listens to. */
  let listening = new Set<string>();
  let connecting: Promise<pg.Client> | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let delay = RECONNECT_MIN_MS;
  let closed = false;

  const each = (fn: (s: Subscription) => void) => {
    for (const subs of channels.values()) for (const s of [...subs]) fn(s);
  };

  async function open(): Promise<pg.Client> {
    const c = new pg.Client({
      connectionString,
      ...options,
      application_name: LISTENER_APPLICATION_NAME,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    c.on("error", () => lost(c));
    c.on("end", () => lost(c));
    c.on("notification", (msg) => {
      for (const s of channels.get(msg.channel) ?? []) s.handler(msg.payload ?? "");
    });
    try {
      await c.connect();
      const done = new Set<string>();
      // A channel added while this ran is listened to by the loop's next turn.
      for (let todo = [...channels.keys()]; todo.length; todo = [...channels.keys()].filter((ch) => !done.has(ch))) {
        for (const ch of todo) {
          await c.query(`LISTEN ${pg.escapeIdentifier(ch)}`);
          done.add(ch);
        }
      }
      listening = done;
      client = c;
      return c;
    } catch (err) {
      await c.end().catch(() => {});
      throw err;
    }
  }

  function connect(): Promise<pg.Client> {
    if (client) return Promise.resolve(client);
    connecting ??= open().finally(() => {
      connecting = null;
    });
    return connecting;
  }

  function lost(c: pg.Client): void {
    if (c !== client) return; // a connection that never became current, or an old one
    client = null;
    listening = new Set();
    void c.end().catch(() => {});
    if (closed) return;
    each((s) => s.onLost?.());
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(async () => {
      retryTimer = null;
      if (closed) return;
      try {
        await connect();
        delay = RECONNECT_MIN_MS;
        each((s) => s.onResume?.());
      } catch {
        delay = Math.min(delay * 2, RECONNECT_MAX_MS);
        scheduleReconnect();
      }
    }, delay);
    retryTimer.unref();
  }

  return {
    async listen(channel, handler, options = {}) {
      const sub: Subscription = { handler, ...options };
      let subs = channels.get(channel);
      if (!subs) {
        subs = new Set();
        channels.set(channel, subs);
      }
      subs.add(sub);
      try {
        const c = await connect();
        if (!listening.has(channel)) {
          await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
          listening.add(channel);
        }
      } catch (err) {
        subs.delete(sub);
        throw err;
      }
      return async () => {
        subs.delete(sub);
      };
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      const c = client ?? (await connecting?.catch(() => null)) ?? null;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
