/**
 * Presigned bundle URLs, pure: `<path>?expires=<unix seconds>&signature=<hex HMAC-SHA256>` where
 * the HMAC covers the path and the expiry, so a URL cannot be moved to another bundle or made to
 * live longer; once expired it is refused even if replayed byte for byte.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const DEFAULT_URL_TTL_SECONDS = 300;

function mac(secret: Uint8Array, path: string, expires: number): string {
  return createHmac("sha256", secret).update(`${path}\n${expires}`).digest("hex");
}

export function presign(secret: Uint8Array, path: string, nowSeconds: number, ttlSeconds: number): string {
  const expires = Math.floor(nowSeconds) + ttlSeconds;
  return `${path}?expires=${expires}&signature=${mac(secret, path, expires)}`;
}

export type PresignCheck = { ok: true } | { ok: false; code: "URL_EXPIRED" | "URL_SIGNATURE_INVALID"; message: string };

export function checkPresigned(
  secret: Uint8Array,
  path: string,
  expiresParam: unknown,
  signatureParam: unknown,
  nowSeconds: number,
): PresignCheck {
  const bad = (message: string): PresignCheck => ({ ok: false, code: "URL_SIGNATURE_INVALID", message });
  if (typeof expiresParam !== "string" || !/^\d{1,12}$/.test(expiresParam)) return bad("the URL has no valid expiry");
  if (typeof signatureParam !== "string" || !/^[0-9a-f]{64}$/.test(signatureParam))
    return bad("the URL has no valid signature");
  const expires = Number(expiresParam);
  const want = Buffer.from(mac(secret, path, expires), "hex");
  if (!timingSafeEqual(want, Buffer.from(signatureParam, "hex"))) return bad("the URL's signature does not match");
  if (nowSeconds > expires)
    return { ok: false, code: "URL_EXPIRED", message: "the URL has expired; ask for a new one" };
  return { ok: true };
}

/** Parses one `Range: bytes=…` header against a size: null = whole object, "invalid" = 416. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | "invalid" {
  if (header === undefined) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return "invalid";
  let start: number;
  let end: number;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return "invalid";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return "invalid";
  return { start, end };
}
