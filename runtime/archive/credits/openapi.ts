/**
 * OpenAPI 3.1 description of the credits routes (routes.ts), served at `/credits/openapi.json`.
 * Each operationId is the name written above its handler in routes.ts.
 */
import { FREE_REPAIRS_PER_MONTH, PACK_DOLLARS } from "./money.js";

const error = { $ref: "#/components/schemas/Error" };
const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: error } } });
const jsonBody = (schema: unknown) => ({ required: true, content: { "application/json": { schema } } });
const ok = (description: string, schema: unknown) => ({ description, content: { "application/json": { schema } } });
const dollars = {
  oneOf: [
    { type: "number", minimum: 0.01 },
    { type: "string", pattern: "^\\$?\\d{1,7}(\\.\\d{1,2})?$" },
  ],
};
const pack = { description: "pack in dollars", enum: [...PACK_DOLLARS, ...PACK_DOLLARS.map(String)] };

export function creditsOpenApi(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "sluice archive credits",
      version: "1",
      description: `Prepaid credits for archive bundles. A credit key (bearer secret, shown once) identifies a balance; there are no accounts. Bootstrap, backfill and repair bundles are charged when their presigned URL is issued, once per idempotency key; the first ${FREE_REPAIRS_PER_MONTH} repair bundles of each calendar month (UTC) are free; verification is free. Packs: ${PACK_DOLLARS.map((d) => `$${d}`).join(", ")}. Money is in integer cents.`,
    },
    servers: [{ url: "/credits" }],
    components: {
      securitySchemes: {
        creditKey: { type: "http", scheme: "bearer", description: "the credit key, sck_…" },
        operatorToken: { type: "http", scheme: "bearer", description: "ARCHIVE_OPERATOR_TOKEN" },
      },
      schemas: {
        Error: {
          type: "object",
          required: ["error", "code"],
          properties: { error: { type: "string" }, code: { type: "string" }, details: { type: "object" } },
        },
        Balance: {
          type: "object",
          required: [
            "key_id",
            "balance_cents",
            "balance",
            "free_repairs_left",
            "free_repairs_reset_at",
            "auto_refill",
            "can_auto_refill",
          ],
          properties: {
            key_id: { type: "string", pattern: "^ck_" },
            balance_cents: { type: "integer" },
            balance: { type: "string", examples: ["$12.34"] },
            free_repairs_left: { type: "integer", minimum: 0, maximum: FREE_REPAIRS_PER_MONTH },
            free_repairs_reset_at: { type: "string", format: "date-time" },
            auto_refill: {
              oneOf: [
                { type: "null" },
                {
                  type: "object",
                  required: ["threshold_cents", "pack_cents", "saved_payment_method", "last_refill"],
                  properties: {
                    threshold_cents: { type: "integer" },
                    pack_cents: { type: "integer" },
                    saved_payment_method: { type: "boolean" },
                    last_refill: {
                      oneOf: [
                        { type: "null" },
                        {
                          type: "object",
                          properties: {
                            status: { enum: ["started", "succeeded", "failed"] },
                            amount_cents: { type: "integer" },
                            error: { type: ["string", "null"] },
                            at: { type: "string", format: "date-time" },
                          },
                        },
                      ],
                    },
                  },
                },
              ],
            },
            can_auto_refill: { type: "boolean" },
          },
        },
      },
    },
    paths: {
      "/balance": {
        get: {
          operationId: "getBalance",
          summary: "the balance, this month's free repairs and the auto-refill setting of a credit key",
          security: [{ creditKey: [] }],
          responses: {
            200: ok("the balance", { $ref: "#/components/schemas/Balance" }),
            401: errorResponse("INVALID_CREDIT_KEY"),
          },
        },
      },
      "/checkout": {
        post: {
          operationId: "createCheckout",
          summary: "open a one-time card checkout for a pack; without a credit key a new key is made and returned once",
          security: [{}, { creditKey: [] }],
          requestBody: jsonBody({
            type: "object",
            required: ["pack", "email"],
            additionalProperties: false,
            properties: { pack, email: { type: "string", format: "email" } },
          }),
          responses: {
            201: ok("the checkout page", {
              type: "object",
              required: ["checkout_url", "session_id", "key_id"],
              properties: {
                checkout_url: { type: "string", format: "uri" },
                session_id: { type: "string" },
                key_id: { type: "string" },
                credit_key: { type: "string", description: "only for a new key: the secret, shown this once" },
              },
            }),
            400: errorResponse("INVALID_PACK, INVALID_EMAIL, UNKNOWN_FIELD, INVALID_JSON"),
            401: errorResponse("INVALID_CREDIT_KEY"),
            502: errorResponse("PROVIDER_UNAVAILABLE"),
            503: errorResponse("PAYMENTS_NOT_CONFIGURED"),
          },
        },
      },
      "/provider-events": {
        post: {
          operationId: "receiveProviderEvent",
          summary:
            "the payment provider's signed events (Stripe: Stripe-Signature header over the raw body); each event id is acted on once",
          requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
          responses: {
            200: ok("received", {
              type: "object",
              properties: {
                received: { const: true },
                duplicate: { type: "boolean" },
                credited_cents: { type: "integer" },
              },
            }),
            400: errorResponse("SIGNATURE_INVALID: nothing recorded"),
            404: errorResponse("no payment provider"),
          },
        },
      },
      "/auto-refill": {
        put: {
          operationId: "setAutoRefill",
          summary:
            "when a charge takes the balance below the threshold, buy the pack with the card of an earlier purchase",
          security: [{ creditKey: [] }],
          requestBody: jsonBody({
            type: "object",
            required: ["threshold", "pack"],
            additionalProperties: false,
            properties: { threshold: { ...dollars, description: "dollars" }, pack },
          }),
          responses: {
            200: ok("the new setting", { $ref: "#/components/schemas/Balance" }),
            400: errorResponse("INVALID_THRESHOLD, INVALID_PACK, UNKNOWN_FIELD"),
            401: errorResponse("INVALID_CREDIT_KEY"),
            409: errorResponse("NO_SAVED_PAYMENT_METHOD: buy a pack by card first"),
            503: errorResponse("PAYMENTS_NOT_CONFIGURED"),
          },
        },
        delete: {
          operationId: "deleteAutoRefill",
          summary: "turn auto-refill off",
          security: [{ creditKey: [] }],
          responses: {
            200: ok("auto-refill is off", { $ref: "#/components/schemas/Balance" }),
            401: errorResponse("INVALID_CREDIT_KEY"),
          },
        },
      },
      "/grants": {
        post: {
          operationId: "createGrant",
          summary: "operator: add credit to a key, or to a new key (its secret returned once)",
          security: [{ operatorToken: [] }],
          requestBody: jsonBody({
            type: "object",
            required: ["amount"],
            additionalProperties: false,
            properties: {
              key_id: { type: "string" },
              amount: { ...dollars, description: "dollars" },
              note: { type: "string", maxLength: 200 },
              idempotency_key: { type: "string", maxLength: 200 },
            },
          }),
          responses: {
            201: ok("granted", {
              type: "object",
              properties: {
                key_id: { type: "string" },
                credit_key: { type: "string" },
                entry_id: { type: ["integer", "null"] },
                duplicate: { type: "boolean" },
                balance_cents: { type: "integer" },
              },
            }),
            200: ok("the idempotency key had granted already", { type: "object" }),
            400: errorResponse("INVALID_AMOUNT, INVALID_FIELD, UNKNOWN_FIELD"),
            401: errorResponse("UNAUTHORIZED"),
            403: errorResponse("OPERATOR_DISABLED"),
            404: errorResponse("CREDIT_KEY_NOT_FOUND"),
          },
        },
      },
      "/refunds": {
        post: {
          operationId: "createRefund",
          summary: "operator: give back one bundle charge, named by its idempotency key; once",
          security: [{ operatorToken: [] }],
          requestBody: jsonBody({
            type: "object",
            required: ["key_id", "idempotency_key"],
            additionalProperties: false,
            properties: { key_id: { type: "string" }, idempotency_key: { type: "string" }, note: { type: "string" } },
          }),
          responses: {
            201: ok("refunded", { type: "object" }),
            200: ok("refunded already", { type: "object" }),
            400: errorResponse("INVALID_BODY"),
            401: errorResponse("UNAUTHORIZED"),
            403: errorResponse("OPERATOR_DISABLED"),
            404: errorResponse("CREDIT_KEY_NOT_FOUND, CHARGE_NOT_FOUND"),
          },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "getCreditsOpenApi",
          summary: "this document",
          responses: { 200: ok("OpenAPI 3.1", { type: "object" }) },
        },
      },
    },
  };
}
