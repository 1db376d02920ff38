/**
 * runtime/dispatcher/formats.ts and signing.ts: every format's body (SPEC.md "Formats"), the
 * headers of every delivery, ed25519 verified with node:crypto against the published SPKI PEM,
 * and the standard-webhooks HMAC verified with the public `standardwebhooks` package.
 */
import { createPublicKey, verify } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { prepareAttempt } from "../../../runtime/dispatcher/attempt.js";
import { FORMATS, renderBody } from "../../../runtime/dispatcher/formats.js";
import type { ClaimedRow } from "../../../runtime/dispatcher/outbox-store.js";
import { buildDeliveryHeaders, generateSecret, hmacSignature } from "../../../runtime/dispatcher/signing.js";
import { signingKeyFromSeed } from "../../../runtime/internal/signing-key.js";

const key = signingKeyFromSeed(new Uint8Array(32).fill(7));
const data = {
  action: "apply",
  trigger: "stx_transfer",
  tx_id: "0x01",
  block_hash: "0xbh",
  block_height: 3,
  canonical: true,
  event: { type: "stx_transfer_event" },
};
const createdAt = new Date("2026-03-04T05:06:07.000Z");
const base = {
  type: "chain.stx_transfer.apply",
  dataJson: JSON.stringify(data),
  deliveryId: "msg_abc",
  createdAt,
  webhookId: "wh_1",
};

describe("renderBody", () => {
  it("standard-webhooks: { type, timestamp, data }", () => {
    const r = renderBody({ ...base, format: "standard-webhooks" });
    expect(JSON.parse(r.body)).toEqual({ type: base.type, timestamp: "2026-03-04T05:06:07.000Z", data });
    expect(r.contentType).toBe("application/json");
  });

  it("raw: the body is data", () => {
    expect(JSON.parse(renderBody({ ...base, format: "raw" }).body)).toEqual(data);
  });

  it("cloudevents: structured mode with specversion, type, source, id, time, datacontenttype, data", () => {
    const r = renderBody({ ...base, format: "cloudevents" });
    expect(JSON.parse(r.body)).toEqual({
      specversion: "1.0",
      type: base.type,
      source: "/sluice/webhooks/wh_1",
      id: "msg_abc",
      time: "2026-03-04T05:06:07.000Z",
      datacontenttype: "application/json",
      data,
    });
    expect(r.contentType).toBe("application/cloudevents+json");
  });

  it("inngest: [{ name, data, id, ts, v }]", () => {
    expect(JSON.parse(renderBody({ ...base, format: "inngest" }).body)).toEqual([
      { name: base.type, data, id: "msg_abc", ts: createdAt.getTime(), v: "1" },
    ]);
  });

  it("trigger: { payload: data, options: { idempotencyKey } }", () => {
    expect(JSON.parse(renderBody({ ...base, format: "trigger" }).body)).toEqual({
      payload: data,
      options: { idempotencyKey: "msg_abc" },
    });
  });

  it("cloudflare: { params: { ...data, _type, _outboxId } }", () => {
    expect(JSON.parse(renderBody({ ...base, format: "cloudflare" }).body)).toEqual({
      params: { ...data, _type: base.type, _outboxId: "msg_abc" },
    });
  });

  it("every format's body is byte for byte what JSON.stringify gives for its envelope (the bytes signed)", () => {
    // Characters that need escaping, in the data and in the fields around it.
    const odd = { memo: 'quote " backslash \\ newline \n \u2028 é 🙂', n: 1.5e-7, list: [null, true, {}] };
    const input = { ...base, type: 'chain."odd".apply', deliveryId: "msg_\\x", dataJson: JSON.stringify(odd) };
    const t = input.type;
    const id = input.deliveryId;
    const time = createdAt.toISOString();
    const expected: Record<string, unknown> = {
      "standard-webhooks": { type: t, timestamp: time, data: odd },
      raw: odd,
      cloudevents: {
        specversion: "1.0",
        type: t,
        source: "/sluice/webhooks/wh_1",
        id,
        time,
        datacontenttype: "application/json",
        data: odd,
      },
      inngest: [{ name: t, data: odd, id, ts: createdAt.getTime(), v: "1" }],
      trigger: { payload: odd, options: { idempotencyKey: id } },
      cloudflare: { params: { ...odd, _type: t, _outboxId: id } },
    };
    for (const format of FORMATS) expect(renderBody({ ...input, format }).body).toBe(JSON.stringify(expected[format]));
  });
});

