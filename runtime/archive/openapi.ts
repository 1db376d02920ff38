/**
 * OpenAPI 3.1 description of the archive server's own routes (server.ts), served at
 * `/openapi.json`. The credits routes under `/credits` have their own document
 * (`/credits/openapi.json`, credits/openapi.ts).
 */
const error = { $ref: "#/components/schemas/Error" };
const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: error } } });
const signedDocument = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Signed" } } },
});

export function archiveOpenApi(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "sluice archive",
      version: "1",
      description:
        "Signed partition bundles of finalized Stacks history (docs/archive-format.md). The signed documents are public; a bundle is served only through a presigned URL, which charges the bundle to a credit key when the archive charges (see /pricing and /credits/openapi.json).",
    },
    components: {
      securitySchemes: {
        creditKey: { type: "http", scheme: "bearer", description: "the credit key, sck_… (charging archives only)" },
      },
      schemas: {
        Error: {
          type: "object",
          required: ["error", "code"],
          properties: { error: { type: "string" }, code: { type: "string" }, details: { type: "object" } },
        },
        Signed: {
          type: "object",
          required: ["body", "signature"],
          description: "A document and its ed25519 signature by the archive key (docs/archive-format.md).",
          properties: { body: { type: "object" }, signature: { type: "object" } },
        },
        Pricing: {
          type: "object",
          required: ["charged", "unit_price_cents"],
          properties: {
            charged: { type: "boolean", description: "false: a free archive; no credit key is needed" },
            unit_price_cents: { type: "integer", minimum: 0, description: "cents per manifest price unit" },
          },
        },
        Presigned: {
          type: "object",
          required: ["url", "expires_at"],
          properties: {
            url: { type: "string", description: "path of the bundle with `expires` and `signature`" },
            expires_at: { type: "string", format: "date-time" },
            charged_cents: { type: "integer", description: "charging archives: what this URL cost (0 when free)" },
            balance_cents: { type: "integer", description: "charging archives: the balance after the charge" },
            free: { type: "boolean", description: "charging archives: a free repair bundle of the month" },
          },
        },
      },
    },
    paths: {
      "/health": {
        get: {
          operationId: "health",
          responses: { "200": { description: "the server is up" } },
        },
      },
      "/pricing": {
        get: {
          operationId: "pricing",
          summary: "Whether bundles are charged, and the price of a unit",
          responses: {
            "200": {
              description: "pricing",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Pricing" } } },
            },
          },
        },
      },
      "/latest.json": {
        get: {
          operationId: "latest",
          summary: "The signed pointer to the newest manifest (never cached)",
          responses: { "200": signedDocument("the latest pointer"), "404": errorResponse("nothing published yet") },
        },
      },
      "/keys.json": {
        get: {
          operationId: "keys",
          summary: "The archive's signing keys, each new key endorsed by the one before it",
          responses: { "200": signedDocument("the key list"), "404": errorResponse("nothing published yet") },
        },
      },
      "/manifests/{manifest}": {
        get: {
          operationId: "manifest",
          summary: "A signed manifest: network, chain id, key id and every partition with its digest and price",
          parameters: [
            { name: "manifest", in: "path", required: true, schema: { type: "string", pattern: "^\\d{8}\\.json$" } },
          ],
          responses: { "200": signedDocument("the manifest (immutable)"), "404": errorResponse("no such manifest") },
        },
      },
      "/presign": {
        post: {
          operationId: "presign",
          summary: "A short-lived URL of one bundle; on a charging archive the bundle is charged first",
          security: [{}, { creditKey: [] }],
          parameters: [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description: "charging archives: the same key never charges twice",
              schema: { type: "string" },
            },
          ],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["file"],
                  properties: {
                    file: { type: "string", pattern: "^bundles/\\d{10}-\\d{10}\\.bundle\\.gz$" },
                    kind: { enum: ["bootstrap", "backfill", "repair"], description: "required on charging archives" },
                  },
                },
              },
            },
          },
          responses: {
            "200": {
              description: "the URL",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Presigned" } } },
            },
            "400": errorResponse("BAD_JSON, BAD_FILE, or a bad kind or idempotency key"),
            "401": errorResponse("charging archive: no or unknown credit key"),
            "402": errorResponse("INSUFFICIENT_CREDITS: the balance does not cover the bundle"),
            "404": errorResponse("no such bundle in the current manifest"),
            "409": errorResponse("the idempotency key was used for another bundle"),
            "413": errorResponse("BODY_TOO_LARGE"),
          },
        },
      },
      "/bundles/{bundle}": {
        get: {
          operationId: "bundle",
          summary: "A bundle, through a presigned URL only; single Range requests resume a download",
          parameters: [
            {
              name: "bundle",
              in: "path",
              required: true,
              schema: { type: "string", pattern: "^\\d{10}-\\d{10}\\.bundle\\.gz$" },
            },
            { name: "expires", in: "query", required: true, schema: { type: "string" } },
            { name: "signature", in: "query", required: true, schema: { type: "string" } },
            { name: "Range", in: "header", required: false, schema: { type: "string", examples: ["bytes=1024-"] } },
          ],
          responses: {
            "200": { description: "the bundle", content: { "application/gzip": {} } },
            "206": { description: "the range asked for", content: { "application/gzip": {} } },
            "403": errorResponse("URL_EXPIRED or URL_SIGNATURE_INVALID"),
            "404": errorResponse("no such bundle"),
            "416": errorResponse("RANGE_NOT_SATISFIABLE"),
          },
        },
      },
    },
  };
}
