/** The error the SDK throws for a non-2xx answer, carrying the service's `{ error, code, details? }`. */
export class SluiceApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = "SluiceApiError";
  }
}

/** The SluiceApiError of a failed response (its body read as the service's error body when it is one). */
export async function errorFromResponse(res: Response): Promise<SluiceApiError> {
  const text = await res.text().catch(() => "");
  return errorFromBody(res.status, text);
}

export function errorFromBody(status: number, body: unknown): SluiceApiError {
  let parsed: unknown = body;
  if (typeof body === "string") {
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = { error: body || `HTTP ${status}` };
    }
  }
  const b = (parsed ?? {}) as { error?: unknown; code?: unknown; details?: unknown };
  return new SluiceApiError(
    status,
    typeof b.code === "string" ? b.code : `HTTP_${status}`,
    typeof b.error === "string" ? b.error : `HTTP ${status}`,
    b.details && typeof b.details === "object" ? (b.details as Record<string, unknown>) : undefined,
  );
}
