/**
 * The instance signing key (SPEC.md "Signatures on every delivery" and
 * `GET /public/streams/signing-key`): one ed25519 key pair per instance. Deliveries carry a
 * detached signature over `<webhook-id>.<rawBody>` (base64, `x-service-signature`) and the key id
 * (`x-service-signature-keyid`); receivers fetch the SPKI PEM public key from the public route.
 *
 * Where the key comes from, in order:
 * 1. configuration: `SIGNING_KEY_SEED`, a base64 32-byte ed25519 seed (nothing is written to disk);
 * 2. `DATA_DIR/signing-key.json`, created on first start (mode 0600, written to a temporary file
 *    and linked into place, so a crash never leaves a half-written key and two processes starting
 *    together agree on one key).
 * An existing file that cannot be read or does not hold a valid key stops startup with an error;
 * it is never replaced, since a new key would break every receiver that pinned the old one.
 *
 * The secret never leaves this module's closures: it is not a property of the returned object, so
 * it cannot reach logs, `JSON.stringify` or `util.inspect`, and no error message quotes it.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  randomBytes,
  sign as nativeSign,
  verify as nativeVerify,
} from "node:crypto";
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { inspect } from "node:util";
import { ConfigError, NonRetryableError } from "./errors.js";

export interface SigningKey {
  /** Short stable id: `key_` + the first 16 hex digits of sha256(public key). */
  readonly keyId: string;
  /** The public key as an SPKI PEM ("-----BEGIN PUBLIC KEY-----"), as the public route serves it. */
  readonly publicKeyPem: string;
  /** The raw 32-byte ed25519 public key (a copy; changing it changes nothing). */
  readonly publicKey: Uint8Array;
  /** Detached ed25519 signature, base64. Strings are signed as their UTF-8 bytes. */
  sign(message: Uint8Array | string): string;
  /** Checks a base64 detached signature against this key. */
  verify(message: Uint8Array | string, signature: string): boolean;
}

export interface LoadSigningKeyOptions {
  /** Where `signing-key.json` lives (DATA_DIR). Created if missing. */
  dataDir: string;
  /** `SIGNING_KEY_SEED` from configuration: base64 of a 32-byte seed. Wins over the file. */
  fromEnv?: string;
}

/** The key file exists but is unreadable or invalid; startup must stop, the file stays as is. */
export class SigningKeyError extends NonRetryableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SigningKeyError";
  }
}

export const SIGNING_KEY_FILE = "signing-key.json";
const SEED_BYTES = 32;
const SIGNATURE_BYTES = 64;
/** DER prefix of an ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE { SEQUENCE { OID 1.3.101.112 },
 * BIT STRING (32 bytes) }; the raw key follows. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
/** DER prefix of an ed25519 PKCS#8 private key (RFC 8410): the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

interface KeyFile {
  version: 1;
  algorithm: "ed25519";
  keyId: string;
  publicKey: string;
  seed: string;
  createdAt: string;
}

/** Loads the instance key from configuration or DATA_DIR, creating it on first start. */
export function loadOrCreateSigningKey(options: LoadSigningKeyOptions): SigningKey {
  if (options.fromEnv !== undefined && options.fromEnv.trim() !== "") {
    const seed = decodeSeed(options.fromEnv);
    if (!seed) throw new ConfigError(["SIGNING_KEY_SEED must be the base64 encoding of exactly 32 bytes"]);
    return signingKeyFromSeed(seed);
  }
  const file = path.join(options.dataDir, SIGNING_KEY_FILE);
  const existing = readKeyFile(file);
  if (existing) return existing;
  return createKeyFile(options.dataDir, file);
}

/** Builds the key object for a 32-byte ed25519 seed. */
export function signingKeyFromSeed(seed: Uint8Array): SigningKey {
  if (seed.length !== SEED_BYTES) throw new TypeError(`an ed25519 seed is ${SEED_BYTES} bytes, got ${seed.length}`);
  // node:crypto derives the key pair natively (tweetnacl's pure-JS derivation took ~150 ms of
  // start-up); signing runs on every webhook delivery, natively too (~0.2 ms, ~20 ms in JS).
  const nativeKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  const publicKeyObject = createPublicKey(nativeKey);
  const publicKey = new Uint8Array(
    publicKeyObject.export({ format: "der", type: "spki" }).subarray(ED25519_SPKI_PREFIX.length),
  );
  const keyId = keyIdFor(publicKey);
  const publicKeyPem = spkiPem(publicKey);
  if (publicKeyObject.asymmetricKeyType !== "ed25519" || publicKey.length !== 32) {
    throw new Error("internal: node:crypto did not derive a 32-byte ed25519 public key");
  }

  const toBytes = (m: Uint8Array | string) => (typeof m === "string" ? Buffer.from(m, "utf8") : m);
  const key: SigningKey = {
    keyId,
    publicKeyPem,
    get publicKey() {
      return new Uint8Array(publicKey);
    },
    sign(message) {
      return nativeSign(null, typeof message === "string" ? Buffer.from(message, "utf8") : message, nativeKey).toString(
        "base64",
      );
    },
    verify(message, signature) {
      const sig = Buffer.from(signature, "base64");
      if (sig.length !== SIGNATURE_BYTES) return false;
      return nativeVerify(null, toBytes(message), publicKeyObject, sig);
    },
  };
  Object.defineProperties(key, {
    toJSON: { value: () => ({ keyId, publicKeyPem }), enumerable: false },
    [inspect.custom]: { value: () => `SigningKey { keyId: '${keyId}' }`, enumerable: false },
  });
  return Object.freeze(key);
}

