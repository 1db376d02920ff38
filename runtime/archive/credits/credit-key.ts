/**
 * Credit keys: a bearer secret that identifies one balance, with no account behind it. The secret
 * is shown once, when the key is made; the ledger keeps only its SHA-256, and a public key id
 * (`ck_…`) names the balance in logs, operator grants and the ledger.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const SECRET_PREFIX = "sck_";
export const KEY_ID_PREFIX = "ck_";

export interface NewCreditKey {
  keyId: string;
  /** The bearer secret: `sck_` + 32 random bytes in base64url. Shown once, never stored. */
  secret: string;
  secretSha256: string;
}

/** A fresh key: 256 random bits of secret, 96 of public id. */
export function newCreditKey(): NewCreditKey {
  const secret = `${SECRET_PREFIX}${randomBytes(32).toString("base64url")}`;
  return {
    keyId: `${KEY_ID_PREFIX}${randomBytes(12).toString("base64url")}`,
    secret,
    secretSha256: hashSecret(secret),
  };
}

/** The stored form of a secret. A plain hash suffices: the secret is random, not a password. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** True when `text` has the shape of a secret this module makes (checked before any lookup). */
export function looksLikeSecret(text: string): boolean {
  return /^sck_[A-Za-z0-9_-]{43}$/.test(text);
}

/** Constant-time equality of two tokens of any length (both hashed first). */
export function sameToken(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The bearer token of an `Authorization: Bearer …` header, or null. */
export function bearerOf(header: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return m ? m[1] : null;
}
