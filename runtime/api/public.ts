/**
 * Handlers of the `/public/...` routes: no token, ever (SPEC.md "Signatures on every
 * delivery"): getSigningKey serves the instance's ed25519 public key, which receivers fetch
 * once, cache, and fetch again when a delivery's `x-service-signature-keyid` changes.
 */
import type { Request } from "express";
import { ServiceError } from "../internal/errors.js";
import { cacheControl } from "./http/cache-headers.js";
import { sendWithEtag } from "./http/json-response.js";
import { rejectUnknownParams } from "./http/query-params.js";
import type { RequestContext } from "./http/context.js";
import type { RouteHandler } from "./http/route-table.js";

/** The header deliveries name their signing key in; the PEM answer names it there too. */
export const KEY_ID_HEADER = "x-service-signature-keyid";

/**
 * The PEM's media type. PEM (RFC 7468) is 7-bit text and no media type is registered for a PEM
 * public key: `text/plain` is the registered type that fits (browsers and curl show it), while
 * `application/x-pem-file` is an unregistered `x-` name (RFC 6648 retires those).
 */
const PEM_TYPE = "text/plain";

/** True when the client prefers the JSON form (an `Accept` ranking application/json first). */
function wantsJson(req: Request): boolean {
  return req.accepts([PEM_TYPE, "application/json"]) === "application/json";
}

/**
 * GET /public/streams/signing-key → the SPKI PEM itself (SPEC.md: "returns the ed25519 public
 * key as an SPKI PEM"), key id in `x-service-signature-keyid`; with `Accept: application/json`,
 * `{ key_id, algorithm: "ed25519", public_key_pem }`.
 */
export const getSigningKey: RouteHandler<RequestContext> = (req, res, ctx) => {
  rejectUnknownParams(req.query, []);
  const key = ctx.signingKey;
  if (!key) throw new ServiceError(503, "SIGNING_KEY_UNAVAILABLE", "this API process has no signing key loaded");
  res.setHeader(KEY_ID_HEADER, key.keyId);
  res.vary("Accept");
  // Public data; a key change also changes key_id, which receivers see on the next delivery.
  const cache = cacheControl(true, "max-age=300");
  if (wantsJson(req)) {
    const json = JSON.stringify({ key_id: key.keyId, algorithm: "ed25519", public_key_pem: key.publicKeyPem });
    sendWithEtag(req, res, json, {
      contentType: "application/json",
      etag: `W/"${key.keyId}.json"`,
      cacheControl: cache,
    });
  } else {
    sendWithEtag(req, res, key.publicKeyPem, {
      contentType: PEM_TYPE,
      etag: `W/"${key.keyId}.pem"`,
      cacheControl: cache,
    });
  }
};
