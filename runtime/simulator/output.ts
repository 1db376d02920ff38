/**
 * Where payloads go: an event-replay TSV (`id \t timestamp \t path \t json`, what `sluice import`
 * reads) or POSTs to an event-observer URL, paced or as fast as the observer acknowledges.
 */
import type { Writable } from "node:stream";
import type { SimPayload } from "./chain.js";

/** One replay line (with its newline). */
export function replayLine(id: number, payload: SimPayload): string {
  return `${id}\t${payload.receivedAt}\t${payload.path}\t${JSON.stringify(payload.body)}\n`;
}

/** Writes one line per payload, honouring back-pressure; resolves with the number of lines. */
export async function writeReplayTsv(
  stream: Writable,
  payloads: Iterable<SimPayload>,
  { onProgress }: { onProgress?: (lines: number) => void } = {},
): Promise<number> {
  let id = 0;
  let chunk = "";
  for (const payload of payloads) {
    chunk += replayLine(++id, payload);
    if (chunk.length >= 1 << 20) {
      if (!stream.write(chunk)) await drained(stream);
      chunk = "";
      onProgress?.(id);
    }
  }
  if (chunk) stream.write(chunk);
  onProgress?.(id);
  return id;
}

function drained(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      stream.off("error", onError);
      resolve();
    };
    const onError = (error: Error) => {
      stream.off("drain", onDrain);
      reject(error);
    };
    stream.once("drain", onDrain);
    stream.once("error", onError);
  });
}

export interface PostOptions {
  /** `/new_block` requests per second (burn blocks go right before their block); omit for as fast as accepted. */
  ratePerSecond?: number;
  asFastAsAccepted?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: { requests: number; blocks: number; payload: SimPayload }) => void;
  /** How long to keep retrying while the observer refuses connections (it may still be starting). */
  connectRetryMs?: number;
  /** Attempts for a request the observer answers with a non-2xx status. */
  maxAttempts?: number;
}

export interface PostResult {
  requests: number;
  blocks: number;
  aborted: boolean;
}

/** POSTs each payload to `<url><path>` in order; stops early (aborted: true) when the signal fires. */
export async function postToObserver(
  url: string,
  payloads: Iterable<SimPayload>,
  options: PostOptions = {},
): Promise<PostResult> {
  const base = url.replace(/\/+$/, "");
  const rate = options.asFastAsAccepted ? undefined : options.ratePerSecond;
  const signal = options.signal;
  const result: PostResult = { requests: 0, blocks: 0, aborted: false };
  const startedAt = Date.now();
  for (const payload of payloads) {
    if (signal?.aborted) break;
    if (payload.path === "/new_block" && rate) {
      const due = startedAt + (result.blocks * 1000) / rate;
      const wait = due - Date.now();
      if (wait > 0 && !(await sleep(wait, signal))) break;
    }
    if (!(await postOne(`${base}${payload.path}`, JSON.stringify(payload.body), options))) break;
    result.requests++;
    if (payload.path === "/new_block") result.blocks++;
    options.onProgress?.({ requests: result.requests, blocks: result.blocks, payload });
  }
  result.aborted = signal?.aborted ?? false;
  return result;
}

/** True once the observer answered 2xx; false when aborted; throws after retries run out. */
async function postOne(target: string, body: string, options: PostOptions): Promise<boolean> {
  const connectRetryMs = options.connectRetryMs ?? 60_000;
  const maxAttempts = options.maxAttempts ?? 10;
  let firstRefusal: number | null = null;
  let failedAttempts = 0;
  let backoff = 100;
  for (;;) {
    if (options.signal?.aborted) return false;
    try {
      const response = await fetch(target, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: options.signal,
      });
      if (response.ok) {
        await response.arrayBuffer();
        return true;
      }
      const excerpt = (await response.text()).slice(0, 200);
      if (++failedAttempts >= maxAttempts) {
        throw new Error(`observer answered ${response.status} to POST ${target} ${maxAttempts} times: ${excerpt}`);
      }
    } catch (error) {
      if (options.signal?.aborted) return false;
      if (!isConnectionError(error)) throw error;
      firstRefusal ??= Date.now();
      if (Date.now() - firstRefusal > connectRetryMs) {
        throw new Error(
          `observer at ${target} unreachable for ${Math.round(connectRetryMs / 1000)} s: ${describe(error)}`,
        );
      }
    }
    if (!(await sleep(backoff, options.signal))) return false;
    backoff = Math.min(backoff * 2, 2000);
  }
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function isConnectionError(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } } | null)?.cause;
  return error instanceof TypeError && (cause?.code === undefined || CONNECTION_CODES.has(cause.code));
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  return cause?.code ?? cause?.message ?? String(error);
}

/** Resolves true after `ms`, or false as soon as the signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
