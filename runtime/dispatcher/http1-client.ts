/**
 * A small keep-alive HTTP/1.1 client for plain-http deliveries: one pool of connections per
 * endpoint, each request written as one buffer (head and body), and only what a delivery needs
 * read back (http1-response.ts). node:http spends more CPU per request building and parsing
 * than the rest of an attempt; this spends little. https targets and anything else go through
 * node:http (http-post.ts).
 *
 * The rules of http-post.ts hold: every resolved address is checked at connect time (the
 * guarded lookup), the deadline covers waiting for a connection, connecting, sending and the
 * whole response; redirects are reported, never followed; at most `maxBody` bytes of a body are
 * read, then the connection is dropped. A kept-alive connection the server closed while idle
 * fails its next request before any response byte: that request is sent once more on a fresh
 * connection (it is still one attempt).
 */
import net from "node:net";
import { ResponseReader } from "./http1-response.js";

/** Where a pool connects and what its requests' first lines say. */
export interface PoolTarget {
  hostname: string;
  port: number;
  /** Request target: path and query. */
  path: string;
  /** The Host header value (host and non-default port). */
  host: string;
  lookup: net.LookupFunction;
}

export interface RawResponse {
  status: number | null;
  retryAfter: string | undefined;
  location: string | undefined;
  body: Buffer | null;
  /** The body was longer than the cap (only its first bytes were read). */
  truncated: boolean;
  error: string | null;
}

/** One request on a connection: its reader and how it settles. */
interface Exchange {
  reader: ResponseReader;
  settle(outcome: "done" | "capped" | "error" | "closed", err?: NodeJS.ErrnoException): void;
}

interface Conn {
  socket: net.Socket;
  current: Exchange | null;
  /** Requests this connection carried (0: fresh). */
  used: number;
  /** Not to be reused after this time (ms): the server's idle timeout, less a margin. */
  idleUntil: number;
}

/** Idle connections are dropped this long before the server said it would close them. */
const IDLE_MARGIN_MS = 1000;

const FORBIDDEN_IN_HEADER = /[\r\n\0]/;

export class EndpointPool {
  private readonly idle: Conn[] = [];
  private open = 0;
  private readonly waiting: ((conn: Conn | null) => void)[] = [];
  private closedPool = false;

  constructor(
    readonly target: PoolTarget,
    public maxSockets: number,
    readonly maxBody: number,
  ) {}

