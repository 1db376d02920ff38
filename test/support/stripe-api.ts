/**
 * A local HTTP server answering the few Stripe API calls archive credits makes, in the shapes of
 * Stripe's API reference (form-encoded requests with bracketed keys; JSON objects back; errors as
 * `{ error: { type, code, message, … } }` with 402 for a declined card; an `Idempotency-Key` replays
 * the first answer). The official `stripe` client is pointed at it (host/port/protocol), so the
 * requests tests inspect are the ones the package really sends.
 *
 * Calls: POST /v1/checkout/sessions, GET /v1/checkout/sessions/:id, POST /v1/payment_intents,
 * GET /v1/payment_intents/:id. `pay(sessionId)` plays the buyer completing Checkout.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

type Obj = Record<string, unknown>;

export interface StripeRequest {
  method: string;
  path: string;
  params: Obj;
  idempotencyKey: string | null;
}

export interface FakeStripe {
  host: string;
  port: number;
  requests: StripeRequest[];
  /** Completes a session as a buyer paying by card would: customer, card and PaymentIntent made. */
  pay(sessionId: string): Obj;
  /** The PaymentIntents the off-session refills created. */
  paymentIntents(): Obj[];
  /** Forgets the requests and PaymentIntents seen so far, and stops declining. */
  reset(): void;
  /** Makes off-session payments fail with a card decline until set back to false. */
  declineOffSession(decline: boolean): void;
  /** A Stripe event object (`object: "event"`) around `object`. */
  event(type: string, object: Obj): Obj;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString("hex")}`;

/** `a[b][0][c]=v` form fields → nested objects; objects whose keys are all 0..n-1 become arrays. */
export function parseStripeForm(body: string): Obj {
  const root: Obj = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, "").split("[");
    let node: Obj = root;
    for (const part of path.slice(0, -1)) {
      if (typeof node[part] !== "object") node[part] = {};
      node = node[part] as Obj;
    }
    node[path[path.length - 1]] = value;
  }
  const arrays = (v: unknown): unknown => {
    if (typeof v !== "object" || v === null) return v;
    const o = v as Obj;
    const keys = Object.keys(o);
    const fixed = Object.fromEntries(keys.map((k) => [k, arrays(o[k])]));
    return keys.length > 0 && keys.every((k, i) => k === String(i)) ? keys.map((k) => fixed[k]) : fixed;
  };
  return arrays(root) as Obj;
}

function stripeError(status: number, error: Obj): { status: number; body: Obj } {
  return { status, body: { error } };
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const sessions = new Map<string, Obj>();
  const intents = new Map<string, Obj>();
  const refills: Obj[] = [];
  const replays = new Map<string, { status: number; body: Obj }>();
  const requests: StripeRequest[] = [];
  let decline = false;
  const now = () => Math.floor(Date.now() / 1000);

  function createSession(p: Obj): { status: number; body: Obj } {
    const items = p.line_items as Obj[] | undefined;
    if (p.mode !== "payment" && p.mode !== "setup" && p.mode !== "subscription")
      return stripeError(400, { type: "invalid_request_error", param: "mode", message: "Invalid mode" });
    if (!Array.isArray(items) || items.length === 0)
      return stripeError(400, {
        type: "invalid_request_error",
        param: "line_items",
        message: "line_items is required",
      });
    if (typeof p.success_url !== "string")
      return stripeError(400, { type: "invalid_request_error", param: "success_url", message: "Missing success_url" });
    const amount = items.reduce((s, it) => {
      const price = it.price_data as Obj;
      return s + Number(price.unit_amount) * Number(it.quantity ?? 1);
    }, 0);
    const sid = id("cs");
    const session: Obj = {
      id: sid,
      object: "checkout.session",
      amount_subtotal: amount,
      amount_total: amount,
      cancel_url: p.cancel_url ?? null,
      client_reference_id: p.client_reference_id ?? null,
      created: now(),
      currency: (items[0].price_data as Obj).currency,
      customer: null,
      customer_creation: p.customer_creation ?? null,
      customer_email: p.customer_email ?? null,
      expires_at: now() + 86_400,
      livemode: false,
      metadata: p.metadata ?? {},
      mode: p.mode,
      payment_intent: null,
      payment_status: "unpaid",
      status: "open",
      success_url: p.success_url,
      url: `https://checkout.stripe.test/c/pay/${sid}`,
      // Kept to build the PaymentIntent when the buyer pays; Stripe does not echo it.
      _payment_intent_data: p.payment_intent_data ?? {},
    };
    sessions.set(sid, session);
    return { status: 200, body: publicSession(session) };
  }

  function createIntent(p: Obj): { status: number; body: Obj } {
    if (!p.amount || !p.currency)
      return stripeError(400, {
        type: "invalid_request_error",
        param: "amount",
        message: "Missing required param: amount.",
      });
    const pi: Obj = {
      id: id("pi"),
      object: "payment_intent",
      amount: Number(p.amount),
      amount_received: 0,
      currency: p.currency,
      customer: p.customer ?? null,
      payment_method: p.payment_method ?? null,
      description: p.description ?? null,
      metadata: p.metadata ?? {},
      created: now(),
      livemode: false,
      status: "requires_payment_method",
      last_payment_error: null,
    };
    intents.set(String(pi.id), pi);
    refills.push(pi);
    if (p.confirm === "true") {
      if (decline) {
        pi.last_payment_error = {
          type: "card_error",
          code: "card_declined",
          decline_code: "insufficient_funds",
          message: "Your card has insufficient funds.",
        };
        return stripeError(402, {
          type: "card_error",
          code: "card_declined",
          decline_code: "insufficient_funds",
          message: "Your card has insufficient funds.",
          payment_intent: pi,
        });
      }
      pi.status = "succeeded";
      pi.amount_received = pi.amount;
    }
    return { status: 200, body: pi };
  }

  function route(method: string, path: string, p: Obj): { status: number; body: Obj } {
    if (method === "POST" && path === "/v1/checkout/sessions") return createSession(p);
    if (method === "POST" && path === "/v1/payment_intents") return createIntent(p);
    let m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (method === "GET" && m) {
      const s = sessions.get(m[1]);
      return s ? { status: 200, body: publicSession(s) } : missing("checkout.session", m[1]);
    }
    m = /^\/v1\/payment_intents\/([^/]+)$/.exec(path);
    if (method === "GET" && m) {
      const pi = intents.get(m[1]);
      return pi ? { status: 200, body: pi } : missing("payment_intent", m[1]);
    }
    return stripeError(404, {
      type: "invalid_request_error",
      message: `Unrecognized request URL (${method}: ${path}).`,
    });
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stripe.test");
      const raw = Buffer.concat(chunks).toString("utf8");
      const params = parseStripeForm(req.method === "GET" ? url.search.slice(1) : raw);
      const idem = typeof req.headers["idempotency-key"] === "string" ? req.headers["idempotency-key"] : null;
      requests.push({ method: req.method ?? "GET", path: url.pathname, params, idempotencyKey: idem });
      let answer: { status: number; body: Obj };
      if (!/^Bearer sk_test_\w+$/.test(req.headers.authorization ?? "")) {
        answer = stripeError(401, { type: "invalid_request_error", message: "Invalid API Key provided" });
      } else if (idem && replays.has(`${req.method} ${url.pathname} ${idem}`)) {
        answer = replays.get(`${req.method} ${url.pathname} ${idem}`) as { status: number; body: Obj };
      } else {
        answer = route(req.method ?? "GET", url.pathname, params);
        if (idem && req.method === "POST") replays.set(`${req.method} ${url.pathname} ${idem}`, answer);
      }
      res.writeHead(answer.status, { "content-type": "application/json", "request-id": id("req") });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    host: "127.0.0.1",
    port,
    requests,
    pay(sessionId) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no session ${sessionId}`);
      const customer = id("cus");
      const data = s._payment_intent_data as Obj;
      const pi: Obj = {
        id: id("pi"),
        object: "payment_intent",
        amount: s.amount_total,
        amount_received: s.amount_total,
        currency: s.currency,
        customer,
        payment_method: id("pm"),
        setup_future_usage: data.setup_future_usage ?? null,
        metadata: data.metadata ?? {},
        created: now(),
        livemode: false,
        status: "succeeded",
        last_payment_error: null,
      };
      intents.set(String(pi.id), pi);
      Object.assign(s, { customer, payment_intent: pi.id, payment_status: "paid", status: "complete" });
      return publicSession(s);
    },
    paymentIntents: () => [...refills],
    reset() {
      requests.length = 0;
      refills.length = 0;
      decline = false;
    },
    declineOffSession(d) {
      decline = d;
    },
    event(type, object) {
      return {
        id: id("evt"),
        object: "event",
        api_version: "2026-10-28.endive",
        created: now(),
        data: { object },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function publicSession(s: Obj): Obj {
  const { _payment_intent_data: _, ...rest } = s;
  return rest;
}

function missing(kind: string, objectId: string) {
  return stripeError(404, {
    type: "invalid_request_error",
    code: "resource_missing",
    param: "id",
    message: `No such ${kind}: '${objectId}'`,
  });
}
