/**
 * The keep-alive HTTP/1.1 client (runtime/dispatcher/http1-client.ts) through postDelivery, against
 * real local servers: node:http for ordinary answers (chunked, big bodies, 4xx/5xx, redirects,
 * slow ones) and a raw TCP server for what node:http would not do (dropping a kept-alive
 * connection when the next request arrives, answers framed only by closing).
 */
import { promises as dns } from "node:dns";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEndpointAgents, EXCERPT_CHARS, postDelivery } from "../../../runtime/dispatcher/http-post.js";

let server: http.Server;
let base = "";
/** Requests whose body arrived, per path, and connections accepted. */
const seen = new Map<string, string[]>();
let connections = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0];
      seen.set(path, [...(seen.get(path) ?? []), body]);
      switch (path) {
        case "/ok":
          res.writeHead(200, { "content-type": "text/plain" }).end("fine");
          return;
        case "/echo-headers":
          res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ url: req.url, ...req.headers }));
          return;
        case "/chunked":
          res.writeHead(200, { "content-type": "text/plain" }); // no length: node:http sends chunks
          res.write("first ");
          setTimeout(() => res.end("second"), 20);
          return;
        case "/huge":
          res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(5 * 1024 * 1024));
          return;
        case "/huge-chunked":
          res.writeHead(200);
          for (let i = 0; i < 100; i++) res.write("y".repeat(64 * 1024));
          res.end();
          return;
        case "/missing":
          res.writeHead(404, { "content-type": "text/plain" }).end("no such hook");
          return;
        case "/busy":
          res.writeHead(503, { "retry-after": "12" }).end("try later");
          return;
        case "/redirect":
          res.writeHead(302, { location: "/elsewhere" }).end();
          return;
        case "/slow":
          setTimeout(() => res.writeHead(200).end("late"), 600);
          return;
      }
      res.writeHead(500).end();
    });
  });
  server.on("connection", () => {
    connections++;
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

let agents = createEndpointAgents();
afterEach(() => {
  agents.destroy();
  agents = createEndpointAgents();
});

function send(
  url: string,
  body = "{}",
  options: { timeoutMs?: number; maxSockets?: number; allowPrivate?: boolean } = {},
) {
  const allowPrivate = options.allowPrivate ?? true;
  return postDelivery(url, { "content-type": "application/json", "webhook-id": "msg_1" }, body, {
    timeoutMs: options.timeoutMs ?? 5000,
    allowPrivate,
    pool: agents.pool("wh", url, options.maxSockets ?? 4, allowPrivate),
  });
}

describe("keep-alive client", () => {
  it("sends the exact body and headers and reuses one connection", async () => {
    const before = connections;
    const body = JSON.stringify({ text: "ünïcødé ✓", n: 1 });
    for (let i = 0; i < 5; i++) {
      expect(await send(`${base}/ok`, body)).toMatchObject({ status: 200, error: null, excerpt: "fine" });
    }
    expect(seen.get("/ok")?.slice(-5)).toEqual(Array(5).fill(body));
    expect(connections - before).toBe(1);
    const echoed = JSON.parse((await send(`${base}/echo-headers?x=1`, body)).excerpt ?? "{}");
    expect(echoed).toMatchObject({
      url: "/echo-headers?x=1",
      "content-type": "application/json",
      "webhook-id": "msg_1",
      "content-length": String(Buffer.byteLength(body)),
      host: new URL(base).host,
    });
  });

  it("reads a chunked response", async () => {
    expect(await send(`${base}/chunked`)).toMatchObject({ status: 200, error: null, excerpt: "first second" });
    // and the connection still serves the next request
    expect(await send(`${base}/ok`)).toMatchObject({ status: 200 });
  });

  it("4xx and 5xx are failed attempts with their status, excerpt and Retry-After", async () => {
    expect(await send(`${base}/missing`)).toMatchObject({
      status: 404,
      excerpt: "no such hook",
      error: "endpoint answered 404",
    });
    expect(await send(`${base}/busy`)).toMatchObject({
      status: 503,
      retryAfter: "12",
      excerpt: "try later",
      error: "endpoint answered 503",
    });
  });

  it("never follows a redirect", async () => {
    const before = seen.get("/elsewhere")?.length ?? 0;
    expect(await send(`${base}/redirect`)).toMatchObject({
      status: 302,
      error: "redirect not followed (302 to /elsewhere)",
    });
    expect(seen.get("/elsewhere")?.length ?? 0).toBe(before);
  });

  it("reads at most the cap of big bodies (with a length or chunked), then works on", async () => {
    for (const path of ["/huge", "/huge-chunked"]) {
      const out = await send(`${base}${path}`);
      expect(out).toMatchObject({ status: 200, error: null });
      expect(out.excerpt?.length).toBe(EXCERPT_CHARS + 1); // + the ellipsis
      expect(out.excerpt?.endsWith("…")).toBe(true);
    }
    expect(await send(`${base}/ok`)).toMatchObject({ status: 200, excerpt: "fine" });
  });

  it("times out a slow answer, and the next request gets a connection of its own", async () => {
    const started = Date.now();
    expect(await send(`${base}/slow`, "{}", { timeoutMs: 200 })).toMatchObject({
      status: null,
      error: "timed out after 200 ms",
    });
    expect(Date.now() - started).toBeLessThan(550);
    expect(await send(`${base}/ok`)).toMatchObject({ status: 200, excerpt: "fine" });
  });

  it("does not reuse a connection past the idle timeout the server announced (less a second)", async () => {
    const short = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200).end("ok"));
    });
    short.keepAliveTimeout = 2000; // announced as `Keep-Alive: timeout=2`
    let accepted = 0;
    short.on("connection", () => {
      accepted++;
    });
    await new Promise<void>((r) => short.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(short.address() as AddressInfo).port}/`;
    try {
      expect(await send(url)).toMatchObject({ status: 200 });
      expect(await send(url)).toMatchObject({ status: 200 }); // at once: the same connection
      expect(accepted).toBe(1);
      await new Promise((r) => setTimeout(r, 1200)); // past 2 s − 1 s
      expect(await send(url)).toMatchObject({ status: 200 });
      expect(accepted).toBe(2);
    } finally {
      short.closeAllConnections();
      await new Promise((r) => short.close(r));
    }
  });

  it("never opens more connections than its size, and queued requests still finish", async () => {
    const before = connections;
    const outs = await Promise.all(Array.from({ length: 12 }, () => send(`${base}/ok`, "{}", { maxSockets: 2 })));
    expect(outs.every((o) => o.status === 200)).toBe(true);
    expect(connections - before).toBe(2);
  });

  it("a refused connection is a failed attempt naming the error", async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const out = await send(`http://127.0.0.1:${port}/`);
    expect(out.status).toBeNull();
    expect(out.error).toMatch(/^ECONNREFUSED/);
  });

  it("refuses a host name that resolves to loopback unless private targets are allowed", async () => {
    const host = os.hostname();
    const resolved = await dns.lookup(host).catch(() => null);
    if (!resolved?.address.startsWith("127.")) return; // the machine name must resolve to loopback
    const url = `${base.replace("127.0.0.1", host)}/ok`;
    const refused = await send(url, "{}", { allowPrivate: false });
    expect(refused.status).toBeNull();
    expect(refused.error).toMatch(/loopback address/);
    expect(await send(url, "{}", { allowPrivate: true })).toMatchObject({ status: 200 });
  });
});

