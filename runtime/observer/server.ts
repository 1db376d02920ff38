/**
 * The observer's port (DESIGN.md §4). It is bound at start-up before the database opens, so a port
 * in use fails start-up at once, and answers 503 STARTING (which a stacks-node retries) until the
 * app is attached. Closing stops accepting, drops idle keep-alive connections, lets the requests
 * in flight finish (their journal writes), and after a grace period cuts whatever is left.
 */
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ObserverListener {
  /** e.g. `http://127.0.0.1:3700` (IPv6 hosts bracketed). */
  url: string;
  /** The bound port (the real one when 0 was asked for). */
  port: number;
  /** Starts answering with `app`; until then every request gets 503 STARTING. */
  serve(app: RequestListener): void;
  /** Resolves once every connection is closed. Idempotent. */
  close(): Promise<void>;
}

export interface ObserverListenOptions {
  host: string;
  port: number;
  /** How long close() waits for in-flight requests before destroying their sockets; default 30000. */
  closeGraceMs?: number;
}

/** Binds the port now and answers 503 until serve(); rejects on bind errors (EADDRINUSE, EACCES, ...). */
export async function listenObserver(options: ObserverListenOptions): Promise<ObserverListener> {
  const server = http.createServer();
  let app: RequestListener = answerStarting;
  let closing = false;

  // Registered before the app so Connection: close can be set before the app writes headers.
  server.on("request", (_req, res: ServerResponse) => {
    if (closing) res.setHeader("Connection", "close");
    res.once("finish", () => {
      // The socket turns idle once the response is done; drop it if we are shutting down.
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
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
        const timer = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? 30_000);
        timer.unref();
        server.close((err) => {
          clearTimeout(timer);
          if (err) reject(err);
          else resolve();
        });
        server.closeIdleConnections();
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