  /** Sends one POST; settles with the response read (or why none was); never rejects. */
  async post(headers: Record<string, string>, body: string, timeoutMs: number): Promise<RawResponse> {
    let head = `POST ${this.target.path} HTTP/1.1\r\nhost: ${this.target.host}\r\n`;
    for (const name in headers) {
      const value = headers[name];
      if (FORBIDDEN_IN_HEADER.test(value) || FORBIDDEN_IN_HEADER.test(name))
        return failed(`invalid header ${JSON.stringify(name)}`);
      head += `${name}: ${value}\r\n`;
    }
    const request = `${head}content-length: ${Buffer.byteLength(body, "utf8")}\r\nconnection: keep-alive\r\n\r\n${body}`;
    const deadline = Date.now() + timeoutMs;
    let timedOut = false;
    let onTimeout: (() => void) | null = null;
    const timer = setTimeout(() => {
      timedOut = true;
      onTimeout?.();
    }, timeoutMs);
    try {
      // A reused connection found closed before any response byte: once more on a fresh one.
      for (let round = 0; ; round++) {
        const conn = await this.acquire(round > 0, (cancel) => {
          onTimeout = cancel;
        });
        if (!conn) return failed(this.closedPool ? "connection pool closed" : `timed out after ${timeoutMs} ms`);
        if (timedOut) {
          // Handed a connection just as the deadline passed: give it back unused.
          this.idle.push(conn);
          this.handOff();
          return failed(`timed out after ${timeoutMs} ms`);
        }
        const reused = conn.used > 0;
        const outcome = await this.exchange(conn, request, (abort) => {
          onTimeout = abort;
        });
        if (timedOut) return failed(`timed out after ${timeoutMs} ms`);
        if (outcome.retry && reused && round === 0 && Date.now() < deadline) continue;
        return outcome.response;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes every connection; requests in flight fail. */
  close(): void {
    this.closedPool = true;
    for (const c of this.idle.splice(0)) c.socket.destroy();
    for (const w of this.waiting.splice(0)) w(null);
  }

  private acquire(fresh: boolean, onCancel: (cancel: () => void) => void): Promise<Conn | null> {
    if (this.closedPool) return Promise.resolve(null);
    if (!fresh) {
      const conn = this.takeIdle();
      if (conn) return Promise.resolve(conn);
    }
    if (this.open < this.maxSockets || fresh) return Promise.resolve(this.connect());
    return new Promise<Conn | null>((resolve) => {
      this.waiting.push(resolve);
      onCancel(() => {
        const i = this.waiting.indexOf(resolve);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(null);
      });
    });
  }

  /**
   * The most recently used idle connection the server has not timed out: one past the server's
   * stated idle timeout may be closing just as a request is sent on it (the request may then
   * arrive and be answered on nothing), so it is closed instead.
   */
  private takeIdle(): Conn | undefined {
    const now = Date.now();
    for (;;) {
      const conn = this.idle.pop();
      if (!conn || conn.idleUntil > now) return conn;
      conn.socket.destroy();
    }
  }

  private connect(): Conn {
    this.open++;
    const socket = net.connect({
      host: this.target.hostname,
      port: this.target.port,
      lookup: this.target.lookup,
      noDelay: true,
    });
    const conn: Conn = { socket, current: null, used: 0, idleUntil: Number.POSITIVE_INFINITY };
    socket.on("data", (chunk: Buffer) => {
      const ex = conn.current;
      if (!ex) {
        socket.destroy(); // bytes nobody asked for: the connection is out of step
        return;
      }
      const state = ex.reader.push(chunk);
      if (state !== "more") ex.settle(state);
    });
    socket.on("end", () => {
      // The server closed its side: a response read until close ends here; the connection is done.
      conn.current?.settle("closed");
      socket.destroy();
    });
    socket.on("error", (err: NodeJS.ErrnoException) => conn.current?.settle("error", err));
    socket.on("close", () => {
      this.open--;
      const i = this.idle.indexOf(conn);
      if (i >= 0) this.idle.splice(i, 1);
      conn.current?.settle("closed");
      this.handOff();
    });
    return conn;
  }

  /** A connection slot freed or a connection went idle: the next waiting request takes it. */
  private handOff(): void {
    while (this.waiting.length) {
      const conn = this.takeIdle();
      if (conn) {
        this.waiting.shift()?.(conn);
        continue;
      }
      if (this.open < this.maxSockets && !this.closedPool) {
        this.waiting.shift()?.(this.connect());
        continue;
      }
      return;
    }
  }

  private exchange(
    conn: Conn,
    request: string,
    onAbort: (abort: () => void) => void,
  ): Promise<{ response: RawResponse; retry: boolean }> {
    const reader = new ResponseReader(this.maxBody);
    conn.used++;
    return new Promise((resolve) => {
      let settled = false;
      const exchange: Exchange = {
        reader,
        settle: (outcome, err) => {
          if (settled) return;
          if (outcome === "closed") {
            if (reader.closed() === "done") outcome = "done";
          }
          settled = true;
          conn.current = null;
          const reusable = outcome === "done" && reader.keepAlive && !reader.trailing && !conn.socket.destroyed;
          if (reusable && !this.closedPool) {
            conn.idleUntil =
              reader.keepAliveSeconds === null
                ? Number.POSITIVE_INFINITY
                : Date.now() + reader.keepAliveSeconds * 1000 - IDLE_MARGIN_MS;
            this.idle.push(conn);
            this.handOff();
          } else conn.socket.destroy();
          if (outcome === "done" || outcome === "capped") {
            resolve({
              response: {
                status: reader.status,
                retryAfter: reader.retryAfter,
                location: reader.location,
                body: reader.body(),
                truncated: outcome === "capped",
                error: null,
              },
              retry: false,
            });
            return;
          }
          const error = err ? describeSocketError(err) : (reader.error ?? "connection closed before a response");
          // Nothing of a response arrived: the request may be sent again on a fresh connection.
          resolve({ response: failed(error), retry: !reader.started });
        },
      };
      conn.current = exchange;
      onAbort(() => {
        if (settled) return;
        settled = true;
        conn.current = null;
        conn.socket.destroy();
        resolve({ response: failed("aborted"), retry: false });
      });
      conn.socket.write(request, "utf8");
    });
  }
}

function failed(error: string): RawResponse {
  return { status: null, retryAfter: undefined, location: undefined, body: null, truncated: false, error };
}

function describeSocketError(err: NodeJS.ErrnoException): string {
  if (err.code === "EADDRNOTALLOWED") return err.message;
  return err.code ? `${err.code}: ${err.message}` : err.message;
}
