/**
 * The payment provider seam: what the ledger needs from a card processor, and nothing of any
 * particular one. stripe-provider.ts implements it with Stripe Checkout; an archive without a
 * provider sells nothing and credits only by operator grant.
 */
import type { IncomingHttpHeaders } from "node:http";

export interface CheckoutRequest {
  /** Our id for the checkout: also the provider's idempotency key, so a retry opens no second checkout. */
  checkoutId: string;
  keyId: string;
  amountCents: number;
  email: string;
}

export interface CheckoutSession {
  sessionId: string;
  /** The one-time page where the buyer pays. */
  url: string;
}

export interface RefillRequest {
  refillId: string;
  keyId: string;
  amountCents: number;
  customerId: string;
  paymentMethodId: string;
}

export type RefillStart = { ok: true; paymentRef: string } | { ok: false; paymentRef: string | null; error: string };

/** A provider event, checked and reduced to what the ledger acts on. */
export type ProviderEvent =
  | {
      id: string;
      type: string;
      kind: "checkout_completed";
      sessionId: string;
      paid: boolean;
      amountCents: number;
      paymentRef: string | null;
      customerId: string | null;
    }
  | {
      id: string;
      type: string;
      kind: "payment_succeeded";
      paymentRef: string;
      amountCents: number;
      refillId: string | null;
    }
  | { id: string; type: string; kind: "payment_failed"; paymentRef: string; refillId: string | null; error: string }
  | { id: string; type: string; kind: "other" };

/** The event's signature did not verify: answered 400, nothing recorded. */
export class ProviderSignatureError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProviderSignatureError";
  }
}

export interface PaymentProvider {
  readonly name: string;
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
  /** Verifies the signature over the raw body; throws ProviderSignatureError when it fails. */
  parseEvent(rawBody: Buffer, headers: IncomingHttpHeaders): ProviderEvent;
  /** The customer and card a paid checkout saved for later off-session payments, or null. */
  savedPaymentMethod(paymentRef: string): Promise<{ customerId: string; paymentMethodId: string } | null>;
  /** Starts one off-session payment with the saved card; a decline is a value, not a throw. */
  startRefill(request: RefillRequest): Promise<RefillStart>;
}
