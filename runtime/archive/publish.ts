/**
 * `sluice archive publish`: exports finalized canonical ranges of an instance's database as
 * partition bundles, then a new signed manifest and `latest` pointer. Only partitions lying wholly
 * at or below the finalized height are published; a re-run adds only partitions after the last
 * one published (earlier bundles are never rewritten, so their digests stay valid).
 */
import { createHash } from "node:crypto";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { createGzip } from "node:zlib";
import { readTip } from "../chain/tip.js";
import type { Db } from "../db/types.js";
import { GZIP_OPTIONS, sha256Hex } from "./bundle.js";
import { canonicalHeights, readPartitionBounds } from "./chain-tables.js";
import {
  type ArchiveKey,
  CHAIN_IDS,
  type KeyList,
  type LatestPointer,
  MANIFEST_FORMAT,
  type Manifest,
  type PartitionEntry,
  type Signed,
  publicKeyEntry,
  sign,
  trustedKeys,
  verifySigned,
} from "./manifest.js";
import { bundleChunks, discard, exportPartition, hashing, inSnapshot } from "./partition-export.js";
import type { ArchiveStorage } from "./storage.js";

export const DEFAULT_PARTITION_SPAN = 10_000;

export interface PublishOptions {
  db: Db;
  storage: ArchiveStorage;
  key: ArchiveKey;
  /** The key the archive was signed with so far, to endorse `key` (rotation). */
  previousKey?: ArchiveKey;
  network: string;
  span: number;
  /** Called after each partition written. */
  onPartition?(p: { entry: PartitionEntry; done: number; total: number; events: number; bytes: number }): void;
  now?: () => Date;
}

export interface PublishSummary {
  sequence: number;
  added: PartitionEntry[];
  partitions: number;
  finalizedHeight: number | null;
  events: number;
  bytes: number;
  seconds: number;
  unchanged: boolean;
}

export class PublishError extends Error {}

export function bundleFileName(firstHeight: number, lastHeight: number): string {
  const pad = (n: number) => String(n).padStart(10, "0");
  return `bundles/${pad(firstHeight)}-${pad(lastHeight)}.bundle.gz`;
}

export async function readJson<T>(storage: ArchiveStorage, key: string): Promise<T | null> {
  const raw = await storage.read(key);
  return raw === null ? null : (JSON.parse(raw.toString("utf8")) as T);
}

