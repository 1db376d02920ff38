/**
 * The small fetch wrapper every generated `client.ts` builds on (DESIGN.md §1 client stubs;
 * SPEC.md "Authentication", error body `{ error, code, details? }`). Hand-written, no dependencies.
 */

/** A query value; `undefined` and `null` leave the parameter out. */
export type QueryValue = string | number | boolean | null | undefined;
export type QueryParams = { readonly [name: string]: QueryValue };

export interface FetchClientOptions {
  /** e.g. `http://127.0.0.1:3800`; a trailing slash is ignored. */
  baseUrl: string;
  /** The instance token, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** A non-2xx answer, carrying the service's error body. */
export class FetchClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly error: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(`${status} ${code}: ${error}`);
    this.name = "FetchClientError";
  }
}

export interface FetchClient {
  /** GET `path` with `query`; resolves with the parsed JSON body, rejects with FetchClientError. */
  get<T>(path: string, query?: QueryParams): Promise<T>;
  /** The absolute URL for `path` and `query` (e.g. to open an EventSource). */
  url(path: string, query?: QueryParams): string;
}

export function createFetchClient(options: FetchClientOptions): FetchClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const url = (path: string, query?: QueryParams) => baseUrl + path + queryString(query);
  return {
    url,
    async get<T>(path: string, query?: QueryParams): Promise<T> {
      const headers: Record<string, string> = { accept: "application/json" };
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      const res = await doFetch(url(path, query), { headers });
      const text = await res.text();
      if (!res.ok) throw errorFromBody(res.status, text);
      return JSON.parse(text) as T;
    },
  };
}

function queryString(query: QueryParams | undefined): string {
  if (query === undefined) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.append(name, String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

function errorFromBody(status: number, text: string): FetchClientError {
  try {
    const body = JSON.parse(text) as { error?: unknown; code?: unknown; details?: unknown };
    const details =
      body.details !== null && typeof body.details === "object" ? (body.details as Record<string, unknown>) : undefined;
    return new FetchClientError(
      status,
      typeof body.code === "string" ? body.code : "HTTP_ERROR",
      typeof body.error === "string" ? body.error : text,
      details,
    );
  } catch {
    return new FetchClientError(status, "HTTP_ERROR", text);
  }
}
