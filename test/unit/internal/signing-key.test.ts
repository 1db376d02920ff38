/**
 * runtime/internal/signing-key.ts: the instance ed25519 key (SPEC.md "Signatures on every
 * delivery", `GET /public/streams/signing-key`) — creation, reload, PEM, secrecy, refusal of
 * corrupt files, and the SIGNING_KEY_SEED configuration path.
 */
import { execFile } from "node:child_process";
import { createPublicKey, verify } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { inspect, promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../../runtime/internal/errors.js";
import {
  SIGNING_KEY_FILE,
  SigningKeyError,
  keyIdFor,
  loadOrCreateSigningKey,
  signingKeyFromSeed,
  spkiPem,
} from "../../../runtime/internal/signing-key.js";

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "sluice-signing-key-"));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const keyFile = () => path.join(dataDir, SIGNING_KEY_FILE);
const storedSeed = () => JSON.parse(readFileSync(keyFile(), "utf8")).seed as string;

describe("loadOrCreateSigningKey from DATA_DIR", () => {
  it("creates the key on first start and reloads the same key afterwards", () => {
    const first = loadOrCreateSigningKey({ dataDir });
    expect(existsSync(keyFile())).toBe(true);
    const again = loadOrCreateSigningKey({ dataDir });
    expect(again.keyId).toBe(first.keyId);
    expect(again.publicKeyPem).toBe(first.publicKeyPem);
    expect(Buffer.from(again.publicKey).equals(Buffer.from(first.publicKey))).toBe(true);
    expect(first.keyId).toMatch(/^key_[0-9a-f]{16}$/);
    expect(first.keyId).toBe(keyIdFor(first.publicKey));
    // A signature from the first instance verifies with the reloaded key.
    expect(again.verify("hello", first.sign("hello"))).toBe(true);
  });

  it("creates DATA_DIR when missing and leaves no temporary file behind", () => {
    const nested = path.join(dataDir, "a", "b");
    loadOrCreateSigningKey({ dataDir: nested });
    expect(readdirSync(nested)).toEqual([SIGNING_KEY_FILE]);
  });

  it.skipIf(process.platform === "win32")("writes the file with mode 0600", () => {
    loadOrCreateSigningKey({ dataDir });
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
  });

  it("processes starting together on one DATA_DIR agree on one key", async () => {
    const modulePath = fileURLToPath(new URL("../../../runtime/internal/signing-key.ts", import.meta.url));
    const script = `import(${JSON.stringify(pathToFileURL(modulePath).href)}).then((m) => console.log(m.loadOrCreateSigningKey({ dataDir: process.argv[1] }).keyId))`;
    const cwd = fileURLToPath(new URL("../../..", import.meta.url)); // the repo root, where tsx resolves
    const run = () => promisify(execFile)(process.execPath, ["--import", "tsx", "-e", script, dataDir], { cwd });
    const outputs = await Promise.all([run(), run(), run(), run()]);
    const ids = new Set(outputs.map((o) => o.stdout.trim()));
    expect(ids.size).toBe(1);
    expect(loadOrCreateSigningKey({ dataDir }).keyId).toBe([...ids][0]);
    expect(readdirSync(dataDir)).toEqual([SIGNING_KEY_FILE]);
  });

  it("two different instances get different keys", () => {
    const other = mkdtempSync(path.join(os.tmpdir(), "sluice-signing-key-"));
    try {
      expect(loadOrCreateSigningKey({ dataDir }).keyId).not.toBe(loadOrCreateSigningKey({ dataDir: other }).keyId);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe("signatures and the public key", () => {
  it("a signature over `<webhook-id>.<rawBody>` verifies with node:crypto and the SPKI PEM", () => {
    const key = loadOrCreateSigningKey({ dataDir });
    const message = 'msg_2Yb7.{"type":"chain.test.apply","data":{"test":true,"message":"héllo"}}';
    const sig = key.sign(message);
    expect(Buffer.from(sig, "base64")).toHaveLength(64);
    const pub = createPublicKey(key.publicKeyPem);
    expect(pub.asymmetricKeyType).toBe("ed25519");
    expect(verify(null, Buffer.from(message, "utf8"), pub, Buffer.from(sig, "base64"))).toBe(true);
    expect(verify(null, Buffer.from(`${message} `, "utf8"), pub, Buffer.from(sig, "base64"))).toBe(false);
    // Bytes and the equivalent UTF-8 string sign identically (ed25519 is deterministic).
    expect(key.sign(Buffer.from(message, "utf8"))).toBe(sig);
  });

  it("the PEM is exactly what node:crypto exports for the same key", () => {
    const key = loadOrCreateSigningKey({ dataDir });
    expect(key.publicKeyPem.startsWith("-----BEGIN PUBLIC KEY-----\n")).toBe(true);
    expect(createPublicKey(key.publicKeyPem).export({ type: "spki", format: "pem" })).toBe(key.publicKeyPem);
    expect(spkiPem(key.publicKey)).toBe(key.publicKeyPem);
    const der = createPublicKey(key.publicKeyPem).export({ type: "spki", format: "der" });
    expect(der.subarray(0, 12).toString("hex")).toBe("302a300506032b6570032100");
    expect(der.subarray(12).equals(Buffer.from(key.publicKey))).toBe(true);
  });

  it("verify rejects tampered or malformed signatures", () => {
    const key = loadOrCreateSigningKey({ dataDir });
    const sig = Buffer.from(key.sign("abc"), "base64");
    sig[0] ^= 1;
    expect(key.verify("abc", sig.toString("base64"))).toBe(false);
    expect(key.verify("abc", "not a signature")).toBe(false);
  });

  it("publicKey is a copy: changing it changes nothing", () => {
    const key = loadOrCreateSigningKey({ dataDir });
    const before = key.keyId;
    key.publicKey.fill(0);
    expect(Buffer.from(key.publicKey).equals(Buffer.alloc(32))).toBe(false);
    expect(keyIdFor(key.publicKey)).toBe(before);
  });
});

describe("the secret stays secret", () => {
  it("JSON.stringify, util.inspect, String() and spreading never show the seed", () => {
    const key = loadOrCreateSigningKey({ dataDir });
    const seedB64 = storedSeed();
    const seedHex = Buffer.from(seedB64, "base64").toString("hex");
    const renderings = [
      JSON.stringify(key),
      JSON.stringify({ ...key }),
      JSON.stringify({ nested: key }),
      inspect(key, { showHidden: true, depth: 10 }),
      String(key),
      `${Object.keys(key)}`,
      JSON.stringify(Object.getOwnPropertyNames(key)),
    ];
    for (const text of renderings) {
      expect(text).not.toContain(seedB64);
      expect(text).not.toContain(seedHex);
      expect(text).not.toContain(seedB64.slice(0, 16));
    }
    expect(JSON.parse(JSON.stringify(key))).toEqual({ keyId: key.keyId, publicKeyPem: key.publicKeyPem });
    expect(Object.keys(key).sort()).toEqual(["keyId", "publicKey", "publicKeyPem", "sign", "verify"]);
    expect(Object.isFrozen(key)).toBe(true);
  });
});

describe("a corrupt key file is refused and left untouched", () => {
  const corruptions: [string, (valid: Record<string, unknown>) => string][] = [
    ["empty file", () => ""],
    ["not JSON", () => "{ this is not json"],
    ["JSON but not an object", () => "[1,2]"],
    ["seed missing", ({ seed: _s, ...rest }) => JSON.stringify(rest)],
    ["seed too short", (v) => JSON.stringify({ ...v, seed: Buffer.alloc(16).toString("base64") })],
    ["seed not base64", (v) => JSON.stringify({ ...v, seed: "!!!!" })],
    ["publicKey of another key", (v) => JSON.stringify({ ...v, publicKey: Buffer.alloc(32, 7).toString("base64") })],
    ["keyId of another key", (v) => JSON.stringify({ ...v, keyId: "key_0000000000000000" })],
    ["unknown algorithm", (v) => JSON.stringify({ ...v, algorithm: "rsa" })],
    ["unknown version", (v) => JSON.stringify({ ...v, version: 2 })],
  ];

  for (const [what, make] of corruptions) {
    it(what, () => {
      loadOrCreateSigningKey({ dataDir });
      const valid = JSON.parse(readFileSync(keyFile(), "utf8"));
      const seed = valid.seed as string;
      const content = make(valid);
      writeFileSync(keyFile(), content);
      let error: unknown;
      try {
        loadOrCreateSigningKey({ dataDir });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(SigningKeyError);
      const message = (error as Error).message;
      expect(message).toContain(keyFile());
      expect(message).toMatch(/corrupt/);
      expect(message).not.toContain(seed);
      expect(readFileSync(keyFile(), "utf8")).toBe(content);
      expect(readdirSync(dataDir)).toEqual([SIGNING_KEY_FILE]);
    });
  }

  it.skipIf(process.platform === "win32" || process.getuid?.() === 0)(
    "an unreadable file is an error, not a new key",
    () => {
      loadOrCreateSigningKey({ dataDir });
      chmodSync(keyFile(), 0o000);
      expect(() => loadOrCreateSigningKey({ dataDir })).toThrow(SigningKeyError);
      chmodSync(keyFile(), 0o600);
    },
  );
});

describe("SIGNING_KEY_SEED (fromEnv)", () => {
  const seed = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 1));
  const seedB64 = seed.toString("base64");

  it("gives a deterministic key and writes nothing to DATA_DIR", () => {
    const a = loadOrCreateSigningKey({ dataDir, fromEnv: seedB64 });
    const b = loadOrCreateSigningKey({ dataDir: path.join(dataDir, "elsewhere"), fromEnv: `  ${seedB64}\n` });
    expect(a.keyId).toBe(b.keyId);
    expect(a.publicKeyPem).toBe(b.publicKeyPem);
    expect(a.sign("x")).toBe(b.sign("x"));
    expect(a.keyId).toBe(signingKeyFromSeed(seed).keyId);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it("matches the RFC 8032 test vector 1 public key", () => {
    const rfcSeed = Buffer.from("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "hex");
    const key = loadOrCreateSigningKey({ dataDir, fromEnv: rfcSeed.toString("base64") });
    expect(Buffer.from(key.publicKey).toString("hex")).toBe(
      "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    );
    // RFC 8032 7.1 TEST 1: the empty message's signature.
    expect(Buffer.from(key.sign(new Uint8Array(0)), "base64").toString("hex")).toBe(
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    );
  });

  it("wins over an existing key file", () => {
    const fromFile = loadOrCreateSigningKey({ dataDir });
    const fromEnv = loadOrCreateSigningKey({ dataDir, fromEnv: seedB64 });
    expect(fromEnv.keyId).not.toBe(fromFile.keyId);
    expect(loadOrCreateSigningKey({ dataDir }).keyId).toBe(fromFile.keyId);
  });

  it("an empty value means unset", () => {
    loadOrCreateSigningKey({ dataDir, fromEnv: "" });
    expect(readdirSync(dataDir)).toEqual([SIGNING_KEY_FILE]);
  });

  it("rejects anything but base64 of 32 bytes, without echoing the value", () => {
    for (const bad of ["not base64!", Buffer.alloc(31).toString("base64"), Buffer.alloc(33, 5).toString("base64")]) {
      let error: unknown;
      try {
        loadOrCreateSigningKey({ dataDir, fromEnv: bad });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain("SIGNING_KEY_SEED");
      expect((error as Error).message).not.toContain(bad);
    }
  });
});
