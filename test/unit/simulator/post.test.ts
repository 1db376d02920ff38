// postToObserver against a real HTTP server: order, pacing, waiting for a late observer, abort, errors.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type SimPayload, postToObserver, simulateChain } from "../../../runtime/simulator/index.js";

interface Received {
  path: string;
  body: unknown;
}

const servers: Server[] = [];

function observer(port = 0, status = 200): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ path: req.url ?? "", body: JSON.parse(body) });
      res.statusCode = status;
      res.end(status === 200 ? "" : "nope");
    });
  });
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(port, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server }),
    ),
  );
}

async function freePort(): Promise<number> {
  const { server } = await observer();
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

const { payloads } = simulateChain({ seed: "post", blocks: 8, eventsPerBlock: 4, accounts: 3 });
const blockCount = payloads.filter((p) => p.path === "/new_block").length;

describe("postToObserver", () => {
  it("posts every payload in order, as fast as accepted", async () => {
    const { url, received } = await observer();
    const result = await postToObserver(`${url}/`, payloads, { asFastAsAccepted: true });
    expect(result).toEqual({ requests: payloads.length, blocks: blockCount, aborted: false });
    expect(received.map((r) => r.path)).toEqual(payloads.map((p) => p.path));
    expect(received.map((r) => r.body)).toEqual(payloads.map((p: SimPayload) => JSON.parse(JSON.stringify(p.body))));
  });

  it("paces /new_block requests at the given rate", async () => {
    const { url } = await observer();
    const started = Date.now();
    await postToObserver(url, payloads, { ratePerSecond: 40 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(((blockCount - 1) * 1000) / 40 - 20);
  });

  it("waits for an observer that is not listening yet", async () => {
    const port = await freePort();
    const late = new Promise<Received[]>((resolve) =>
      setTimeout(() => observer(port).then(({ received }) => resolve(received)), 400),
    );
    const result = await postToObserver(`http://127.0.0.1:${port}`, payloads.slice(0, 3), {
      asFastAsAccepted: true,
      connectRetryMs: 20_000, // generous: the machine may be loaded; the point is that it waits
    });
    expect(result.requests).toBe(3);
    expect(await late).toHaveLength(3);
  });

  it("stops when the signal aborts", async () => {
    const { url, received } = await observer();
    const controller = new AbortController();
    const result = await postToObserver(url, payloads, {
      ratePerSecond: 50,
      signal: controller.signal,
      onProgress: ({ blocks }) => {
        if (blocks === 2) controller.abort();
      },
    });
    expect(result.aborted).toBe(true);
    expect(result.blocks).toBe(2);
    expect(received.length).toBe(result.requests);
  });

  it("gives up on an observer that keeps refusing with an error status", async () => {
    const { url } = await observer(0, 500);
    await expect(postToObserver(url, payloads, { asFastAsAccepted: true, maxAttempts: 2 })).rejects.toThrow(
      /answered 500/,
    );
  });
});
