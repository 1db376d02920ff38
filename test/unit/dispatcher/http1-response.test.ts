/**
 * runtime/dispatcher/http1-response.ts, pure: each response is fed whole, byte by byte and in two
 * pieces split at every position; the status, kept body and reuse verdict must not depend on how
 * the bytes arrived.
 */
import { describe, expect, it } from "vitest";
import { ResponseReader } from "../../../runtime/dispatcher/http1-response.js";

interface Want {
  state: "done" | "capped" | "error" | "more";
  status?: number;
  body?: string;
  keepAlive?: boolean;
  retryAfter?: string;
  location?: string;
  error?: string;
}

const cases: { name: string; bytes: string; maxBody?: number; closeAfter?: boolean; want: Want }[] = [
  {
    name: "content-length",
    bytes: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
    want: { state: "done", status: 200, body: "hello", keepAlive: true },
  },
  {
    name: "no body: 204",
    bytes: "HTTP/1.1 204 No Content\r\n\r\n",
    want: { state: "done", status: 204, body: "", keepAlive: true },
  },
  {
    name: "chunked with an extension and a trailer",
    bytes:
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n9\r\n 01234567\r\n0\r\nX-T: 1\r\n\r\n",
    want: { state: "done", status: 200, body: "hello 01234567", keepAlive: true },
  },
  {
    name: "interim 100 then the answer",
    bytes: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 503 Busy\r\nretry-after: 7\r\ncontent-length: 0\r\n\r\n",
    want: { state: "done", status: 503, body: "", retryAfter: "7", keepAlive: true },
  },
  {
    name: "connection: close",
    bytes: "HTTP/1.1 301 Moved\r\nLocation: /x\r\nConnection: close\r\ncontent-length: 0\r\n\r\n",
    want: { state: "done", status: 301, location: "/x", keepAlive: false },
  },
  {
    name: "HTTP/1.0 closes unless asked to keep alive",
    bytes: "HTTP/1.0 200 OK\r\ncontent-length: 1\r\n\r\nx",
    want: { state: "done", status: 200, body: "x", keepAlive: false },
  },
  {
    name: "body until close",
    bytes: "HTTP/1.1 200 OK\r\n\r\nall of it",
    closeAfter: true,
    want: { state: "done", status: 200, body: "all of it", keepAlive: false },
  },
  {
    name: "body cap",
    bytes: "HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n0123456789",
    maxBody: 4,
    want: { state: "capped", status: 200, body: "0123" },
  },
  {
    name: "cut short",
    bytes: "HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n0123",
    closeAfter: true,
    want: { state: "error", error: "connection closed before the response ended" },
  },
  {
    name: "malformed status line",
    bytes: "HTTP/2 200\r\n\r\n",
    want: { state: "error", error: "malformed status line" },
  },
  {
    name: "conflicting lengths",
    bytes: "HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nxy",
    want: { state: "error", error: "malformed content-length" },
  },
];

function run(pieces: Buffer[], maxBody: number, closeAfter: boolean) {
  const r = new ResponseReader(maxBody);
  let state: string = "more";
  for (const p of pieces) {
    state = r.push(p);
    if (state !== "more") break;
  }
  if (state === "more" && closeAfter) state = r.closed();
  return {
    state,
    status: r.status,
    body: r.body().toString("latin1"),
    keepAlive: r.keepAlive,
    retryAfter: r.retryAfter,
    location: r.location,
    error: r.error ?? undefined,
  };
}

describe("ResponseReader", () => {
  for (const c of cases) {
    it(c.name, () => {
      const bytes = Buffer.from(c.bytes, "latin1");
      const max = c.maxBody ?? 1024;
      const splits: Buffer[][] = [[bytes], [...bytes].map((b) => Buffer.from([b]))];
      for (let i = 1; i < bytes.length; i++) splits.push([bytes.subarray(0, i), bytes.subarray(i)]);
      for (const pieces of splits) {
        const got = run(pieces, max, c.closeAfter ?? false);
        expect(got).toMatchObject(c.want);
      }
    });
  }

  it("reads the idle timeout a server announces", () => {
    const r = new ResponseReader(1024);
    r.push(Buffer.from("HTTP/1.1 204 No Content\r\nKeep-Alive: max=100, timeout=5\r\n\r\n"));
    expect(r.keepAliveSeconds).toBe(5);
  });

  it("bytes after a complete response mark the connection unusable", () => {
    const r = new ResponseReader(1024);
    expect(r.push(Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\nHTTP/1.1 200"))).toBe("done");
    expect(r.trailing).toBe(true);
  });
});
