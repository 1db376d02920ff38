/**
 * Server-Sent Events plumbing (SPEC.md "SSE stream routes", DESIGN.md §4 "SSE"): frame
 * formatting (pure) and a writer over an Express response that honours back-pressure and stops
 * when the client goes away. The stream logic lives in events/stream-session.ts.
 *
 * Frames: `id: <cursor>` + optional `event: <name>` + `data: <one JSON object>`, ended by a blank
 * line; keepalives are comment lines (`: ping`), which EventSource clients ignore.
 */
import type { Response } from "express";

export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

/**
 * One SSE frame. `data` is split on line breaks into several `data:` lines (a client joins them
 * back with "\n"); id and event must be single-line and are stripped of line breaks.
 */
export function formatSseFrame(frame: SseFrame): string {
  let out = "";
  if (frame.id !== undefined) out += `id: ${singleLine(frame.id)}\n`;
  if (frame.event !== undefined) out += `event: ${singleLine(frame.event)}\n`;
  for (const line of frame.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** A comment line (keepalive): `: <text>` + blank line. */
export function formatSseComment(text: string): string {
  return `: ${singleLine(text)}\n\n`;
}

/** Tells the client how long to wait before reconnecting. */
export function formatSseRetry(ms: number): string {
  return `retry: ${Math.max(0, Math.floor(ms))}\n\n`;
}

function singleLine(s: string): string {
  return s.replace(/[\r\n]/g, "");
}

export interface SseWriter {
  /** Writes text; resolves once the socket can take more (after "drain" when it was full). */
  write(text: string): Promise<void>;
  /** Writes unless the socket is backed up (keepalives: skipping one is harmless). */
  writeIfIdle(text: string): void;
  readonly closed: boolean;
  /** Ends the response (the client will reconnect with Last-Event-ID). */
  end(): void;
  /** Called once when the client disconnects or the response ends. */
  onClose(fn: () => void): void;
}

/** Sends the event-stream headers and returns a writer for the rest of the response. */
export function openEventStream(res: Response): SseWriter {
  res.status(200);
  res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Accel-Buffering", "no"); // proxies such as nginx must not buffer the stream
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  // The app's request metrics (runtime/metrics/api.ts) count open streams through this hook.
  const opened: unknown = res.locals.eventStreamOpened;
  if (typeof opened === "function") opened();

  let closed = false;
  let backedUp = false;
  const closers: (() => void)[] = [];
  const waiters: (() => void)[] = [];
  const release = () => {
    backedUp = false;
    for (const w of waiters.splice(0)) w();
  };
  res.on("drain", release);
  res.once("close", () => {
    closed = true;
    release();
    for (const fn of closers.splice(0)) fn();
  });

  return {
    get closed() {
      return closed || res.writableEnded;
    },
    async write(text) {
      if (closed || res.writableEnded) return;
      if (!res.write(text)) {
        backedUp = true;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    writeIfIdle(text) {
      if (closed || res.writableEnded || backedUp) return;
      if (!res.write(text)) backedUp = true;
    },
    end() {
      if (!res.writableEnded) res.end();
    },
    onClose(fn) {
      if (closed) fn();
      else closers.push(fn);
    },
  };
}
