/**
 * Receiver helpers for sluice webhook deliveries (SPEC.md "Signatures on every delivery",
 * "Formats", "Chain apply data"). Hand-written; imports only node:crypto and the payload types
 * it shares with the service (runtime/formats).
 *
 * - `createDeliveryVerifier({ baseUrl })`: checks the ed25519 `x-service-signature` over
 *   `<webhook-id>.<rawBody>` with the instance's public key, fetched from
 *   `GET /public/streams/signing-key` (the PEM, or its JSON form: both are read) once, cached,
 *   and fetched again when a delivery's `x-service-signature-keyid` differs (at most once per
 *   `minRefreshMs` for unknown ids);
 * - `verifyHmac(headers, rawBody, secret)`: the standard-webhooks `webhook-signature` (HMAC-SHA256
 *   with the `whsec_` secret; any `v1,` entry may match, so rotations need no coordination);
 * - `decodeChainDelivery(rawBody)`: parses a standard-webhooks `chain.*` delivery, throwing on
 *   anything else (other formats, subgraph deliveries, malformed bodies).
 * Always verify the raw, unparsed body. Receivers answer 401 when verification fails.
 */
import { createHmac, createPublicKey, type KeyObject, timingSafeEqual, verify as verifySignature } from "node:crypto";
import type { ChainApplyData, RollbackData } from "../formats/chain-payload.js";

export type { ChainApplyData, DeliveryEvent, RollbackData } from "../formats/chain-payload.js";

/** Node's IncomingHttpHeaders, a Fetch `Headers`, or a plain record. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export class DeliveryVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeliveryVerificationError";
  }
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const v = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(v) ? v[0] : v;
}

const bodyText = (raw: string | Uint8Array) => (typeof raw === "string" ? raw : Buffer.from(raw).toString("utf8"));

/** Verifies `x-service-signature` against a known SPKI PEM public key (no fetching). */
export function verifyServiceSignature(
  headers: HeaderSource,
  rawBody: string | Uint8Array,
  publicKey: string | KeyObject,
): boolean {
  const id = header(headers, "webhook-id");
  const signature = header(headers, "x-service-signature");
  if (!id || !signature) return false;
  const key = typeof publicKey === "string" ? createPublicKey(publicKey) : publicKey;
  const message = Buffer.concat([
    Buffer.from(`${id}.`, "utf8"),
    Buffer.from(typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody),
  ]);
  try {
    return verifySignature(null, message, key, Buffer.from(signature, "base64"));
  } catch {
    return false;
  }
}

/**
 * The key id and SPKI PEM of a `GET /public/streams/signing-key` answer, in either form: the PEM
 * itself with the id in `x-service-signature-keyid` (the default), or the JSON
 * `{ key_id, public_key_pem }` (asked for with `Accept: application/json`, and what older
 * instances always send). Told apart by the body, so a missing or generic Content-Type is fine.
 */
export function parseSigningKeyResponse(body: string, keyIdHeader: string | null): { keyId: string; pem: string } {
  if (body.trimStart().startsWith("-----BEGIN ")) {
    if (!keyIdHeader) throw new DeliveryVerificationError("signing key response lacks x-service-signature-keyid");
    return { keyId: keyIdHeader, pem: body };
  }
  let parsed: { key_id?: unknown; public_key_pem?: unknown };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    throw new DeliveryVerificationError("signing key response is neither a PEM nor JSON");
  }
  if (typeof parsed?.key_id !== "string" || typeof parsed.public_key_pem !== "string") {
    throw new DeliveryVerificationError("signing key response lacks key_id / public_key_pem");
  }
  return { keyId: parsed.key_id, pem: parsed.public_key_pem };
}

export interface DeliveryVerifierOptions {
  /** The instance base URL, e.g. `http://127.0.0.1:3800` (the key is at /public/streams/signing-key). */
  baseUrl: string;
  fetch?: typeof fetch;
  /** Least time between two fetches triggered by unknown key ids (default 10 s). */
  minRefreshMs?: number;
  now?: () => number;
}

export interface DeliveryVerifier {
  /** Throws DeliveryVerificationError unless the ed25519 signature checks out. */
  verify(headers: HeaderSource, rawBody: string | Uint8Array): Promise<void>;
}

