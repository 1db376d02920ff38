/**
 * Reading one HTTP/1.1 response, pure (bytes in, state out) — the part of the protocol a delivery
 * needs: the status line, the few headers it looks at (framing, connection, Retry-After, Location)
 * and the body's framing (Content-Length, chunked, or until the connection closes), keeping at
 * most `maxBody` bytes of it. Interim 1xx responses are skipped. Anything it cannot frame is an
 * error and the connection is not reused.
 */

const CRLF = Buffer.from("\r\n");
const HEAD_END = Buffer.from("\r\n\r\n");
/** A response head larger than this is refused (node:http allows 16 KiB by default). */
export const MAX_HEAD_BYTES = 64 * 1024;

type Stage = "head" | "length" | "close" | "chunk-size" | "chunk-data" | "chunk-end" | "trailer" | "done";

/** What `push` found: more bytes needed, the response complete, the body cap reached, or an error. */
export type ReadState = "more" | "done" | "capped" | "error";

export class ResponseReader {
  status = 0;
  retryAfter: string | undefined = undefined;
  location: string | undefined = undefined;
  /** Seconds the server keeps an idle connection open (`Keep-Alive: timeout=N`), when it says. */
  keepAliveSeconds: number | null = null;
  /** The connection may carry the next request once this response is complete. */
  keepAlive = false;
  /** Bytes arrived after the end of the response (the connection must not be reused). */
  trailing = false;
  error: string | null = null;
  /** Any byte of a response arrived (a reused connection that closes before one may be retried). */
  started = false;
  private stage: Stage = "head";
  private pending: Buffer | null = null;
  private left = 0;
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;

  constructor(readonly maxBody: number) {}

  /** The body bytes kept (at most `maxBody`). */
  body(): Buffer {
    return this.kept.length === 1 ? this.kept[0] : Buffer.concat(this.kept);
  }

  get complete(): boolean {
    return this.stage === "done";
  }

  push(chunk: Buffer): ReadState {
    if (chunk.length) this.started = true;
    if (this.stage === "done") {
      if (chunk.length) this.trailing = true;
      return "done";
    }
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    while (data.length) {
      switch (this.stage) {
        case "head": {
          const end = data.indexOf(HEAD_END);
          if (end < 0) {
            if (data.length > MAX_HEAD_BYTES) return this.fail("response head too large");
            this.pending = data;
            return "more";
          }
          if (!this.readHead(data.toString("latin1", 0, end))) return "error";
          data = data.subarray(end + HEAD_END.length);
          break;
        }
        case "length": {
          const n = Math.min(this.left, data.length);
          if (this.keep(data.subarray(0, n))) return "capped";
          this.left -= n;
          data = data.subarray(n);
          if (this.left === 0) this.stage = "done";
          break;
        }
        case "close":
          if (this.keep(data)) return "capped";
          data = data.subarray(data.length);
          break;
        case "chunk-size": {
          const end = data.indexOf(CRLF);
          if (end < 0) {
            if (data.length > 1024) return this.fail("chunk size line too long");
            this.pending = data;
            return "more";
          }
          const line = data.toString("latin1", 0, end);
          const hex = line.split(";")[0].trim();
          if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) return this.fail("malformed chunk size");
          this.left = Number.parseInt(hex, 16);
          this.stage = this.left === 0 ? "trailer" : "chunk-data";
          data = data.subarray(end + CRLF.length);
          break;
        }
        case "chunk-data": {
          const n = Math.min(this.left, data.length);
          if (this.keep(data.subarray(0, n))) return "capped";
          this.left -= n;
          data = data.subarray(n);
          if (this.left === 0) this.stage = "chunk-end";
          break;
        }
        case "chunk-end":
          if (data.length < 2) {
            this.pending = data;
            return "more";
          }
          if (data[0] !== 13 || data[1] !== 10) return this.fail("malformed chunk end");
          data = data.subarray(2);
          this.stage = "chunk-size";
          break;
        case "trailer": {
          // Trailer fields (ignored) until an empty line.
          const end = data.indexOf(CRLF);
          if (end < 0) {
            if (data.length > MAX_HEAD_BYTES) return this.fail("response trailer too large");
            this.pending = data;
            return "more";
          }
          data = data.subarray(end + CRLF.length);
          if (end === 0) this.stage = "done";
          break;
        }
        case "done":
          this.trailing = true;
          return "done";
      }
    }
    return this.stage === "done" ? "done" : "more";
  }

  /** The connection closed: a body read until close is complete then; anything else was cut short. */
  closed(): ReadState {
    if (this.stage === "done") return "done";
    if (this.stage === "close") {
      this.stage = "done";
      this.keepAlive = false;
      return "done";
    }
    return this.fail(
      this.started ? "connection closed before the response ended" : "connection closed before a response",
    );
  }

  private fail(reason: string): "error" {
    this.error = reason;
    this.keepAlive = false;
    return "error";
  }

  private refuse(reason: string): false {
    this.fail(reason);
    return false;
  }

  /** Keeps body bytes up to the cap; true once the cap is reached (stop reading). */
  private keep(bytes: Buffer): boolean {
    if (!bytes.length) return false;
    const room = this.maxBody - this.keptBytes;
    const take = bytes.length > room ? bytes.subarray(0, room) : bytes;
    if (take.length) {
      this.kept.push(take);
      this.keptBytes += take.length;
    }
    return this.keptBytes >= this.maxBody;
  }

  private readHead(head: string): boolean {
    const lines = head.split("\r\n");
    const m = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: |$)/.exec(lines[0]);
    if (!m) return this.refuse("malformed status line");
    const status = Number(m[2]);
    let length: number | null = null;
    let chunked = false;
    let close = m[1] === "0";
    let retryAfter: string | undefined;
    let location: string | undefined;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const colon = line.indexOf(":");
      if (colon <= 0) return this.refuse("malformed header line");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === "content-length") {
        if (!/^\d{1,15}$/.test(value) || (length !== null && length !== Number(value)))
          return this.refuse("malformed content-length");
        length = Number(value);
      } else if (name === "transfer-encoding") {
        const codings = value
          .toLowerCase()
          .split(",")
          .map((s) => s.trim());
        if (codings[codings.length - 1] !== "chunked") return this.refuse("unsupported transfer-encoding");
        chunked = true;
      } else if (name === "connection") {
        const tokens = value
          .toLowerCase()
          .split(",")
          .map((s) => s.trim());
        if (tokens.includes("close")) close = true;
        else if (tokens.includes("keep-alive") && m[1] === "0") close = false;
      } else if (name === "keep-alive") {
        const t = /(?:^|[,\s])timeout=(\d{1,6})/i.exec(value);
        if (t) this.keepAliveSeconds = Number(t[1]);
      } else if (name === "retry-after") retryAfter ??= value;
      else if (name === "location") location ??= value;
    }
    if (status < 200) {
      // An interim response (100 Continue, 103 Early Hints): the real one follows.
      if (status === 101) return this.refuse("unexpected protocol switch");
      return true;
    }
    this.status = status;
    this.retryAfter = retryAfter;
    this.location = location;
    this.keepAlive = !close;
    if (status === 204 || status === 304) this.stage = "done";
    else if (chunked) this.stage = "chunk-size";
    else if (length !== null) {
      this.left = length;
      this.stage = length === 0 ? "done" : "length";
    } else {
      this.stage = "close";
      this.keepAlive = false;
    }
    return true;
  }
}
