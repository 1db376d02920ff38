/**
 * A Server-Sent Events consumer for the service's stream routes (SPEC.md "SSE stream routes"):
 * an async iterator of frames that remembers the last frame id, and on a dropped connection
 * reconnects with `Last-Event-ID` after an exponential backoff (reset by every frame received).
 * A 4xx answer other than 429 is final (a bad filter does not get better by retrying) and throws
 * SluiceApiError. Ends when `signal` aborts.
 */
import { EventSourceParserStream } from "eventsource-parser/stream";
import { SluiceApiError, errorFromResponse } from "./errors.js";

export interface SseFrame {
  /** The frame's id: pass it as `lastEventId` to resume after it. */
  id: string | undefined;
  /** The frame's event name (`message` when the frame names none). */
  event: string;
  /** `data` parsed as JSON when it is JSON, else the text. */
  data: unknown;
}

export interface SseOptions {
  headers?: Record<string, string>;
  /** Resume after this frame id (sent as Last-Event-ID). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** First reconnect delay (ms, default 500), doubled per failed attempt up to `maxDelayMs` (default 30 s). */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** Called before each reconnect (for logs). */
  onReconnect?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
  fetch?: typeof fetch;
}

function parseData(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** Delay before reconnect `attempt` (1-based): doubling from min to max, with up to 20% jitter. */
export function backoffDelay(attempt: number, minDelayMs = 500, maxDelayMs = 30_000, random = Math.random): number {
  const base = Math.min(maxDelayMs, minDelayMs * 2 ** (attempt - 1));
  return Math.round(base * (1 - 0.2 * random()));
}

/** Frames of `url`, reconnecting as described above; `lastEventId()` of the returned iterator tells where it is. */
export async function* sseFrames(url: string, options: SseOptions = {}): AsyncGenerator<SseFrame, void, undefined> {
  const doFetch = options.fetch ?? fetch;
  let lastEventId = options.lastEventId;
  let attempt = 0;
  while (!options.signal?.aborted) {
    let error: unknown = null;
    try {
      const headers: Record<string, string> = { accept: "text/event-stream", ...options.headers };
      if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
      const res = await doFetch(url, { headers, signal: options.signal });
      if (!res.ok) {
        const failure = await errorFromResponse(res);
        if (res.status < 500 && res.status !== 429) throw failure;
        throw Object.assign(failure, { retryable: true });
      }
      if (!res.body) throw new Error("the stream answered without a body");
      const frames = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
      for await (const frame of frames) {
        attempt = 0;
        if (frame.id !== undefined && frame.id !== "") lastEventId = frame.id;
        yield { id: frame.id || undefined, event: frame.event ?? "message", data: parseData(frame.data) };
      }
    } catch (err) {
      if (options.signal?.aborted) return;
      if (err instanceof SluiceApiError && !(err as { retryable?: boolean }).retryable) throw err;
      error = err;
    }
    attempt += 1;
    const delayMs = backoffDelay(attempt, options.minDelayMs, options.maxDelayMs);
    options.onReconnect?.({ attempt, delayMs, error: error ?? new Error("stream ended") });
    await sleep(delayMs, options.signal);
  }
}
