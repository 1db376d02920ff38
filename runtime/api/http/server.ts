/**
 * Listening and graceful close for the API (DESIGN.md §4). Closing stops accepting, drops idle
 * keep-alive connections, ends open SSE streams (text/event-stream responses), lets ordinary
 * in-flight requests finish, and after a grace period cuts whatever is left.
 *
 * Stream handlers must stop writing when their response emits "close".
 */
import type { RequestListener, ServerResponse } from "node:http";
import { type BoundPort, bindPort } from "../../internal/http-listener.js";

/** A listening API server. */
export type ApiServer = Omit<BoundPort, "serve">;

/** A bound port whose app is attached later: start-up binds first, then opens the database. */
export type Listener = BoundPort;

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
export function listen(options: ApiServerOptions): Promise<Listener> {
  return bindPort({
    host: options.host,
    port: options.port,
    closeGraceMs: options.closeGraceMs ?? 5000,
    onClosing: endEventStreams,
  });
}

/** SSE streams never finish by themselves: closing ends them so their connections can close. */
function endEventStreams(open: ReadonlySet<ServerResponse>): void {
  for (const res of open) {
    if (isEventStream(res) && !res.writableEnded) res.end();
  }
}

function isEventStream(res: ServerResponse): boolean {
  const type = res.getHeader("content-type");
  return typeof type === "string" && type.toLowerCase().startsWith("text/event-stream");
}