/** A raw server: `answer` gets each complete request (head and body) and its connection's request number. */
async function rawServer(answer: (socket: net.Socket, nth: number, body: string) => void) {
  const bodies: string[] = [];
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let buf = "";
    let nth = 0;
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      buf += chunk;
      for (;;) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        const body = Buffer.from(buf.slice(end + 4, end + 4 + length), "latin1").toString("utf8");
        buf = buf.slice(end + 4 + length);
        bodies.push(body);
        answer(socket, ++nth, body);
      }
    });
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`,
    bodies,
    accepted: () => accepted,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => srv.close(r));
    },
  };
}

const OK = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";

describe("keep-alive client against a raw server", () => {
  it("a kept-alive connection dropped when the next request arrives: sent once more on a fresh one, one outcome", async () => {
    // Each connection answers its first request and drops the connection on the second, unanswered.
    const srv = await rawServer((socket, nth) => {
      if (nth === 1) socket.write(OK);
      else socket.destroy();
    });
    try {
      expect(await send(srv.url, '{"n":1}')).toMatchObject({ status: 200, excerpt: "ok", error: null });
      expect(await send(srv.url, '{"n":2}')).toMatchObject({ status: 200, excerpt: "ok", error: null });
      // n:2 reached the dropped connection, then was sent again on a fresh one (at least once)
      expect(srv.bodies).toEqual(['{"n":1}', '{"n":2}', '{"n":2}']);
      expect(srv.accepted()).toBe(2);
    } finally {
      await srv.close();
    }
  });

  it("a fresh connection dropped before an answer is a failed attempt, not sent again", async () => {
    const srv = await rawServer((socket) => socket.destroy());
    try {
      const out = await send(srv.url);
      expect(out.status).toBeNull();
      expect(out.error).toMatch(/ECONNRESET|connection closed before a response/);
      expect(srv.bodies).toHaveLength(1);
    } finally {
      await srv.close();
    }
  });

  it("a connection closed half way through an answer is a failed attempt, not sent again", async () => {
    const srv = await rawServer((socket) => {
      socket.end("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly part");
    });
    try {
      const out = await send(srv.url);
      expect(out).toMatchObject({ status: null, error: "connection closed before the response ended" });
      expect(srv.bodies).toHaveLength(1);
    } finally {
      await srv.close();
    }
  });

  it("a server that closes an idle connection: the next request opens a new one", async () => {
    const srv = await rawServer((socket) => {
      socket.write(OK);
      setTimeout(() => socket.destroy(), 10);
    });
    try {
      expect(await send(srv.url, '{"n":1}')).toMatchObject({ status: 200 });
      await new Promise((r) => setTimeout(r, 100));
      expect(await send(srv.url, '{"n":2}')).toMatchObject({ status: 200 });
      expect(srv.bodies).toEqual(['{"n":1}', '{"n":2}']);
      expect(srv.accepted()).toBe(2);
    } finally {
      await srv.close();
    }
  });

  it("reads a body framed by closing the connection, an interim 100 and an HTTP/1.0 answer", async () => {
    const answers = [
      "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil close",
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 4\r\n\r\nmade",
      "HTTP/1.0 202 Accepted\r\ncontent-length: 3\r\n\r\nyes",
    ];
    let i = 0;
    const srv = await rawServer((socket) => {
      const a = answers[i++];
      if (a.startsWith("HTTP/1.1 200")) socket.end(a);
      else socket.write(a);
    });
    try {
      expect(await send(srv.url)).toMatchObject({ status: 200, excerpt: "until close", error: null });
      expect(await send(srv.url)).toMatchObject({ status: 201, excerpt: "made", error: null });
      expect(await send(srv.url)).toMatchObject({ status: 202, excerpt: "yes", error: null });
      // the first closed by the server; the 201 and the HTTP/1.0 answer share the second
      expect(srv.accepted()).toBe(2);
    } finally {
      await srv.close();
    }
  });

  it("an answer it cannot frame is a failed attempt", async () => {
    const srv = await rawServer((socket) => socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n"));
    try {
      expect(await send(srv.url)).toMatchObject({ status: null, error: "unsupported transfer-encoding" });
    } finally {
      await srv.close();
    }
  });
});
