/**
 * runtime/dispatcher/http-post.ts against real node:http servers: success is a 2xx; redirects are
 * never followed; response bodies are read up to a cap and kept as a short excerpt; the timeout
 * covers a server that never answers; a host name resolving to a private address is refused at
 * connect time unless private targets are allowed.
 */
import { promises as dns } from "node:dns";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXCERPT_CHARS, postDelivery } from "../../../runtime/dispatcher/http-post.js";

let server: http.Server;
let base = "";
let redirectedTo = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      switch (req.url) {
        case "/ok":
          res.writeHead(204).end();
          return;
        case "/redirect":
          res.writeHead(307, { location: "/landed" }).end();
          return;
        case "/landed":
          redirectedTo++;
          res.writeHead(200).end("landed");
          return;
        case "/huge":
          res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(5 * 1024 * 1024));
          return;
        case "/busy":
          res.writeHead(503, { "retry-after": "12" }).end("try later");
          return;
        case "/hang":
          return; // never answers
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const send = (path: string, options: { timeoutMs?: number; allowPrivate?: boolean; host?: string } = {}) =>
  postDelivery(
    `${options.host ? base.replace("127.0.0.1", options.host) : base}${path}`,
    { "content-type": "application/json" },
    "{}",
    {
      timeoutMs: options.timeoutMs ?? 5000,
      allowPrivate: options.allowPrivate ?? true,
    },
  );

describe("postDelivery", () => {
  it("a 2xx settles without error", async () => {
    expect(await send("/ok")).toMatchObject({ status: 204, error: null, excerpt: null });
  });

  it("a redirect is a failed attempt naming its target, never followed", async () => {
    const out = await send("/redirect");
    expect(out).toMatchObject({ status: 307, error: "redirect not followed (307 to /landed)" });
    expect(redirectedTo).toBe(0);
  });

  it("reads at most the cap of a huge body and keeps a short excerpt", async () => {
    const out = await send("/huge");
    expect(out.status).toBe(200);
    expect(out.error).toBeNull();
    expect(out.excerpt?.length).toBe(EXCERPT_CHARS + 1); // + the ellipsis
  });

  it("reports Retry-After and the status of a failure", async () => {
    expect(await send("/busy")).toMatchObject({
      status: 503,
      retryAfter: "12",
      excerpt: "try later",
      error: "endpoint answered 503",
    });
  });

  it("times out a server that never answers", async () => {
    const started = Date.now();
    const out = await send("/hang", { timeoutMs: 300 });
    expect(out).toMatchObject({ status: null, error: "timed out after 300 ms" });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("refuses a host name that resolves to loopback unless private targets are allowed", async () => {
    const host = os.hostname();
    const resolved = await dns.lookup(host).catch(() => null);
    if (!resolved || resolved.address.startsWith("127.") === false) return; // the machine name must resolve to loopback
    const refused = await send("/ok", { host, allowPrivate: false });
    expect(refused.status).toBeNull();
    expect(refused.error).toMatch(/loopback address/);
    expect(await send("/ok", { host, allowPrivate: true })).toMatchObject({ status: 204 });
  });

  it("refuses literal private addresses before connecting", async () => {
    expect((await send("/ok", { allowPrivate: false })).error).toMatch(/loopback/);
  });
});
