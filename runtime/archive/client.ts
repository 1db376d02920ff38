/**
 * The instance's side of the archive HTTP protocol: fetch and check the signed documents, ask for
 * presigned URLs, and download bundles to disk, resuming a partial file with a Range request.
 * A bundle is accepted only when its sha256 is the one the signed manifest names.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { BundleKind } from "./credits/money.js";
import { bundleIdempotencyKey, chargeHeaders } from "./credits/presign-charge.js";
import {
  type KeyList,
  type LatestPointer,
  type Manifest,
  type PartitionEntry,
  type Signed,
  SignatureError,
  checkPartitionChain,
  trustedKeys,
  verifySigned,
} from "./manifest.js";

export class ArchiveRefusal extends Error {
  constructor(
    message: string,
    readonly partition?: PartitionEntry,
  ) {
    super(partition ? `partition ${partition.first_height}-${partition.last_height}: ${message}` : message);
  }
}

export interface OpenedArchive {
  baseUrl: string;
  manifest: Manifest;
  /** True when no key was pinned and the archive's first key was taken on trust. */
  unpinned: boolean;
}

/** Network failures are retried a few times (a dropped connection, a server restarting). */
const ATTEMPTS = 4;

function describeFetchError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause ? `${(err as Error).message} (${cause.code ?? cause.message})` : (err as Error).message;
}

async function request(url: string, init: RequestInit = {}, entry?: PartitionEntry): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (err) {
      if (attempt >= ATTEMPTS)
        throw new ArchiveRefusal(`cannot reach ${new URL(url).origin}: ${describeFetchError(err)}`, entry);
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
}

async function getJson<T>(url: string): Promise<T> {
  const res = await request(url);
  if (!res.ok) throw new ArchiveRefusal(`${url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  try {
    return (await res.json()) as T;
  } catch {
    throw new ArchiveRefusal(`${url} is not JSON`);
  }
}

/** Reads latest.json → manifest, checking both signatures against the trusted keys. */
export async function openArchive(baseUrl: string, pinnedKeys: readonly string[]): Promise<OpenedArchive> {
  const base = baseUrl.replace(/\/+$/, "");
  const keys = await getJson<KeyList>(`${base}/keys.json`);
  try {
    const trusted = trustedKeys(keys, pinnedKeys);
    if (trusted.size === 0) throw new SignatureError("the archive lists no usable key");
    const latest = verifySigned(await getJson<Signed<LatestPointer>>(`${base}/latest.json`), trusted, "latest.json");
    if (!/^manifests\/\d{8}\.json$/.test(latest.manifest))
      throw new ArchiveRefusal(`latest.json names an unexpected manifest ${latest.manifest}`);
    const res = await request(`${base}/${latest.manifest}`);
    if (!res.ok) throw new ArchiveRefusal(`${latest.manifest} answered ${res.status}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (createHash("sha256").update(bytes).digest("hex") !== latest.manifest_sha256)
      throw new ArchiveRefusal(`${latest.manifest} does not match the digest latest.json names`);
    const manifest = verifySigned(JSON.parse(bytes.toString("utf8")) as Signed<Manifest>, trusted, latest.manifest);
    const broken = checkPartitionChain(manifest.partitions);
    if (broken) throw new ArchiveRefusal(`the manifest is inconsistent: ${broken}`);
    return { baseUrl: base, manifest, unpinned: pinnedKeys.length === 0 };
  } catch (err) {
    if (err instanceof SignatureError) throw new ArchiveRefusal(err.message);
    throw err;
  }
}

/**
 * Who pays for a restore's bundles: the credit key (null on a free archive) and the restore's id,
 * which with the bundle's file is the idempotency key of its charge, the same on every retry and
 * resume of that restore.
 */
export interface BundleCharging {
  creditKey: string | null;
  restoreId: string;
  kind: BundleKind;
}

/** What the archive charges: `GET /pricing` (a free archive charges nothing). */
export async function fetchPricing(baseUrl: string): Promise<{ charged: boolean; unitPriceCents: number }> {
  const p = await getJson<{ charged?: unknown; unit_price_cents?: unknown }>(`${baseUrl}/pricing`);
  const unit = Number(p.unit_price_cents);
  if (typeof p.charged !== "boolean" || !Number.isSafeInteger(unit) || unit < 0)
    throw new ArchiveRefusal(`${baseUrl}/pricing is not {charged, unit_price_cents}`);
  return { charged: p.charged && unit > 0, unitPriceCents: p.charged ? unit : 0 };
}

