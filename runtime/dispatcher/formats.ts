/**
 * Delivery body formats (SPEC.md "Formats"), pure. Every format carries the same `data`; only
 * the wrapper differs. The body is serialised once here and signed as these exact bytes.
 */

export const FORMATS = ["standard-webhooks", "raw", "cloudevents", "inngest", "trigger", "cloudflare"] as const;
export type Format = (typeof FORMATS)[number];
export const DEFAULT_FORMAT: Format = "standard-webhooks";

export function isFormat(value: unknown): value is Format {
  return typeof value === "string" && (FORMATS as readonly string[]).includes(value);
}

export interface EnvelopeInput {
  format: Format;
  /** Delivery type, e.g. `chain.stx_transfer.apply`. */
  type: string;
  data: Record<string, unknown>;
  /** The delivery id (`webhook-id` header), stable across retries. */
  deliveryId: string;
  /** When the delivery was created (the event's time for the receiver), stable across retries. */
  createdAt: Date;
  /** Webhook id, for the CloudEvents `source`. */
  webhookId: string;
}

export interface RenderedBody {
  body: string;
  contentType: string;
}

const JSON_TYPE = "application/json";

/** Builds the body of one delivery in its webhook's format. */
export function renderBody(input: EnvelopeInput): RenderedBody {
  const { type, data, deliveryId, createdAt } = input;
  switch (input.format) {
    case "standard-webhooks":
      return json({ type, timestamp: createdAt.toISOString(), data });
    case "raw":
      return json(data);
    case "cloudevents":
      // Structured content mode of CloudEvents 1.0 (JSON event format).
      return {
        body: JSON.stringify({
          specversion: "1.0",
          type,
          source: `/sluice/webhooks/${input.webhookId}`,
          id: deliveryId,
          time: createdAt.toISOString(),
          datacontenttype: JSON_TYPE,
          data,
        }),
        contentType: "application/cloudevents+json",
      };
    case "inngest":
      return json([{ name: type, data, id: deliveryId, ts: createdAt.getTime(), v: "1" }]);
    case "trigger":
      return json({ payload: data, options: { idempotencyKey: deliveryId } });
    case "cloudflare":
      return json({ params: { ...data, _type: type, _outboxId: deliveryId } });
  }
}

const json = (value: unknown): RenderedBody => ({ body: JSON.stringify(value), contentType: JSON_TYPE });
