/**
 * The observer's port (DESIGN.md §4). It is bound at start-up before the database opens, so a port
 * in use fails start-up at once, and answers 503 STARTING (which a stacks-node retries) until the
 * app is attached. Closing stops accepting, drops idle keep-alive connections, lets the requests
 * in flight finish (their journal writes), and after a grace period cuts whatever is left.
 */
import { type BoundPort, bindPort } from "../internal/http-listener.js";

/** The observer's bound port; serve() attaches the app once the database is open. */
export type ObserverListener = BoundPort;

export interface ObserverListenOptions {
  host: string;
  port: number;
  /** How long close() waits for in-flight requests before destroying their sockets; default 30000. */
  closeGraceMs?: number;
}

/** Binds the port now and answers 503 until serve(); rejects on bind errors (EADDRINUSE, EACCES, ...). */
export function listenObserver(options: ObserverListenOptions): Promise<ObserverListener> {
  return bindPort({ host: options.host, port: options.port, closeGraceMs: options.closeGraceMs ?? 30_000 });
}