/** `key_` + first 16 hex digits of sha256(public key). */
export function keyIdFor(publicKey: Uint8Array): string {
  return `key_${createHash("sha256").update(publicKey).digest("hex").slice(0, 16)}`;
}

/** SPKI PEM for a raw 32-byte ed25519 public key. */
export function spkiPem(publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new TypeError("an ed25519 public key is 32 bytes");
  const der = Buffer.concat([ED25519_SPKI_PREFIX, publicKey]);
  return `-----BEGIN PUBLIC KEY-----\n${der.toString("base64")}\n-----END PUBLIC KEY-----\n`;
}

/** The key in `file`, undefined when there is no file; throws SigningKeyError for anything else. */
function readKeyFile(file: string): SigningKey | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new SigningKeyError(`cannot read the signing key ${file} (${(err as NodeJS.ErrnoException).code ?? err})`, {
      cause: err,
    });
  }
  const corrupt = (why: string) =>
    new SigningKeyError(
      `the signing key ${file} is corrupt (${why}); refusing to start rather than replace it. ` +
        "Restore it from a backup, or move it away to create a new key (receivers will then see a new key id).",
    );
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    // JSON.parse errors quote the input, which here is secret: say only that it is not JSON.
    throw corrupt("not valid JSON");
  }
  if (typeof data !== "object" || data === null) throw corrupt("not a JSON object");
  const record = data as Partial<Record<keyof KeyFile, unknown>>;
  if (record.version !== 1) throw corrupt("unknown version");
  if (record.algorithm !== "ed25519") throw corrupt("algorithm is not ed25519");
  const seed = typeof record.seed === "string" ? decodeSeed(record.seed) : undefined;
  if (!seed) throw corrupt("seed is not base64 of 32 bytes");
  const key = signingKeyFromSeed(seed);
  if (record.publicKey !== Buffer.from(key.publicKey).toString("base64"))
    throw corrupt("publicKey does not match the seed");
  if (record.keyId !== key.keyId) throw corrupt("keyId does not match the seed");
  return key;
}

/** Creates a fresh key file without ever overwriting one; returns whichever key ends up on disk. */
function createKeyFile(dataDir: string, file: string): SigningKey {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const seed = randomBytes(SEED_BYTES);
  const key = signingKeyFromSeed(seed);
  const record: KeyFile = {
    version: 1,
    algorithm: "ed25519",
    keyId: key.keyId,
    publicKey: Buffer.from(key.publicKey).toString("base64"),
    seed: seed.toString("base64"),
    createdAt: new Date().toISOString(),
  };
  const tmp = path.join(dataDir, `.${SIGNING_KEY_FILE}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(record, null, 2)}\n`);
    fchmodSync(fd, 0o600); // whatever the umask did
    fsyncSync(fd);
  } finally {
    closeSync(fd);
    seed.fill(0);
  }

  try {
    // link() fails with EEXIST instead of replacing: if another process created the key first, use its key.
    linkSync(tmp, file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      unlinkQuietly(tmp);
      const winner = readKeyFile(file);
      if (winner) return winner;
      throw new SigningKeyError(`the signing key ${file} vanished while being created`);
    }
    if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "ENOSYS") {
      // A filesystem without hard links: fall back to rename after a last existence check.
      const winner = readKeyFile(file);
      if (winner) {
        unlinkQuietly(tmp);
        return winner;
      }
      renameSync(tmp, file);
      syncDir(dataDir);
      return key;
    }
    unlinkQuietly(tmp);
    throw new SigningKeyError(`cannot create the signing key ${file} (${code ?? err})`, { cause: err });
  }
  unlinkQuietly(tmp);
  syncDir(dataDir);
  return key;
}

/** Decodes a base64 (or base64url) 32-byte seed; undefined when it is anything else. */
function decodeSeed(text: string): Uint8Array | undefined {
  const s = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(s)) return undefined;
  const bytes = Buffer.from(s, "base64");
  return bytes.length === SEED_BYTES ? new Uint8Array(bytes) : undefined;
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

/** Best effort: make the new directory entry durable. Not every platform can fsync a directory. */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // ignore
  }
}
