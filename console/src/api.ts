/**
 * Calls to this instance's API. The instance token lives in sessionStorage (gone with the tab) and
 * travels only in the `authorization: Bearer` header, never in a URL. A 401 anywhere signs the
 * console out (main.ts shows the login form again).
 */
import { createParser } from "eventsource-parser";

const TOKEN_KEY = "sluice.instanceToken";

export function storedToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}
export function storeToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}
export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** An API answer other than 2xx: `{ error, code, details }` as the API sends it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

export const UNAUTHORIZED_EVENT = "console:unauthorized";

function headers(extra: Record<string, string> = {}, token = storedToken()): Record<string, string> {
  const h: Record<string, string> = { accept: "application/json", ...extra };
  if (token) h.authorization = `Bearer ${token}`;
  return h;
}

export interface CallOptions {
  /** Raw body sent with this content type (a YAML spec); otherwise `body` is sent as JSON. */
  contentType?: string;
  /** Try this token instead of the stored one (the login form). */
  token?: string;
  signal?: AbortSignal;
}

/** One API call; resolves the parsed JSON body (null for 204), rejects with ApiError. */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  opts: CallOptions = {},
): Promise<T> {
  const init: RequestInit = { method, signal: opts.signal, cache: "no-store" };
  if (body !== undefined) {
    const contentType = opts.contentType ?? "application/json";
    init.body = opts.contentType ? String(body) : JSON.stringify(body);
    init.headers = headers({ "content-type": contentType }, opts.token ?? storedToken());
  } else {
    init.headers = headers({}, opts.token ?? storedToken());
  }
  const res = await fetch(path, init);
  const text = await res.text();
  const parsed = text ? safeJson(text) : null;
  if (!res.ok) {
    const err = (parsed ?? {}) as { error?: string; code?: string; details?: Record<string, unknown> };
    if (res.status === 401 && opts.token === undefined) window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
    throw new ApiError(res.status, err.code ?? "HTTP_ERROR", err.error ?? (text || res.statusText), err.details);
  }
  return parsed as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The status of a GET without raising: for optional routes (/api/node) the page shows only when they answer. */
export async function probe(path: string, signal?: AbortSignal): Promise<{ status: number; body: unknown }> {
  try {
    const res = await fetch(path, { headers: headers(), signal, cache: "no-store" });
    const text = await res.text();
    return { status: res.status, body: text ? safeJson(text) : null };
  } catch {
    return { status: 0, body: null };
  }
}

/** The curl command that makes the same call (the token as the variable, never the secret). */
export function curlFor(url: string): string {
  const auth = storedToken() ? ` -H "authorization: Bearer $INSTANCE_TOKEN"` : "";
  return `curl -s '${url.replace(/'/g, "'\\''")}'${auth}`;
}

export interface StreamFrame {
  event: string;
  id: string | undefined;
  data: string;
}

/**
 * Follows an SSE route with fetch (EventSource cannot send the authorization header), resuming
 * with Last-Event-ID after a dropped connection, until `signal` aborts.
 */
export function followStream(path: string, onFrame: (frame: StreamFrame) => void, signal: AbortSignal): void {
  let lastId: string | undefined;
  const run = async () => {
    while (!signal.aborted) {
      try {
        const extra: Record<string, string> = { accept: "text/event-stream" };
        if (lastId !== undefined) extra["last-event-id"] = lastId;
        const res = await fetch(path, { headers: headers(extra), signal, cache: "no-store" });
        if (res.status === 401) {
          window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
          return;
        }
        if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
        const parser = createParser({
          onEvent(e) {
            if (e.id !== undefined) lastId = e.id;
            onFrame({ event: e.event ?? "message", id: e.id, data: e.data });
          },
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
      } catch {
        if (signal.aborted) return;
      }
      await new Promise((r) => setTimeout(r, 2000));
    }
  };
  void run();
}
