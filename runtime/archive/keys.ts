/** The archive signing key on disk: `{ "algorithm": "ed25519", "seed": base64 }`, mode 0600, created on first use. */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { type ArchiveKey, keyFromSeed } from "./manifest.js";

export function loadArchiveKey(file: string, create: boolean): ArchiveKey {
  if (!fs.existsSync(file)) {
    if (!create) throw new Error(`no archive key at ${file}`);
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const doc = { algorithm: "ed25519", seed: randomBytes(32).toString("base64") };
    fs.writeFileSync(file, `${JSON.stringify(doc)}\n`, { mode: 0o600, flag: "wx" });
  }
  let doc: { algorithm?: string; seed?: string };
  try {
    doc = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    throw new Error(`archive key ${file} is not JSON`);
  }
  const seed = Buffer.from(doc.seed ?? "", "base64");
  if (doc.algorithm !== "ed25519" || seed.length !== 32)
    throw new Error(`archive key ${file} must be {"algorithm":"ed25519","seed":<32 bytes base64>}`);
  return keyFromSeed(seed);
}
