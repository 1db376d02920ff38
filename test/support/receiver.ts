/**
 * A real webhook receiver for tests (STYLE.md "Tests": `startReceiver()` with a status that can be
 * changed mid-test): a node:http server on an ephemeral port recording every request with its raw
 * body, answering with a settable status, delay, or not at all (to exercise timeouts).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
  /** The status answered (undefined while pending or when never answered). */
  status?: number;
}

export interface ReceiverBehaviour {
  status: number;
  /** Milliseconds before answering. */
  delayMs: number;
  /** Never answer (the dispatcher must time out). */
  hang: boolean;
  headers: Record<string, string>;
  responseBody: string;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Changes how the next requests are answered. */
  set(behaviour: Partial<ReceiverBehaviour>): void;
  /** A per-request decision, overriding `set` (return undefined to use it). */
  decide(fn: ((req: ReceivedRequest) => Partial<ReceiverBehaviour> | undefined) | null): void;
  /** Distinct `webhook-id`s of requests answered 2xx. */
  deliveredIds(): Set<string>;
  /** Parsed bodies of requests answered 2xx. */
  deliveredBodies(): unknown[];
  close(): Promise<void>;
}

export async function startReceiver(initial: Partial<ReceiverBehaviour> = {}): Promise<Receiver> {
  let behaviour: ReceiverBehaviour = {
    status: 200,
    delayMs: 0,
    hang: false,
    headers: {},
    responseBody: "ok",
    ...initial,
  };
  let decider: ((req: ReceivedRequest) => Partial<ReceiverBehaviour> | undefined) | null = null;
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rec: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
      };
      requests.push(rec);
      const b = { ...behaviour, ...(decider?.(rec) ?? {}) };
      if (b.hang) {
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
        return;
      }
      const respond = () => {
        rec.status = b.status;
        res.writeHead(b.status, { "content-type": "text/plain", ...b.headers });
        res.end(b.responseBody);
      };
      if (b.delayMs > 0) setTimeout(respond, b.delayMs);
      else respond();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const ok = () => requests.filter((r) => r.status !== undefined && r.status >= 200 && r.status < 300);
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    set(next) {
      behaviour = { ...behaviour, ...next };
    },
    decide(fn) {
      decider = fn;
    },
    deliveredIds: () => new Set(ok().map((r) => String(r.headers["webhook-id"]))),
    deliveredBodies: () => ok().map((r) => JSON.parse(r.body)),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
