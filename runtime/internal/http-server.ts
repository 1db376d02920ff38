/** Listens an Express app on host:port (0 = ephemeral) and closes it completely on demand. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { RequestListener } from "node:http";

export interface RunningServer {
  url: string;
  port: number;
  server: http.Server;
  close(): Promise<void>;
}

export function listen(app: RequestListener, host: string, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = http.createServer(app);
    server.keepAliveTimeout = 5_000;
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const actual = (server.address() as AddressInfo).port;
      const shownHost = host.includes(":") ? `[${host}]` : host;
      resolve({
        url: `http://${shownHost}:${actual}`,
        port: actual,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
            // Long-lived responses (SSE) would hold close() forever.
            setTimeout(() => server.closeAllConnections(), 2_000).unref();
          }),
      });
    });
  });
}
