/**
 * Delivery headers and signatures (SPEC.md "Signatures on every delivery", DESIGN.md §5), pure
 * given the key, secrets and clock:
 * - every delivery: `webhook-id`, `x-service-signature` = base64 ed25519 over `<webhook-id>.<rawBody>`
 *   (UTF-8), `x-service-signature-keyid`;
 * - standard-webhooks adds `webhook-timestamp` (unix seconds) and `webhook-signature`:
 *   `v1,<base64 HMAC-SHA256(secret bytes, "<id>.<timestamp>.<body>")>`, one entry per live secret
 *   (after a rotation both the new and the old secret sign until the grace period ends).
 */
import { createHmac, createSecretKey, type KeyObject, randomBytes } from "node:crypto";
import type { Format } from "./formats.js";

/** What signing needs from the instance key (runtime/internal/signing-key.ts SigningKey). */
export interface Signer {
  readonly keyId: string;
  sign(message: string): string;
}

export const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 24;

/** A new per-webhook secret: `whsec_` + base64 of 24 random bytes (the standard-webhooks form). */
export function generateSecret(bytes: Uint8Array = randomBytes(SECRET_BYTES)): string {
  return SECRET_PREFIX + Buffer.from(bytes).toString("base64");
}

/** The key bytes of a `whsec_` secret. */
export function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
}

/** HMAC keys of the live secrets, decoded once rather than on every delivery. */
const hmacKeys = new Map<string, KeyObject>();
const MAX_HMAC_KEYS = 20_000;

function hmacKey(secret: string): KeyObject {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = createSecretKey(secretBytes(secret));
    if (hmacKeys.size >= MAX_HMAC_KEYS) hmacKeys.clear();
    hmacKeys.set(secret, key);
  }
  return key;
}

/** One standard-webhooks signature entry: `v1,<base64>`. */
export function hmacSignature(secret: string, deliveryId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", hmacKey(secret))
    .update(`${deliveryId}.${timestampSeconds}.${body}`, "utf8")
    .digest("base64");
  return `v1,${mac}`;
}

export interface HeaderInput {
  format: Format;
  deliveryId: string;
  body: string;
  contentType: string;
  /** Unix seconds of this attempt (standard-webhooks receivers reject stale timestamps). */
  timestampSeconds: number;
  signer: Signer;
  /** Live secrets, current first; only standard-webhooks uses them. */
  secrets: readonly string[];
  userAgent?: string;
}

/** All headers of one attempt. */
export function buildDeliveryHeaders(input: HeaderInput): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": input.contentType,
    "user-agent": input.userAgent ?? "sluice-webhooks/1",
    "webhook-id": input.deliveryId,
    "x-service-signature": input.signer.sign(`${input.deliveryId}.${input.body}`),
    "x-service-signature-keyid": input.signer.keyId,
  };
  if (input.format === "standard-webhooks") {
    headers["webhook-timestamp"] = String(input.timestampSeconds);
    headers["webhook-signature"] = input.secrets
      .map((s) => hmacSignature(s, input.deliveryId, input.timestampSeconds, input.body))
      .join(" ");
  }
  return headers;
}
