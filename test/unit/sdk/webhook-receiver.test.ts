/**
 * runtime/sdk/webhook-receiver.ts: ed25519 verification with key fetch, cache and refresh on a new
 * key id; HMAC verification; decoding of chain deliveries (throws on anything else).
 */
import { describe, expect, it } from "vitest";
import { buildDeliveryHeaders, generateSecret } from "../../../runtime/dispatcher/signing.js";
import { signingKeyFromSeed } from "../../../runtime/internal/signing-key.js";
import {
  createDeliveryVerifier,
  DeliveryVerificationError,
  decodeChainDelivery,
  verifyHmac,
  verifyServiceSignature,
} from "../../../runtime/sdk/webhook-receiver.js";

const keyA = signingKeyFromSeed(new Uint8Array(32).fill(1));
const keyB = signingKeyFromSeed(new Uint8Array(32).fill(2));
const secret = generateSecret();
const body = JSON.stringify({
  type: "chain.test.apply",
  timestamp: "2026-01-01T00:00:00.000Z",
  data: { test: true, message: "m", webhook_id: "wh", sent_at: "x" },
});

function signed(key = keyA, id = "msg_1", ts = Math.floor(Date.now() / 1000), secrets = [secret]) {
  return buildDeliveryHeaders({
    format: "standard-webhooks",
    deliveryId: id,
    body,
    contentType: "application/json",
    timestampSeconds: ts,
    signer: key,
    secrets,
  });
}

/** A fetch serving whichever key is current, counting calls. */
function keyServer(initial = keyA) {
  let current = initial;
  let calls = 0;
  const fetchFn = (async (url: string) => {
    calls++;
    expect(url).toBe("http://node.example/public/streams/signing-key");
    return new Response(
      JSON.stringify({ key_id: current.keyId, algorithm: "ed25519", public_key_pem: current.publicKeyPem }),
      { status: 200 },
    );
  }) as unknown as typeof fetch;
  return { fetchFn, rotate: (k: typeof keyA) => (current = k), calls: () => calls };
}

describe("createDeliveryVerifier", () => {
  it("fetches the key once, caches it, and verifies the raw body", async () => {
    const server = keyServer();
    const verifier = createDeliveryVerifier({ baseUrl: "http://node.example/", fetch: server.fetchFn });
    await verifier.verify(signed(), body);
    await verifier.verify(signed(keyA, "msg_2"), Buffer.from(body));
    expect(server.calls()).toBe(1);
    await expect(verifier.verify(signed(), `${body} `)).rejects.toThrow(DeliveryVerificationError);
  });

  it("refreshes when the key id changes, and refuses an unknown id without refetching in a loop", async () => {
    let now = 0;
    const server = keyServer();
    const verifier = createDeliveryVerifier({
      baseUrl: "http://node.example",
      fetch: server.fetchFn,
      now: () => now,
      minRefreshMs: 1000,
    });
    await verifier.verify(signed(), body);
    server.rotate(keyB);
    now = 5000;
    await verifier.verify(signed(keyB), body);
    expect(server.calls()).toBe(2);
    const forged = { ...signed(keyB), "x-service-signature-keyid": "key_0000000000000000" };
    await expect(verifier.verify(forged, body)).rejects.toThrow(/unknown signing key id/);
    expect(server.calls()).toBe(2); // fetched moments ago: no refetch
    now = 7000;
    await expect(verifier.verify(forged, body)).rejects.toThrow(/unknown signing key id/);
    await expect(verifier.verify(forged, body)).rejects.toThrow(/unknown signing key id/);
    expect(server.calls()).toBe(3); // one refresh for the unknown id, then rate-limited
  });

  it("reads the key from a PEM answer with the id in x-service-signature-keyid, and refuses one without the id", async () => {
    const pemServer = (keyIdHeader: string | null) =>
      (async () =>
        new Response(keyA.publicKeyPem, {
          status: 200,
          headers: keyIdHeader === null ? {} : { "x-service-signature-keyid": keyIdHeader },
        })) as unknown as typeof fetch;
    const verifier = createDeliveryVerifier({ baseUrl: "http://node.example", fetch: pemServer(keyA.keyId) });
    await verifier.verify(signed(), body);
    await expect(verifier.verify(signed(keyB), body)).rejects.toThrow(/unknown signing key id/);
    const noId = createDeliveryVerifier({ baseUrl: "http://node.example", fetch: pemServer(null) });
    await expect(noId.verify(signed(), body)).rejects.toThrow(/lacks x-service-signature-keyid/);
  });

  it("works with Fetch Headers and with node's header records", () => {
    const h = signed();
    expect(verifyServiceSignature(new Headers(h), body, keyA.publicKeyPem)).toBe(true);
    expect(verifyServiceSignature({ ...h, "webhook-id": "msg_other" }, body, keyA.publicKeyPem)).toBe(false);
  });
});

describe("verifyHmac", () => {
  it("accepts the current secret, and either secret during a rotation", () => {
    const old = generateSecret();
    expect(() => verifyHmac(signed(), body, secret)).not.toThrow();
    expect(() => verifyHmac(signed(keyA, "m", undefined, [secret, old]), body, old)).not.toThrow();
    expect(() => verifyHmac(signed(), body, [generateSecret(), secret])).not.toThrow();
  });

  it("refuses a wrong secret, a changed body, or a stale timestamp", () => {
    expect(() => verifyHmac(signed(), body, generateSecret())).toThrow(/no webhook-signature matches/);
    expect(() => verifyHmac(signed(), body.replace("m", "n"), secret)).toThrow(DeliveryVerificationError);
    expect(() => verifyHmac(signed(keyA, "m", 1000), body, secret)).toThrow(/tolerance/);
  });
});

describe("decodeChainDelivery", () => {
  const apply = {
    action: "apply",
    trigger: "stx_transfer",
    tx_id: "0x1",
    block_hash: "0x2",
    block_height: 1,
    canonical: true,
    event: { type: "stx_transfer_event" },
  };
  it("decodes apply, rollback and test deliveries", () => {
    expect(
      decodeChainDelivery(JSON.stringify({ type: "chain.stx_transfer.apply", timestamp: "t", data: apply })).data,
    ).toEqual(apply);
    const rb = { action: "rollback", fork_point_height: 1, orphaned: [], truncated: false };
    expect(decodeChainDelivery(JSON.stringify({ type: "chain.reorg.rollback", timestamp: "t", data: rb })).type).toBe(
      "chain.reorg.rollback",
    );
    expect(decodeChainDelivery(body).data).toMatchObject({ test: true });
  });

  it.each([
    ["not JSON", "{"],
    ["raw format (data only)", JSON.stringify(apply)],
    ["cloudevents", JSON.stringify({ specversion: "1.0", type: "chain.stx_transfer.apply", data: apply })],
    ["inngest", JSON.stringify([{ name: "chain.stx_transfer.apply", data: apply }])],
    ["a subgraph delivery", JSON.stringify({ type: "bns-names.names.created", timestamp: "t", data: {} })],
    [
      "apply with the wrong action",
      JSON.stringify({ type: "chain.stx_transfer.apply", timestamp: "t", data: { ...apply, action: "rollback" } }),
    ],
    ["test without data.test", JSON.stringify({ type: "chain.test.apply", timestamp: "t", data: {} })],
  ])("throws on %s", (_n, raw) => {
    expect(() => decodeChainDelivery(raw)).toThrow(DeliveryVerificationError);
  });
});
