/**
 * Webhook secrets at rest: AES-256-GCM under an instance key, bound to the
 * webhook id (additional authenticated data), so a database dump alone reveals no `whsec_`
 * secret and a ciphertext moved to another webhook's row does not decrypt.
 *
 * The key comes from WEBHOOK_SECRET_KEY (base64 of 32 bytes) when set, else from
 * `DATA_DIR/webhook-secrets.key`, created on first start (mode 0600, written to a temporary
 * file and linked into place so two processes starting together agree on one key). Several
 * processes on one PostgreSQL database must share the key: set WEBHOOK_SECRET_KEY on each.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../internal/errors.js";

export interface SecretBox {
  seal(plaintext: string, webhookId: string): string;
  /** Throws when the ciphertext was not sealed under this key for this webhook. */
  open(sealed: string, webhookId: string): string;
}

export const SECRET_KEY_FILE = "webhook-secrets.key";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const VERSION = "v1";

/** A box over a raw 32-byte key. */
export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== KEY_BYTES) throw new TypeError(`the webhook secret key is ${KEY_BYTES} bytes`);
  const k = Buffer.from(key);
  return {
    seal(plaintext, webhookId) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", k, iv);
      cipher.setAAD(Buffer.from(webhookId, "utf8"));
      const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), ct.toString("base64")].join(":");
    },
    open(sealed, webhookId) {
      const [version, iv, tag, ct] = sealed.split(":");
      if (version !== VERSION || !iv || !tag || ct === undefined) throw new Error("not a sealed webhook secret");
      const decipher = createDecipheriv("aes-256-gcm", k, Buffer.from(iv, "base64"));
      decipher.setAAD(Buffer.from(webhookId, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64"));
      return Buffer.concat([decipher.update(Buffer.from(ct, "base64")), decipher.final()]).toString("utf8");
    },
  };
}

/** Decodes WEBHOOK_SECRET_KEY; undefined when it is not base64 of 32 bytes. */
export function decodeSecretKey(text: string): Uint8Array | undefined {
  const s = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(s)) return undefined;
  const bytes = Buffer.from(s, "base64");
  return bytes.length === KEY_BYTES ? new Uint8Array(bytes) : undefined;
}

/** The instance's box: from configuration, else from (or created in) DATA_DIR. */
export function loadOrCreateSecretBox(options: { dataDir: string; fromEnv?: string | null }): SecretBox {
  if (options.fromEnv) {
    const key = decodeSecretKey(options.fromEnv);
    if (!key) throw new ConfigError(["WEBHOOK_SECRET_KEY must be the base64 encoding of exactly 32 bytes"]);
    return createSecretBox(key);
  }
  const file = path.join(options.dataDir, SECRET_KEY_FILE);
  return createSecretBox(readKey(file) ?? createKeyFile(options.dataDir, file));
}

function readKey(file: string): Uint8Array | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot read the webhook secret key ${file} (${(err as NodeJS.ErrnoException).code ?? err})`, {
      cause: err,
    });
  }
  const key = decodeSecretKey(text);
  // Never replaced: a new key would make every stored secret unreadable.
  if (!key)
    throw new Error(`the webhook secret key ${file} is corrupt; restore it from a backup (refusing to replace it)`);
  return key;
}

function createKeyFile(dataDir: string, file: string): Uint8Array {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES);
  const tmp = path.join(dataDir, `.${SECRET_KEY_FILE}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, `${key.toString("base64")}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, file); // EEXIST when another process won the race: use its key
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
      unlinkSync(tmp);
      throw err;
    }
  }
  unlinkSync(tmp);
  return readKey(file) ?? new Uint8Array(key);
}
