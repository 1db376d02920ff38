/**
 * The credits HTTP API as an Express router (described in openapi.ts), mounted by the archive
 * server under `/credits`. Every route table row is one handler; errors are `{ error, code,
 * details? }` with a clear 4xx for bad input. The buyer authenticates with the credit key
 * (`Authorization: Bearer sck_…`), the operator with ARCHIVE_OPERATOR_TOKEN, the provider with its
 * signature over the raw body.
 */
import express, {
  type ErrorRequestHandler,
  type Express,
  type Request,
  type RequestHandler,
  type Router,
} from "express";
import { badRequest, notFound, ServiceError } from "../../internal/errors.js";
import type { Logger } from "../../internal/logger.js";
import { bearerOf, sameToken } from "./credit-key.js";
import { parseDollars, parsePack, PACK_DOLLARS } from "./money.js";
import { creditsOpenApi } from "./openapi.js";
import { ProviderSignatureError } from "./provider.js";
import type { CreditsService } from "./service.js";

export interface CreditsRouterDeps {
  service: CreditsService;
  /** Bearer token of the operator routes (grants, refunds); null turns them off (403). */
  operatorToken: string | null;
  logger: Logger;
}

type Body = Record<string, unknown>;

const unauthorizedKey = () =>
  new ServiceError(401, "INVALID_CREDIT_KEY", "a valid credit key is required (Authorization: Bearer sck_…)");

function creditKeyOf(req: Request): string {
  const key = bearerOf(req.headers.authorization);
  if (!key) throw unauthorizedKey();
  return key;
}

function objectBody(req: Request): Body {
  const body = req.body as unknown;
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw badRequest("INVALID_BODY", "the body must be a JSON object (Content-Type: application/json)");
  return body as Body;
}

/** Rejects fields the route does not know, naming them (a typo never passes silently). */
function onlyFields(body: Body, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length)
    throw badRequest("UNKNOWN_FIELD", `unknown field ${unknown.join(", ")}; allowed: ${allowed.join(", ")}`, {
      allowed: [...allowed],
    });
}

function packOf(value: unknown): number {
  const cents = typeof value === "number" || typeof value === "string" ? parsePack(value) : null;
  if (cents === null)
    throw badRequest("INVALID_PACK", `pack must be one of ${PACK_DOLLARS.join(", ")} (dollars)`, {
      packs: [...PACK_DOLLARS],
    });
  return cents;
}

function dollarsOf(value: unknown, field: string, code: string): number {
  const cents = typeof value === "number" || typeof value === "string" ? parseDollars(value) : null;
  if (cents === null || cents <= 0)
    throw badRequest(code, `${field} must be a dollar amount above zero, like 5 or 12.50`);
  return cents;
}

function optionalText(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length === 0 || value.length > 200)
    throw badRequest("INVALID_FIELD", `${field} must be a string of 1 to 200 characters`);
  return value;
}

