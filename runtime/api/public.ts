/**
 * Handlers of the `/public/...` routes: no token, ever (SPEC.md "Signatures on every
 * delivery"): getSigningKey serves the instance's ed25519 public key, which receivers fetch
 * once, cache, and fetch again when a delivery's `x-service-signature-keyid` changes.
 */
import { ServiceError } from "../internal/errors.js";
import { cacheControl } from "./cache-headers.js";
import { sendWithEtag } from "./json-response.js";
import { rejectUnknownParams } from "./query-params.js";
import type { ApiHandler } from "./types.js";

/** GET /public/streams/signing-key → `{ key_id, algorithm: "ed25519", public_key_pem }` (SPKI PEM). */
export const getSigningKey: ApiHandler = (req, res, ctx) => {
  rejectUnknownParams(req.query, []);
  const key = ctx.signingKey;
  if (!key) throw new ServiceError(503, "SIGNING_KEY_UNAVAILABLE", "this API process has no signing key loaded");
  // Public data; a key change also changes key_id, which receivers see on the next delivery.
  sendWithEtag(
    req,
    res,
    JSON.stringify({ key_id: key.keyId, algorithm: "ed25519", public_key_pem: key.publicKeyPem }),
    {
      contentType: "application/json",
      etag: `W/"${key.keyId}"`,
      cacheControl: cacheControl(true, "max-age=300"),
    },
  );
};
