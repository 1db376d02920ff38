/**
 * The archive's signed documents (docs/archive-format.md), pure: the manifest (network, chain id,
 * key id, and per partition its heights, boundary block hashes, digests, size, rows and price),
 * the `latest` pointer, and the key list. Each is signed with ed25519 over the canonical JSON of
 * its body (keys sorted, no spaces), so any JSON tool can re-derive the signed bytes.
 */
import { createHash } from "node:crypto";
import nacl from "tweetnacl";

export const MANIFEST_FORMAT = "sluice-archive-manifest/1";

/** Stacks chain ids (SIP-005): mainnet 0x00000001; testnet and devnet 0x80000000. */
export const CHAIN_IDS: Record<string, number> = { mainnet: 0x00000001, testnet: 0x80000000, devnet: 0x80000000 };

export interface PartitionEntry {
  index: number;
  first_height: number;
  last_height: number;
  first_block: { height: number; index_block_hash: string; parent_index_block_hash: string };
  last_block: { height: number; index_block_hash: string };
  burn_after_height: number;
  burn_to_height: number;
  file: string;
  sha256: string;
  content_sha256: string;
  bytes: number;
  rows: { burn_blocks: number; blocks: number; transactions: number; events: number };
  price_units: number;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  network: string;
  chain_id: number;
  key_id: string;
  sequence: number;
  partition_span: number;
  partitions: PartitionEntry[];
}

export interface Signature {
  key_id: string;
  algorithm: "ed25519";
  value: string;
}

export interface Signed<T> {
  body: T;
  signature: Signature;
}

export interface LatestPointer {
  sequence: number;
  manifest: string;
  manifest_sha256: string;
  network: string;
  last_height: number;
  published_at: string;
}

export interface KeyEntry {
  key_id: string;
  algorithm: "ed25519";
  public_key: string;
  /** The key that vouches for this one (rotation), with its signature over `keyEndorsementText`. */
  endorsed_by: string | null;
  endorsement: string | null;
}

export interface KeyList {
  keys: KeyEntry[];
}

export interface ArchiveKey {
  keyId: string;
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

/** JSON with object keys sorted at every level and no whitespace: the bytes a signature covers. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** A key id: the first 16 hex digits of sha256 of the raw 32-byte public key. */
export function keyIdOf(publicKey: Uint8Array): string {
  return createHash("sha256").update(publicKey).digest("hex").slice(0, 16);
}

export function keyFromSeed(seed: Uint8Array): ArchiveKey {
  const pair = nacl.sign.keyPair.fromSeed(seed);
  return { keyId: keyIdOf(pair.publicKey), publicKey: pair.publicKey, secretKey: pair.secretKey };
}

export function sign<T>(body: T, key: ArchiveKey): Signed<T> {
  const bytes = Buffer.from(canonicalJson(body));
  return {
    body,
    signature: {
      key_id: key.keyId,
      algorithm: "ed25519",
      value: Buffer.from(nacl.sign.detached(bytes, key.secretKey)).toString("base64"),
    },
  };
}

export class SignatureError extends Error {}

/** Checks a signed document against the trusted keys (by key id); throws SignatureError. */
export function verifySigned<T>(doc: Signed<T>, trusted: ReadonlyMap<string, Uint8Array>, what: string): T {
  const sig = doc?.signature;
  if (sig?.algorithm !== "ed25519" || typeof sig.value !== "string") throw new SignatureError(`${what} is not signed`);
  const key = trusted.get(sig.key_id);
  if (key === undefined) throw new SignatureError(`${what} is signed by key ${sig.key_id}, which is not trusted`);
  const ok = nacl.sign.detached.verify(Buffer.from(canonicalJson(doc.body)), Buffer.from(sig.value, "base64"), key);
  if (!ok) throw new SignatureError(`${what} has a bad signature (key ${sig.key_id})`);
  return doc.body;
}

export function keyEndorsementText(entry: Pick<KeyEntry, "key_id" | "public_key">): string {
  return `sluice-archive-key\n${entry.key_id}\n${entry.public_key}`;
}

export function publicKeyEntry(key: ArchiveKey, endorser: ArchiveKey | null): KeyEntry {
  const entry = { key_id: key.keyId, public_key: Buffer.from(key.publicKey).toString("base64") };
  return {
    ...entry,
    algorithm: "ed25519",
    endorsed_by: endorser?.keyId ?? null,
    endorsement: endorser
      ? Buffer.from(nacl.sign.detached(Buffer.from(keyEndorsementText(entry)), endorser.secretKey)).toString("base64")
      : null,
  };
}

/**
 * The keys to trust: the pinned ones, then every listed key a trusted key endorsed (rotation keeps
 * old key ids verifiable, and a new key is trusted through the old one). Without pins, the first
 * listed key is taken on trust (the caller warns).
 */
export function trustedKeys(list: KeyList, pinned: readonly string[]): Map<string, Uint8Array> {
  const trusted = new Map<string, Uint8Array>();
  for (const p of pinned) {
    const raw = Buffer.from(p, "base64");
    if (raw.length !== 32) throw new SignatureError("a pinned archive public key must be 32 bytes, base64");
    trusted.set(keyIdOf(raw), raw);
  }
  const entries = Array.isArray(list?.keys) ? list.keys : [];
  if (pinned.length === 0 && entries.length > 0) {
    const first = Buffer.from(entries[0].public_key, "base64");
    if (keyIdOf(first) === entries[0].key_id) trusted.set(entries[0].key_id, first);
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const e of entries) {
      if (trusted.has(e.key_id) || !e.endorsed_by || !e.endorsement) continue;
      const endorser = trusted.get(e.endorsed_by);
      const raw = Buffer.from(e.public_key, "base64");
      if (!endorser || raw.length !== 32 || keyIdOf(raw) !== e.key_id) continue;
      if (
        nacl.sign.detached.verify(Buffer.from(keyEndorsementText(e)), Buffer.from(e.endorsement, "base64"), endorser)
      ) {
        trusted.set(e.key_id, raw);
        grew = true;
      }
    }
  }
  return trusted;
}

/** Checks that consecutive partitions chain: each first block's parent is the previous last block. */
export function checkPartitionChain(partitions: readonly PartitionEntry[]): string | null {
  for (let i = 1; i < partitions.length; i++) {
    const prev = partitions[i - 1];
    const cur = partitions[i];
    if (cur.first_height <= prev.last_height) return `partition ${cur.index} overlaps partition ${prev.index}`;
    if (
      cur.first_block.height === prev.last_block.height + 1 &&
      cur.first_block.parent_index_block_hash !== prev.last_block.index_block_hash
    )
      return `partition ${cur.index} does not build on partition ${prev.index}`;
  }
  return null;
}
