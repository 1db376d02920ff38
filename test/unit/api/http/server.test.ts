/**
 * startApiServer (runtime/api/http/server.ts): port 0, and close() ending keep-alive and SSE
 * connections instead of hanging on them.
 */
import http from "node:http";
import { describe, expect, it } from "vitest";
import { createApiApp } from "../../../../runtime/api/app.js";
import { listen, startApiServer } from "../../../../runtime/api/http/server.js";
import { parseConfig } from "../../../../runtime/config/index.js";
import { silentLogger } from "../../../../runtime/internal/logger.js";
import { noDatabase, readyStatus } from "../../../support/api-harness.js";
import { allRoutes } from "../../../support/test-routes.js";

const app = () =>
  createApiApp({
    config: parseConfig({ API_PORT: "0" }),
    logger: silentLogger,
    db: noDatabase,
    status: readyStatus,
    routes: allRoutes,
  });

describe("startApiServer", () => {
  it("port 0 binds a free port and reports the real one", async () => {
    const server = await startApiServer(app(), { host: "127.0.0.1", port: 0 });
    try {
      expect(server.port).toBeGreaterThan(0);
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("listen() holds the port at once and answers 503 STARTING until an app is served", async () => {
    const server = await listen({ host: "127.0.0.1", port: 0 });
    try {
      const before = await fetch(`${server.url}/health`);
      expect(before.status).toBe(503);
      expect(await before.json()).toEqual({ error: "the service is starting", code: "STARTING", status: "starting" });
      await expect(listen({ host: "127.0.0.1", port: server.port })).rejects.toThrow(/EADDRINUSE/);
      server.serve(app());
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("a port already in use rejects", async () => {
    const first = await startApiServer(app(), { host: "127.0.0.1", port: 0 });
    try {
      await expect(startApiServer(app(), { host: "127.0.0.1", port: first.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });

  it("close() does not wait for idle keep-alive connections", async () => {
    const server = await startApiServer(app(), { host: "127.0.0.1", port: 0, closeGraceMs: 30_000 });
    const agent = new http.Agent({ keepAlive: true });
    const status = await new Promise<number>((resolve, reject) => {
      http
        .get(`${server.url}/health`, { agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        })
        .on("error", reject);
    });
    expect(status).toBe(200);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(2000);
    agent.destroy();
  });

  it("close() ends open SSE streams and resolves promptly", async () => {
    const server = await startApiServer(app(), { host: "127.0.0.1", port: 0, closeGraceMs: 30_000 });
    const ended = new Promise<string>((resolve, reject) => {
      http
        .get(`${server.url}/v1/test/stream`, (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk) => {
            text += chunk;
            if (text.includes(": connected")) connected();
          });
          res.on("end", () => resolve(text));
          res.on("error", reject);
        })
        .on("error", reject);
    });
    let connected!: () => void;
    await new Promise<void>((resolve) => {
      connected = resolve;
    });
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await ended).toContain(": connected");
  });

  it("close() is idempotent", async () => {
    const server = await startApiServer(app(), { host: "127.0.0.1", port: 0 });
    await Promise.all([server.close(), server.close()]);
    await server.close();
  });
});