export async function publishArchive(o: PublishOptions): Promise<PublishSummary> {
  const started = performance.now();
  if (!Number.isInteger(o.span) || o.span < 1)
    throw new PublishError("the partition span must be a positive whole number");
  const keys = await updateKeyList(o);
  const own = [o.key, ...(o.previousKey ? [o.previousKey] : [])];
  const trusted = trustedKeys(
    keys,
    own.map((k) => Buffer.from(k.publicKey).toString("base64")),
  );
  let previous: Manifest | null = null;
  const latest = await readJson<Signed<LatestPointer>>(o.storage, "latest.json");
  if (latest !== null) {
    const pointer = verifySigned(latest, trusted, "latest.json");
    const manifest = await readJson<Signed<Manifest>>(o.storage, pointer.manifest);
    if (manifest === null) throw new PublishError(`latest.json names ${pointer.manifest}, which is missing`);
    previous = verifySigned(manifest, trusted, pointer.manifest);
    if (previous.network !== o.network)
      throw new PublishError(`the archive holds ${previous.network}, this instance is on ${o.network}`);
    if (previous.partition_span !== o.span)
      throw new PublishError(
        `the archive's partitions span ${previous.partition_span} heights; publish with --span ${previous.partition_span}`,
      );
  }

  const tip = await readTip(o.db);
  const finalized = tip.finalizedHeight;
  const heights = await canonicalHeights(o.db);
  const partitions = [...(previous?.partitions ?? [])];
  const lastIndex = partitions.length ? partitions[partitions.length - 1].index : -1;
  const candidates: number[] = [];
  if (finalized !== null && heights !== null) {
    const from = Math.max(lastIndex + 1, Math.floor(heights.min / o.span));
    for (let k = from; (k + 1) * o.span - 1 <= finalized; k++) candidates.push(k);
  }
  const added: PartitionEntry[] = [];
  let events = 0;
  let bytes = 0;
  for (const k of candidates) {
    const first = k * o.span;
    const last = first + o.span - 1;
    const entry = await inSnapshot(o.db, async (q) => {
      const bounds = await readPartitionBounds(q, first, last);
      if (bounds === null) return null; // no stored block in this span (a chain recorded from later on)
      const exported = await exportPartition(q, bounds.range);
      const name = bundleFileName(first, last);
      const content = createHash("sha256");
      const file = createHash("sha256");
      const size = { bytes: 0 };
      try {
        // Spooled sections → frame → gzip → storage, both digests taken on the way.
        await pipeline(Readable.from(hashing(bundleChunks(exported), content)), createGzip(GZIP_OPTIONS), (gz) =>
          o.storage.write(name, hashing(gz, file, size)),
        );
      } finally {
        await discard(exported);
      }
      const rows = Object.fromEntries(exported.sections.map((s) => [s.table.slice("chain.".length), s.rows]));
      const e: PartitionEntry = {
        index: k,
        first_height: first,
        last_height: last,
        first_block: {
          height: bounds.first.height,
          index_block_hash: bounds.first.indexBlockHash,
          parent_index_block_hash: bounds.first.parentIndexBlockHash,
        },
        last_block: { height: bounds.last.height, index_block_hash: bounds.last.indexBlockHash },
        burn_after_height: bounds.range.burnAfter,
        burn_to_height: bounds.range.burnTo,
        file: name,
        sha256: file.digest("hex"),
        content_sha256: content.digest("hex"),
        bytes: size.bytes,
        rows: rows as PartitionEntry["rows"],
        price_units: 1,
      };
      return e;
    });
    if (entry === null) continue;
    partitions.push(entry);
    added.push(entry);
    events += entry.rows.events;
    bytes += entry.bytes;
    o.onPartition?.({ entry, done: added.length, total: candidates.length, events, bytes });
  }

  const seconds = (performance.now() - started) / 1000;
  if (previous !== null && added.length === 0)
    return {
      sequence: previous.sequence,
      added,
      partitions: partitions.length,
      finalizedHeight: finalized,
      events,
      bytes,
      seconds,
      unchanged: true,
    };
  const sequence = (previous?.sequence ?? 0) + 1;
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    network: o.network,
    chain_id: CHAIN_IDS[o.network] ?? 0,
    key_id: o.key.keyId,
    sequence,
    partition_span: o.span,
    partitions,
  };
  const manifestName = `manifests/${String(sequence).padStart(8, "0")}.json`;
  const manifestBytes = Buffer.from(`${JSON.stringify(sign(manifest, o.key), null, 1)}\n`);
  await o.storage.write(manifestName, manifestBytes);
  const pointer: LatestPointer = {
    sequence,
    manifest: manifestName,
    manifest_sha256: sha256Hex(manifestBytes),
    network: o.network,
    last_height: partitions.length ? partitions[partitions.length - 1].last_height : -1,
    published_at: (o.now?.() ?? new Date()).toISOString(),
  };
  await o.storage.write("latest.json", Buffer.from(`${JSON.stringify(sign(pointer, o.key), null, 1)}\n`));
  return {
    sequence,
    added,
    partitions: partitions.length,
    finalizedHeight: finalized,
    events,
    bytes,
    seconds: (performance.now() - started) / 1000,
    unchanged: false,
  };
}

/** keys.json lists every key that ever signed; a new key joins endorsed by the previous one. */
async function updateKeyList(o: PublishOptions): Promise<KeyList> {
  const list = (await readJson<KeyList>(o.storage, "keys.json")) ?? { keys: [] };
  if (list.keys.some((k) => k.key_id === o.key.keyId)) return list;
  if (list.keys.length > 0) {
    if (!o.previousKey || !list.keys.some((k) => k.key_id === o.previousKey?.keyId))
      throw new PublishError(
        `key ${o.key.keyId} is new to this archive (signed so far by ${list.keys.map((k) => k.key_id).join(", ")}); pass the current key as --previous-key to rotate`,
      );
  }
  const next: KeyList = {
    keys: [...list.keys, publicKeyEntry(o.key, list.keys.length > 0 ? (o.previousKey ?? null) : null)],
  };
  await o.storage.write("keys.json", Buffer.from(`${JSON.stringify(next, null, 1)}\n`));
  return next;
}
