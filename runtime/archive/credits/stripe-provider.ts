/**
 * Stripe as the payment provider (provider.ts), through the official `stripe` package: a
 * payment-mode Checkout Session per pack bought (the card is saved for off-session use, so
 * auto-refill can charge it later), events checked with the package's own
 * `stripe.webhooks.constructEvent`, and refills as off-session PaymentIntents confirmed at once.
 */
import type { IncomingHttpHeaders } from "node:http";
import Stripe from "stripe";
import { formatDollars } from "./money.js";
import {
  type CheckoutRequest,
  type CheckoutSession,
  type PaymentProvider,
  type ProviderEvent,
  ProviderSignatureError,
  type RefillRequest,
  type RefillStart,
} from "./provider.js";

export interface StripeProviderOptions {
  secretKey: string;
  /** The endpoint's signing secret (`whsec_…`). */
  webhookSecret: string;
  /** Where Checkout sends the buyer after paying, and after giving up. */
  successUrl: string;
  cancelUrl: string;
  currency?: string;
  /** Where the API is (tests point it at a local server); default Stripe's own. */
  api?: { host: string; port: number; protocol: "http" | "https" };
  /** Signature tolerance in seconds (the package's default, 300, when absent). */
  toleranceSeconds?: number;
}

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
/** An expandable field: an id, or the object carrying it. */
const idOf = (v: unknown): string | null => str(v) ?? (v && typeof v === "object" ? str((v as Obj).id) : null);

export function createStripeProvider(o: StripeProviderOptions): PaymentProvider {
  const stripe = new Stripe(o.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(o.api ? { host: o.api.host, port: o.api.port, protocol: o.api.protocol } : {}),
  });
  const currency = o.currency ?? "usd";

  return {
    name: "stripe",

    async createCheckout(r: CheckoutRequest): Promise<CheckoutSession> {
      const session = await stripe.checkout.sessions.create(
        {
          mode: "payment",
          customer_email: r.email,
          customer_creation: "always",
          client_reference_id: r.checkoutId,
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency,
                unit_amount: r.amountCents,
                product_data: { name: `sluice archive credits, ${formatDollars(r.amountCents)} pack` },
              },
            },
          ],
          // Saves the card on the customer for auto-refill's off-session payments.
          payment_intent_data: { setup_future_usage: "off_session", metadata: { credit_key_id: r.keyId } },
          metadata: { credit_key_id: r.keyId, checkout_id: r.checkoutId },
          success_url: o.successUrl,
          cancel_url: o.cancelUrl,
        },
        { idempotencyKey: r.checkoutId },
      );
      if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a url`);
      return { sessionId: session.id, url: session.url };
    },

    parseEvent(rawBody: Buffer, headers: IncomingHttpHeaders): ProviderEvent {
      const header = headers["stripe-signature"];
      if (typeof header !== "string" || header === "")
        throw new ProviderSignatureError("missing stripe-signature header");
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, header, o.webhookSecret, o.toleranceSeconds);
      } catch (err) {
        throw new ProviderSignatureError(err instanceof Error ? err.message : String(err), { cause: err });
      }
      return reduceEvent(event);
    },

    async savedPaymentMethod(paymentRef: string) {
      const pi = await stripe.paymentIntents.retrieve(paymentRef);
      const customerId = idOf(pi.customer);
      const paymentMethodId = idOf(pi.payment_method);
      return customerId && paymentMethodId ? { customerId, paymentMethodId } : null;
    },

    async startRefill(r: RefillRequest): Promise<RefillStart> {
      try {
        const pi = await stripe.paymentIntents.create(
          {
            amount: r.amountCents,
            currency,
            customer: r.customerId,
            payment_method: r.paymentMethodId,
            off_session: true,
            confirm: true,
            description: `sluice archive credits auto-refill, ${formatDollars(r.amountCents)} pack`,
            metadata: { credit_key_id: r.keyId, refill_id: r.refillId },
          },
          { idempotencyKey: r.refillId },
        );
        if (pi.status === "succeeded" || pi.status === "processing") return { ok: true, paymentRef: pi.id };
        return { ok: false, paymentRef: pi.id, error: `payment ${pi.status}` };
      } catch (err) {
        // A decline (card_error) carries the PaymentIntent it left behind; anything else is reported as is.
        const raw = (err as { raw?: Obj }).raw;
        const pi = raw && typeof raw.payment_intent === "object" ? (raw.payment_intent as Obj) : null;
        return {
          ok: false,
          paymentRef: pi ? str(pi.id) : null,
          error: err instanceof Error ? err.message : String(err),
        };
      }
    },
  };
}

/** Stripe's event → what the ledger acts on (the payload shapes of Stripe's API reference). */
function reduceEvent(event: Stripe.Event): ProviderEvent {
  const object = event.data.object as unknown as Obj;
  const metadata = (object.metadata ?? {}) as Obj;
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      return {
        id: event.id,
        type: event.type,
        kind: "checkout_completed",
        sessionId: String(object.id),
        paid: object.payment_status === "paid",
        amountCents: Number(object.amount_total ?? 0),
        paymentRef: idOf(object.payment_intent),
        customerId: idOf(object.customer),
      };
    case "payment_intent.succeeded":
      return {
        id: event.id,
        type: event.type,
        kind: "payment_succeeded",
        paymentRef: String(object.id),
        amountCents: Number(object.amount_received ?? object.amount ?? 0),
        refillId: str(metadata.refill_id),
      };
    case "payment_intent.payment_failed": {
      const last = (object.last_payment_error ?? {}) as Obj;
      return {
        id: event.id,
        type: event.type,
        kind: "payment_failed",
        paymentRef: String(object.id),
        refillId: str(metadata.refill_id),
        error: str(last.message) ?? "payment failed",
      };
    }
    default:
      return { id: event.id, type: event.type, kind: "other" };
  }
}