/** ed25519 verification with the key fetched from the instance, cached, refreshed on a new key id. */
export function createDeliveryVerifier(options: DeliveryVerifierOptions): DeliveryVerifier {
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const minRefreshMs = options.minRefreshMs ?? 10_000;
  const keyUrl = `${options.baseUrl.replace(/\/+$/, "")}/public/streams/signing-key`;
  let cached: { keyId: string; key: KeyObject } | null = null;
  let inflight: Promise<void> | null = null;
  let lastFetch = Number.NEGATIVE_INFINITY;

  async function refresh(): Promise<void> {
    inflight ??= (async () => {
      lastFetch = now();
      const res = await doFetch(keyUrl, { headers: { accept: "text/plain, application/json;q=0.5" } });
      if (!res.ok) throw new DeliveryVerificationError(`signing key fetch failed: ${res.status}`);
      const published = parseSigningKeyResponse(await res.text(), res.headers.get("x-service-signature-keyid"));
      cached = { keyId: published.keyId, key: createPublicKey(published.pem) };
    })().finally(() => {
      inflight = null;
    });
    return inflight;
  }

  return {
    async verify(headers, rawBody) {
      const keyId = header(headers, "x-service-signature-keyid");
      if (!keyId) throw new DeliveryVerificationError("missing x-service-signature-keyid");
      if (!cached || (cached.keyId !== keyId && now() - lastFetch >= minRefreshMs)) await refresh();
      const key = cached as { keyId: string; key: KeyObject } | null;
      if (!key || key.keyId !== keyId) throw new DeliveryVerificationError(`unknown signing key id ${keyId}`);
      if (!verifyServiceSignature(headers, rawBody, key.key))
        throw new DeliveryVerificationError("x-service-signature does not verify");
    },
  };
}

export interface HmacOptions {
  /** Largest clock difference accepted, seconds (default 300, as standard-webhooks). */
  toleranceSeconds?: number;
  now?: () => number;
}

/**
 * Verifies the standard-webhooks HMAC (`webhook-id`, `webhook-timestamp`, `webhook-signature`)
 * with one or more `whsec_` secrets; throws DeliveryVerificationError when none matches.
 */
export function verifyHmac(
  headers: HeaderSource,
  rawBody: string | Uint8Array,
  secrets: string | readonly string[],
  options: HmacOptions = {},
): void {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures)
    throw new DeliveryVerificationError("missing webhook-id, webhook-timestamp or webhook-signature");
  const ts = Number(timestamp);
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - ts) > (options.toleranceSeconds ?? 300)) {
    throw new DeliveryVerificationError("webhook-timestamp is missing or outside the tolerance");
  }
  const text = bodyText(rawBody);
  const given = signatures
    .split(" ")
    .filter((s) => s.startsWith("v1,"))
    .map((s) => Buffer.from(s.slice(3), "base64"));
  for (const secret of typeof secrets === "string" ? [secrets] : secrets) {
    const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
    const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${text}`, "utf8").digest();
    if (given.some((g) => g.length === expected.length && timingSafeEqual(g, expected))) return;
  }
  throw new DeliveryVerificationError("no webhook-signature matches");
}

export interface TestData {
  test: true;
  message: string;
  webhook_id: string;
  subscription_id?: string;
  sent_at: string;
}

/** A decoded standard-webhooks chain delivery. */
export type ChainDelivery =
  | { type: `chain.${string}.apply`; timestamp: string; data: ChainApplyData }
  | { type: "chain.test.apply"; timestamp: string; data: TestData }
  | { type: "chain.reorg.rollback"; timestamp: string; data: RollbackData };

/**
 * Parses a standard-webhooks delivery of a chain webhook. Throws on anything else: invalid JSON,
 * another format (raw, cloudevents, …), a subgraph delivery, or a `data` of the wrong action.
 * Check `data.test` (test pings) before treating an apply as live.
 */
export function decodeChainDelivery(rawBody: string | Uint8Array): ChainDelivery {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText(rawBody));
  } catch {
    throw new DeliveryVerificationError("delivery body is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new DeliveryVerificationError("not a standard-webhooks delivery (expected { type, timestamp, data })");
  }
  const { type, timestamp, data } = parsed as Record<string, unknown>;
  if (
    typeof type !== "string" ||
    typeof timestamp !== "string" ||
    typeof data !== "object" ||
    data === null ||
    Array.isArray(data)
  ) {
    throw new DeliveryVerificationError("not a standard-webhooks delivery (expected { type, timestamp, data })");
  }
  if (!/^chain\.[a-z0-9_]+\.(apply|rollback)$/.test(type))
    throw new DeliveryVerificationError(`not a chain delivery: ${type}`);
  const d = data as Record<string, unknown>;
  if (type === "chain.test.apply") {
    if (d.test !== true) throw new DeliveryVerificationError("chain.test.apply without data.test");
  } else if (type === "chain.reorg.rollback") {
    if (d.action !== "rollback" || !Array.isArray(d.orphaned))
      throw new DeliveryVerificationError("malformed rollback data");
  } else if (
    !type.endsWith(".apply") ||
    d.action !== "apply" ||
    typeof d.trigger !== "string" ||
    typeof d.event !== "object"
  ) {
    throw new DeliveryVerificationError("malformed chain apply data");
  }
  return { type, timestamp, data } as ChainDelivery;
}