/** A presigned URL for one bundle (charged to `charging`'s credit key by an archive that sells bundles). */
export async function presignedUrl(baseUrl: string, entry: PartitionEntry, charging?: BundleCharging): Promise<string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (charging?.creditKey)
    Object.assign(headers, chargeHeaders(charging.creditKey, bundleIdempotencyKey(charging.restoreId, entry.file)));
  const res = await request(
    `${baseUrl}/presign`,
    {
      method: "POST",
      headers,
      body: JSON.stringify({ file: entry.file, ...(charging ? { kind: charging.kind } : {}) }),
    },
    entry,
  );
  if (!res.ok) {
    const text = await res.text();
    let body: { error?: string; code?: string } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {}
    if (res.status === 402 || res.status === 401)
      throw new ArchiveRefusal(
        `the archive refused to charge the bundle (${res.status} ${body.code ?? ""}: ${body.error ?? text.slice(0, 200)}); see sluice archive balance`,
        entry,
      );
    throw new ArchiveRefusal(`presign answered ${res.status}: ${text.slice(0, 200)}`, entry);
  }
  const { url } = (await res.json()) as { url: string };
  return new URL(url, `${baseUrl}/`).toString();
}

/** sha256 of a file, read in chunks (a bundle may be larger than memory should hold). */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * Downloads a bundle to `dir`, appending to a partial file left by an earlier run (Range), and
 * checks its size and sha256 against the manifest. A mismatch deletes the file and refuses.
 * `url` replaces the presign request (tests pass an edited or expired URL).
 */
/**
 * Whether a bundle's download began in `dir` (whole or in part): its presigned URL was issued, and
 * on a charging archive charged, already; finishing it charges nothing more.
 */
export function bundleDownloadBegan(dir: string, entry: PartitionEntry): boolean {
  const file = bundleFile(dir, entry);
  return fs.existsSync(file) || fs.existsSync(`${file}.part`);
}

/** Where a bundle is downloaded to (and `${file}.part` while it is under way). */
const bundleFile = (dir: string, entry: PartitionEntry) => path.join(dir, `${entry.sha256}.bundle.gz`);

export async function downloadBundle(
  baseUrl: string,
  entry: PartitionEntry,
  dir: string,
  onBytes: (n: number) => void,
  url?: string,
  charging?: BundleCharging,
): Promise<string> {
  const file = bundleFile(dir, entry);
  if (fs.existsSync(file) && fs.statSync(file).size === entry.bytes && (await sha256File(file)) === entry.sha256)
    return file;
  const partial = `${file}.part`;
  fs.mkdirSync(dir, { recursive: true });
  let have = fs.existsSync(partial) ? fs.statSync(partial).size : 0;
  if (have > entry.bytes) {
    fs.rmSync(partial);
    have = 0;
  }
  if (have < entry.bytes) {
    const target = url ?? (await presignedUrl(baseUrl, entry, charging));
    const res = await request(target, { headers: have > 0 ? { range: `bytes=${have}-` } : {} }, entry);
    if (res.status === 403) {
      const body = (await res.json().catch(() => ({}))) as { code?: string; error?: string };
      throw new ArchiveRefusal(
        `the archive refused the download URL (403 ${body.code ?? ""}: ${body.error ?? ""})`,
        entry,
      );
    }
    if (res.status !== 200 && res.status !== 206) throw new ArchiveRefusal(`download answered ${res.status}`, entry);
    if (res.status === 200 && have > 0) {
      fs.rmSync(partial); // the server sent it whole
      have = 0;
    }
    const out = fs.openSync(partial, "a");
    try {
      if (res.body) {
        for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
          fs.writeSync(out, chunk);
          onBytes(chunk.length);
        }
      }
      fs.fsyncSync(out);
    } finally {
      fs.closeSync(out);
    }
  }
  const size = fs.statSync(partial).size;
  const digest = await sha256File(partial);
  if (size !== entry.bytes || digest !== entry.sha256) {
    fs.rmSync(partial, { force: true });
    throw new ArchiveRefusal(
      size !== entry.bytes
        ? `the bundle has ${size} bytes, the signed manifest says ${entry.bytes}`
        : `the bundle's sha256 ${digest} is not the ${entry.sha256} the signed manifest names`,
      entry,
    );
  }
  fs.renameSync(partial, file);
  return file;
}
