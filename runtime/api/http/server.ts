/**
 * Listening and graceful close for the API (DESIGN.md §4). Closing stops accepting, drops idle
 * keep-alive connections, ends open SSE streams (text/event-stream responses), lets ordinary
 * in-flight requests finish, and after a grace period cuts whatever is left.
 *
 * Stream handlers must stop writing when their response emits "close".
 */
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ApiServer {
  /** e.g. `http://127.0.0.1:3800` (IPv6 hosts bracketed). */
  url: string;
  /** The bound port (the real one when 0 was asked for). */
  port: number;
  /** Resolves once every connection is closed. Idempotent. */
  close(): Promise<void>;
}

/** A bound port whose app is attached later: start-up binds first, then opens the database. */
export interface Listener extends ApiServer {
  /** Starts answering with `app`; until then every request gets 503 STARTING. */
  serve(app: RequestListener): void;
}

export interface ApiServerOptions {
  host: string;
  port: number;
  /** How long close() waits for in-flight requests before destroying their sockets; default 5000. */
  closeGraceMs?: number;
}

/** Starts listening; rejects on bind errors (EADDRINUSE, EACCES, ...). */
export async function startApiServer(app: RequestListener, options: ApiServerOptions): Promise<ApiServer> {
  const listener = await listen(options);
  listener.serve(app);
  return listener;
}

/** Binds the port now and answers 503 until serve(); rejects on bind errors (EADDRINUSE, EACCES, ...). */
export async function listen(options: ApiServerOptions): Promise<Listener> {
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
        const timer = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? 5000);
        timer.unref();
        server.close((err) => {
          clearTimeout(timer);
          if (err) reject(err);
          else resolve();
        });
        server.closeIdleConnections();
        for (const res of open) {
          if (isEventStream(res) && !res.writableEnded) res.end();
        }
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

function isEventStream(res: ServerResponse): boolean {
  const type = res.getHeader("content-type");
  return typeof type === "string" && type.toLowerCase().startsWith("text/event-stream");
}