export function createCreditsRouter(deps: CreditsRouterDeps): Router {
  const { service, operatorToken } = deps;
  const router = express.Router({ caseSensitive: true, strict: false });
  const json = express.json({ limit: "16kb", strict: true, type: () => true });

  const operatorOnly: RequestHandler = (req, _res, next) => {
    if (!operatorToken)
      return next(new ServiceError(403, "OPERATOR_DISABLED", "operator routes are off: set ARCHIVE_OPERATOR_TOKEN"));
    const token = bearerOf(req.headers.authorization);
    if (!token || !sameToken(token, operatorToken))
      return next(new ServiceError(401, "UNAUTHORIZED", "the operator token is required (Authorization: Bearer …)"));
    next();
  };

  // getBalance
  router.get("/balance", async (req, res) => {
    res.json(await service.balance(creditKeyOf(req)));
  });

  // createCheckout: a bearer credit key tops that balance up; without one a new key is made.
  router.post("/checkout", json, async (req, res) => {
    const body = objectBody(req);
    onlyFields(body, ["pack", "email"]);
    const header = req.headers.authorization;
    const creditKey = header === undefined ? null : bearerOf(header);
    if (header !== undefined && !creditKey) throw unauthorizedKey();
    if (typeof body.email !== "string") throw badRequest("INVALID_EMAIL", "email is required (the receipt goes there)");
    const result = await service.buy({ creditKey, packCents: packOf(body.pack), email: body.email });
    res.status(201).json(result);
  });

  // receiveProviderEvent: the raw body, exactly as signed.
  router.post("/provider-events", express.raw({ type: () => true, limit: "1mb" }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    try {
      const result = await service.handleProviderEvent(raw, req.headers);
      res.json({ received: true, ...result });
    } catch (err) {
      if (err instanceof ProviderSignatureError)
        throw new ServiceError(400, "SIGNATURE_INVALID", `the event's signature does not verify: ${err.message}`);
      throw err;
    }
  });

  // setAutoRefill
  router.put("/auto-refill", json, async (req, res) => {
    const body = objectBody(req);
    onlyFields(body, ["threshold", "pack"]);
    if (body.threshold === undefined || body.pack === undefined)
      throw badRequest("INVALID_BODY", "threshold (dollars) and pack are both required; DELETE turns auto-refill off");
    const setting = {
      thresholdCents: dollarsOf(body.threshold, "threshold", "INVALID_THRESHOLD"),
      packCents: packOf(body.pack),
    };
    res.json(await service.setAutoRefill(creditKeyOf(req), setting));
  });

  // deleteAutoRefill
  router.delete("/auto-refill", async (req, res) => {
    res.json(await service.setAutoRefill(creditKeyOf(req), null));
  });

  // createGrant (operator)
  router.post("/grants", operatorOnly, json, async (req, res) => {
    const body = objectBody(req);
    onlyFields(body, ["key_id", "amount", "note", "idempotency_key"]);
    const keyId = body.key_id === undefined ? null : optionalText(body.key_id, "key_id");
    const result = await service.grant({
      keyId: keyId ?? null,
      amountCents: dollarsOf(body.amount, "amount", "INVALID_AMOUNT"),
      note: optionalText(body.note, "note"),
      idempotencyKey: optionalText(body.idempotency_key, "idempotency_key"),
    });
    res.status(result.duplicate ? 200 : 201).json(result);
  });

  // createRefund (operator)
  router.post("/refunds", operatorOnly, json, async (req, res) => {
    const body = objectBody(req);
    onlyFields(body, ["key_id", "idempotency_key", "note"]);
    const keyId = optionalText(body.key_id, "key_id");
    const idempotencyKey = optionalText(body.idempotency_key, "idempotency_key");
    if (!keyId || !idempotencyKey)
      throw badRequest("INVALID_BODY", "key_id and idempotency_key (of the charge) are required");
    const result = await service.refund({ keyId, idempotencyKey, note: optionalText(body.note, "note") });
    res.status(result.duplicate ? 200 : 201).json(result);
  });

  // getCreditsOpenApi
  router.get("/openapi.json", (_req, res) => {
    res.json(creditsOpenApi());
  });

  router.use((req, _res, next) => next(notFound("NOT_FOUND", `no route ${req.method} ${req.baseUrl}${req.path}`)));
  router.use(createCreditsErrorHandler(deps.logger));
  return router;
}

/** `{ error, code, details? }` for ServiceErrors and body-parser failures; anything else a logged 500. */
export function createCreditsErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let status = 500;
    let body: { error: string; code: string; details?: Record<string, unknown> } = {
      error: "internal error",
      code: "INTERNAL",
    };
    if (err instanceof ServiceError) {
      status = err.status;
      body = { error: err.message, code: err.code, ...(err.details ? { details: err.details } : {}) };
    } else if (err?.type === "entity.parse.failed") {
      status = 400;
      body = { error: "request body is not valid JSON", code: "INVALID_JSON" };
    } else if (err?.type === "entity.too.large") {
      status = 413;
      body = { error: "request body is too large", code: "PAYLOAD_TOO_LARGE" };
    } else if (typeof err?.status === "number" && err.status >= 400 && err.status < 500) {
      status = err.status;
      body = { error: "bad request", code: "BAD_REQUEST" };
    }
    if (status >= 500)
      logger.error({ msg: "credits request failed", method: req.method, path: req.originalUrl, error: err });
    if (res.headersSent) return void res.destroy();
    if (status === 401) res.setHeader("WWW-Authenticate", "Bearer");
    res.status(status).json(body);
  };
}

/** A standalone app serving the router at `/credits` (the archive server may mount the router itself). */
export function createCreditsApp(deps: CreditsRouterDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  app.use("/credits", createCreditsRouter(deps));
  app.use((req, _res, next) => next(notFound("NOT_FOUND", `no route ${req.method} ${req.path}`)));
  app.use(createCreditsErrorHandler(deps.logger));
  return app;
}
