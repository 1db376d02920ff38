/**
 * runtime/sdk/fetch-client.ts, the wrapper generated clients use, against a real HTTP server on
 * an ephemeral port (DESIGN.md §7: tests talk to real things).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFetchClient, FetchClientError } from "../../runtime/sdk/fetch-client.js";

describe("createFetchClient", () => {
  let server: Server;
  let baseUrl = "";
  const seen: { url: string; authorization?: string }[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
      if (req.url?.startsWith("/missing")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "no such table", code: "TABLE_NOT_FOUND", details: { table: "x" } }));
      } else if (req.url?.startsWith("/broken")) {
        res.writeHead(502);
        res.end("bad gateway");
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ rows: [], next_cursor: null }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("GETs with encoded query parameters, skipping undefined and null, and the bearer token", async () => {
    const client = createFetchClient({ baseUrl, token: "t0k" });
    const body = await client.get<{ rows: unknown[] }>("/v1/subgraphs/a/b", {
      _limit: 10,
      "holder.like": "SP 1&",
      _order: undefined,
      cursor: null,
      _count: true,
    });
    expect(body).toEqual({ rows: [], next_cursor: null });
    expect(seen.at(-1)).toEqual({
      url: "/v1/subgraphs/a/b?_limit=10&holder.like=SP+1%26&_count=true",
      authorization: "Bearer t0k",
    });
  });

  it("sends no authorization header without a token", async () => {
    await createFetchClient({ baseUrl }).get("/v1/x");
    expect(seen.at(-1)).toEqual({ url: "/v1/x", authorization: undefined });
  });

  it("throws FetchClientError carrying status, code and error", async () => {
    const client = createFetchClient({ baseUrl });
    const error = await client.get("/missing").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchClientError);
    expect(error).toMatchObject({
      status: 404,
      code: "TABLE_NOT_FOUND",
      error: "no such table",
      details: { table: "x" },
    });
    await expect(client.get("/broken")).rejects.toMatchObject({
      status: 502,
      code: "HTTP_ERROR",
      error: "bad gateway",
    });
  });

  it("builds absolute URLs for streams", () => {
    expect(createFetchClient({ baseUrl: "http://h:1/" }).url("/v1/s/t/stream", { since: 5 })).toBe(
      "http://h:1/v1/s/t/stream?since=5",
    );
  });
});
