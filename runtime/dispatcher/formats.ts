/**
 * Delivery body formats (SPEC.md "Formats"), pure. Every format carries the same `data`; only
 * the wrapper differs. The body is serialised once here and signed as these exact bytes.
 * `data` arrives as the JSON text stored with the delivery (written by JSON.stringify) and is
 * embedded as is: parsing it only to serialise it again would give back the same text.
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
  /** The delivery's `data` as JSON text (an object), as stored. */
  dataJson: string;
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
  const { dataJson: data, deliveryId, createdAt } = input;
  const type = JSON.stringify(input.type);
  const id = JSON.stringify(deliveryId);
  // The same bytes JSON.stringify gives for these objects (same key order), `data` spliced in.
  switch (input.format) {
    case "standard-webhooks":
      return json(`{"type":${type},"timestamp":"${createdAt.toISOString()}","data":${data}}`);
    case "raw":
      return json(data);
    case "cloudevents":
      // Structured content mode of CloudEvents 1.0 (JSON event format).
      return {
        body:
          `{"specversion":"1.0","type":${type},"source":${JSON.stringify(`/sluice/webhooks/${input.webhookId}`)},` +
          `"id":${id},"time":"${createdAt.toISOString()}","datacontenttype":"${JSON_TYPE}","data":${data}}`,
        contentType: "application/cloudevents+json",
      };
    case "inngest":
      return json(`[{"name":${type},"data":${data},"id":${id},"ts":${createdAt.getTime()},"v":"1"}]`);
    case "trigger":
      return json(`{"payload":${data},"options":{"idempotencyKey":${id}}}`);
    case "cloudflare":
      // `data`'s fields merged with two more: the one format that needs the object.
      return json(JSON.stringify({ params: { ...JSON.parse(data), _type: input.type, _outboxId: deliveryId } }));
  }
}

const json = (body: string): RenderedBody => ({ body, contentType: JSON_TYPE });
