/**
 * A port bound at start-up, before the database opens, and served later (DESIGN.md §4): a port in
 * use fails start-up at once, and until the app is attached every request gets a retryable
 * 503 STARTING. Closing stops accepting, drops idle keep-alive connections, lets in-flight
 * requests finish, and after a grace period cuts whatever is left. The API and the observer each
 * start theirs with this (runtime/api/http/server.ts, runtime/observer/server.ts).
 */
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface BoundPort {
  /** e.g. `http://127.0.0.1:3800` (IPv6 hosts bracketed). */
  url: string;
  /** The bound port (the real one when 0 was asked for). */
  port: number;
  /** Starts answering with `app`; until then every request gets 503 STARTING. */
  serve(app: RequestListener): void;
  /** Resolves once every connection is closed. Idempotent. */
  close(): Promise<void>;
}

export interface BindOptions {
  host: string;
  port: number;
  /** How long close() waits for in-flight requests before destroying their sockets. */
  closeGraceMs: number;
  /** Called once when closing starts, with the responses still open (e.g. to end streams). */
  onClosing?: (open: ReadonlySet<ServerResponse>) => void;
}

/** Binds the port now and answers 503 until serve(); rejects on bind errors (EADDRINUSE, EACCES, ...). */
export async function bindPort(options: BindOptions): Promise<BoundPort> {
  const server = http.createServer();
  let app: RequestListener = answerStarting;
  const open = new Set<ServerResponse>();
  let closing = false;

  // Registered before the app so Connection: close can be set before the app writes headers.
  server.on("request", (_req, res: ServerResponse) => {
    open.add(res);
    if (closing) res.setHeader("Connection", "close");
    res.once("finish", () => {
      // The socket turns idle once the response is done; drop it if we are shutting down.
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
    res.once("close", () => open.delete(res));
  });
  server.on("request", (req, res) => app(req, res));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });

  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  let closed: Promise<void> | undefined;

  return {
    url: `http://${host}:${port}`,
    port,
    serve(next) {
      app = next;
    },
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        closing = true;
        const timer = setTimeout(() => server.closeAllConnections(), options.closeGraceMs);
        timer.unref();
        server.close((err) => {
          clearTimeout(timer);
          if (err) reject(err);
          else resolve();
        });
        server.closeIdleConnections();
        options.onClosing?.(open);
      });
      return closed;
    },
  };
}

/** Before the app is attached (database still opening): a retryable answer, never a hang. */
function answerStarting(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(503, { "content-type": "application/json; charset=utf-8", "retry-after": "1" });
  res.end(JSON.stringify({ error: "the service is starting", code: "STARTING", status: "starting" }));
}
