/**
 * The operators' web console (README "Web console"): GET /console serves the page shell and
 * GET /console/:asset the script and style sheet that `npm run build` bundles from console/ into
 * dist/console/. The routes are public because they hold no data: every figure the page shows
 * comes from the API, under the API's own access rules (the page sends the instance token as an
 * `authorization: Bearer` header). A strict content-security-policy lets the page load and call
 * nothing but this origin.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Response } from "express";
import { ServiceError } from "../internal/errors.js";
import type { RequestContext } from "./http/context.js";
import { rejectUnknownParams } from "./http/query-params.js";
import type { RouteHandler } from "./http/route-table.js";

/** Self only: no inline script or style, no other origin, no framing. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** The bundle's files and their media types; nothing else is ever read from disk. */
const ASSETS: Readonly<Record<string, string>> = {
  "app.js": "text/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sluice console</title>
<link rel="stylesheet" href="/console/app.css">
<script type="module" src="/console/app.js"></script>
</head>
<body>
<noscript>The sluice console needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;

/** dist/console of the package, found from this module whether it runs from source or from dist/. */
export function consoleAssetDir(from = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  while (!existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) return path.join(from, "console");
    dir = parent;
  }
  return path.join(dir, "dist", "console");
}

function secureHeaders(res: Response): void {
  res.setHeader("Content-Security-Policy", CONSOLE_CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Cache-Control", "no-cache");
}

/** GET /console — the page shell. */
export const getConsolePage: RouteHandler<RequestContext> = (req, res) => {
  rejectUnknownParams(req.query, []);
  secureHeaders(res);
  res.status(200).type("text/html; charset=utf-8").send(PAGE);
};

/** GET /console/:asset — app.js or app.css from the built bundle; 503 CONSOLE_NOT_BUILT before `npm run build`. */
export const getConsoleAsset: RouteHandler<RequestContext> = async (req, res) => {
  rejectUnknownParams(req.query, []);
  const name = String(req.params.asset);
  const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (type === undefined) {
    throw new ServiceError(404, "NOT_FOUND", `no console asset ${JSON.stringify(name)}`, {
      assets: Object.keys(ASSETS),
    });
  }
  let body: Buffer;
  try {
    body = await readFile(path.join(consoleAssetDir(), name));
  } catch {
    throw new ServiceError(503, "CONSOLE_NOT_BUILT", "the console bundle is missing: run `npm run build`");
  }
  secureHeaders(res);
  res.status(200).type(type).send(body);
};