describe("buildDeliveryHeaders", () => {
  const secret = generateSecret(new Uint8Array(24).fill(1));
  const body = JSON.stringify({ type: "chain.test.apply", timestamp: "x", data: { test: true } });

  it.each(FORMATS)(
    "%s: webhook-id and an ed25519 signature that node:crypto verifies against the SPKI PEM",
    (format) => {
      const h = buildDeliveryHeaders({
        format,
        deliveryId: "msg_1",
        body,
        contentType: "application/json",
        timestampSeconds: 100,
        signer: key,
        secrets: [secret],
      });
      expect(h["webhook-id"]).toBe("msg_1");
      expect(h["x-service-signature-keyid"]).toBe(key.keyId);
      const ok = verify(
        null,
        Buffer.from(`msg_1.${body}`, "utf8"),
        createPublicKey(key.publicKeyPem),
        Buffer.from(h["x-service-signature"], "base64"),
      );
      expect(ok).toBe(true);
      const tampered = verify(
        null,
        Buffer.from(`msg_1.${body} `, "utf8"),
        createPublicKey(key.publicKeyPem),
        Buffer.from(h["x-service-signature"], "base64"),
      );
      expect(tampered).toBe(false);
      if (format === "standard-webhooks") {
        expect(h["webhook-timestamp"]).toBe("100");
        expect(h["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      } else {
        expect(h).not.toHaveProperty("webhook-signature");
        expect(h).not.toHaveProperty("webhook-timestamp");
      }
    },
  );

  it("the standardwebhooks package verifies the HMAC (whsec_ secret, id.timestamp.body)", () => {
    const now = Math.floor(Date.now() / 1000);
    const h = buildDeliveryHeaders({
      format: "standard-webhooks",
      deliveryId: "msg_2",
      body,
      contentType: "application/json",
      timestampSeconds: now,
      signer: key,
      secrets: [secret],
    });
    expect(new Webhook(secret).verify(body, h)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, h)).toThrow();
  });

  it("during a rotation both secrets sign; either verifies", () => {
    const now = Math.floor(Date.now() / 1000);
    const old = generateSecret();
    const h = buildDeliveryHeaders({
      format: "standard-webhooks",
      deliveryId: "msg_3",
      body,
      contentType: "application/json",
      timestampSeconds: now,
      signer: key,
      secrets: [secret, old],
    });
    expect(h["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(secret).verify(body, h)).toBeTruthy();
    expect(new Webhook(old).verify(body, h)).toBeTruthy();
  });

  it("hmacSignature is v1,<base64 HMAC-SHA256> of id.timestamp.body", () => {
    expect(hmacSignature("whsec_AAAA", "msg", 1, "{}")).toMatch(/^v1,/);
    expect(generateSecret()).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  });
});

describe("prepareAttempt", () => {
  it("renders the row in the webhook's format and signs those exact bytes", () => {
    const row: ClaimedRow = {
      id: "1",
      webhookId: "wh_1",
      deliveryId: "msg_9",
      eventType: "chain.test.apply",
      dataJson: JSON.stringify({ test: true }),
      attempts: 0,
      createdAt,
      fence: false,
      leaseToken: "t",
    };
    const p = prepareAttempt(
      row,
      { id: "wh_1", url: "http://x", format: "trigger", timeoutMs: 1000, maxAttempts: 3, secrets: [] },
      key,
      5000,
    );
    expect(JSON.parse(p.body)).toEqual({ payload: { test: true }, options: { idempotencyKey: "msg_9" } });
    expect(key.verify(`msg_9.${p.body}`, p.headers["x-service-signature"])).toBe(true);
  });
});
