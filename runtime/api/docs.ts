/**
 * The service's own API description (README "OpenAPI and docs"):
 * - getOpenApi: GET /openapi.json — the OpenAPI 3.1 document of every route (openapi-document.ts),
 *   `servers` set to the address the request came in on;
 * - getDocsPage: GET /docs — a reference page rendering it with Swagger UI (the swagger-ui-dist
 *   package, served from this origin: no CDN);
 * - getDocsAsset: GET /docs/:asset — the Swagger UI bundle, its style sheet and the page's start-up
 *   script. Same content-security-policy as the console: the page loads and calls only this origin.
 * Public: the document holds no instance data (the per-subgraph documents stay under /v1).
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { ServiceError } from "../internal/errors.js";
import { CONSOLE_CSP } from "./console.js";
import type { RequestContext } from "./http/context.js";
import { rejectUnknownParams } from "./http/query-params.js";
import type { RouteHandler } from "./http/route-table.js";
import { buildServiceOpenApi } from "./openapi-document.js";
import { instanceBaseUrl } from "./subgraphs/documents.js";

/** Starts Swagger UI on the served document; a file, since the CSP allows no inline script. */
const INIT_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#docs", deepLinking: true });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sluice API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</head>
<body>
<noscript>The API reference needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="docs"></div>
</body>
</html>
`;

/** The page's files: name → media type; the Swagger UI ones are read from swagger-ui-dist. */
const ASSETS: Readonly<Record<string, string>> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
  "init.js": "text/javascript; charset=utf-8",
};

function swaggerUiDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
}

function pageHeaders(res: Parameters<RouteHandler<RequestContext>>[1]): void {
  res.setHeader("Content-Security-Policy", CONSOLE_CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Frame-Options", "DENY");
}

/** GET /openapi.json */
export const getOpenApi: RouteHandler<RequestContext> = (req, res, ctx) => {
  rejectUnknownParams(req.query, []);
  res.setHeader("Cache-Control", "no-cache");
  res.json(buildServiceOpenApi(instanceBaseUrl(req.headers.host, ctx.config)));
};

/** GET /docs */
export const getDocsPage: RouteHandler<RequestContext> = (req, res) => {
  rejectUnknownParams(req.query, []);
  pageHeaders(res);
  res.setHeader("Cache-Control", "no-cache");
  res.status(200).type("text/html; charset=utf-8").send(PAGE);
};

/** GET /docs/:asset */
export const getDocsAsset: RouteHandler<RequestContext> = async (req, res) => {
  rejectUnknownParams(req.query, []);
  const name = String(req.params.asset);
  const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (type === undefined) {
    throw new ServiceError(404, "NOT_FOUND", `no docs asset ${JSON.stringify(name)}`, { assets: Object.keys(ASSETS) });
  }
  let body: Buffer | string;
  if (name === "init.js") body = INIT_SCRIPT;
  else {
    try {
      body = await readFile(path.join(swaggerUiDir(), name));
    } catch {
      throw new ServiceError(503, "DOCS_NOT_INSTALLED", "the swagger-ui-dist package is missing: run `npm ci`");
    }
  }
  pageHeaders(res);
  res.setHeader("Cache-Control", "public, max-age=3600");
  res.status(200).type(type).send(body);
};
