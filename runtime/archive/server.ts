/**
 * `sluice archive serve`: the archive over HTTP on its own port. The signed documents
 * (`/latest.json`, `/keys.json`, `/manifests/…`) are public; a bundle is served only through a
 * presigned URL (`POST /presign {"file"}` → `{url, expires_at}`, HMAC over path + expiry, default
 * five minutes), with single Range requests so a download resumes. Errors are
 * `{error, code}`: 403 URL_EXPIRED / URL_SIGNATURE_INVALID, 404 NOT_FOUND, 416 RANGE_NOT_SATISFIABLE.
 *
 * With credits (runtime/archive/credits), `POST /presign {"file", "kind"}` charges the bundle
 * (manifest `price_units` × the unit price) before it signs the URL, `/credits/*` is the credits
 * API, and a refused charge answers its status (402 INSUFFICIENT_CREDITS, 401, 409, 400). Without
 * credits (a free archive) nothing is charged. `GET /pricing` says which, so an instance can show
 * the price in dollars before it asks for anything. `GET /openapi.json` describes these routes.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type BoundPort, bindPort } from "../internal/http-listener.js";
import { bundlePriceCents, chargePresign } from "./credits/presign-charge.js";
import type { CreditsService } from "./credits/service.js";
import type { LatestPointer, Manifest, PartitionEntry, Signed } from "./manifest.js";
import { archiveOpenApi } from "./openapi.js";
import { DEFAULT_URL_TTL_SECONDS, checkPresigned, parseRange, presign } from "./presign.js";
import type { ArchiveStorage } from "./storage.js";

export interface ArchiveServerOptions {
  storage: ArchiveStorage;
  host: string;
  port: number;
  /** HMAC key of presigned URLs; random per process when absent (URLs then die with it). */
  urlSecret?: Uint8Array;
  urlTtlSeconds?: number;
  now?: () => number;
  /** Absent: a free archive (no credits, nothing charged). */
  credits?: ArchiveCredits;
}

export interface ArchiveCredits {
  service: CreditsService;
  /** Cents per manifest price unit; 0 makes every bundle free (no charge, no credit key needed). */
  unitPriceCents: number;
  /** The credits API (`createCreditsApp`), given every request under /credits/. */
  app: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface ArchiveServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const DOCUMENT = /^\/(latest\.json|keys\.json|manifests\/\d{8}\.json)$/;
const BUNDLE = /^\/(bundles\/\d{10}-\d{10}\.bundle\.gz)$/;
const MAX_BODY = 4096;

export async function startArchiveServer(o: ArchiveServerOptions): Promise<ArchiveServer> {
  const secret = o.urlSecret ?? randomBytes(32);
  const ttl = o.urlTtlSeconds ?? DEFAULT_URL_TTL_SECONDS;
  const now = () => (o.now?.() ?? Date.now()) / 1000;
  const bound: BoundPort = await bindPort({ host: o.host, port: o.port, closeGraceMs: 2_000 });

  const fail = (res: ServerResponse, status: number, code: string, error: string) => {
    if (res.headersSent) return void res.destroy();
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ error, code }));
  };

  const pricing = () =>
    o.credits && o.credits.unitPriceCents > 0
      ? { charged: true, unit_price_cents: o.credits.unitPriceCents }
      : { charged: false, unit_price_cents: 0 };

  /** The partition a bundle file belongs to, in the manifest latest.json names (this archive's own files). */
  async function manifestEntry(file: string): Promise<PartitionEntry | null> {
    const latest = await o.storage.read("latest.json");
    if (latest === null) return null;
    const pointer = (JSON.parse(latest.toString("utf8")) as Signed<LatestPointer>).body;
    const body = await o.storage.read(pointer.manifest);
    if (body === null) return null;
    const manifest = (JSON.parse(body.toString("utf8")) as Signed<Manifest>).body;
    return manifest.partitions.find((p) => p.file === file) ?? null;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://archive");
    const method = req.method ?? "GET";
    if (url.pathname === "/health" && method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end('{"status":"ok"}');
    }
    if (url.pathname === "/openapi.json" && method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify(archiveOpenApi()));
    }
    if (url.pathname === "/pricing" && method === "GET") {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache" });
      return void res.end(JSON.stringify(pricing()));
    }
    if (o.credits && (url.pathname === "/credits" || url.pathname.startsWith("/credits/"))) {
      return o.credits.app(req, res);
    }
    const doc = DOCUMENT.exec(url.pathname);
    if (doc && (method === "GET" || method === "HEAD")) {
      const body = await o.storage.read(doc[1]);
      if (body === null) return fail(res, 404, "NOT_FOUND", `no ${doc[1]} in this archive`);
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": body.length,
        "cache-control": doc[1] === "latest.json" ? "no-cache" : "public, max-age=31536000, immutable",
      });
      return void res.end(method === "HEAD" ? undefined : body);
    }
    if (url.pathname === "/presign" && method === "POST") {
      const body = await readBody(req);
      if (body === null) return fail(res, 413, "BODY_TOO_LARGE", `the body must be at most ${MAX_BODY} bytes`);
      let file: unknown;
      let kind: unknown;
      try {
        ({ file, kind } = JSON.parse(body) as { file?: unknown; kind?: unknown });
      } catch {
        return fail(res, 400, "BAD_JSON", 'the body must be JSON: {"file": "bundles/…", "kind": "bootstrap"}');
      }
      if (typeof file !== "string" || !BUNDLE.test(`/${file}`))
        return fail(res, 400, "BAD_FILE", "file must name a bundle of the manifest (bundles/…bundle.gz)");
      if ((await o.storage.size(file)) === null) return fail(res, 404, "NOT_FOUND", `no ${file} in this archive`);
      let charged: { charged_cents: number; balance_cents: number; free: boolean } | null = null;
      if (o.credits && o.credits.unitPriceCents > 0) {
        const entry = await manifestEntry(file);
        if (!entry) return fail(res, 404, "NOT_FOUND", `${file} is not a partition of the current manifest`);
        const result = await chargePresign(o.credits.service, req.headers, {
          file,
          kind,
          priceCents: bundlePriceCents(entry.price_units, o.credits.unitPriceCents),
        });
        if (!result.ok) {
          if (res.headersSent) return void res.destroy();
          res.writeHead(result.status, { "content-type": "application/json" });
          return void res.end(
            JSON.stringify({
              error: result.message,
              code: result.code,
              ...(result.details ? { details: result.details } : {}),
            }),
          );
        }
        charged = { charged_cents: result.chargedCents, balance_cents: result.balanceCents, free: result.free };
      }
      const path = `/${file}`;
      const signed = presign(secret, path, now(), ttl);
      res.writeHead(200, { "content-type": "application/json" });
      const expires = Number(new URL(signed, "http://x").searchParams.get("expires"));
      return void res.end(
        JSON.stringify({ url: signed, expires_at: new Date(expires * 1000).toISOString(), ...(charged ?? {}) }),
      );
    }
    const bundle = BUNDLE.exec(url.pathname);
    if (bundle && (method === "GET" || method === "HEAD")) {
      const check = checkPresigned(
        secret,
        url.pathname,
        url.searchParams.get("expires") ?? undefined,
        url.searchParams.get("signature") ?? undefined,
        now(),
      );
      if (!check.ok) return fail(res, 403, check.code, check.message);
      const size = await o.storage.size(bundle[1]);
      if (size === null) return fail(res, 404, "NOT_FOUND", `no ${bundle[1]} in this archive`);
      const range = parseRange(req.headers.range, size);
      if (range === "invalid") {
        res.setHeader("content-range", `bytes */${size}`);
        return fail(res, 416, "RANGE_NOT_SATISFIABLE", `the bundle has ${size} bytes`);
      }
      const { start, end } = range ?? { start: 0, end: size - 1 };
      res.writeHead(range ? 206 : 200, {
        "content-type": "application/gzip",
        "accept-ranges": "bytes",
        "content-length": end - start + 1,
        ...(range ? { "content-range": `bytes ${start}-${end}/${size}` } : {}),
      });
      if (method === "HEAD" || size === 0) return void res.end();
      const stream = o.storage.readRange(bundle[1], start, end);
      stream.on("error", () => res.destroy());
      stream.pipe(res);
      return;
    }
    if (doc || bundle || url.pathname === "/presign" || url.pathname === "/pricing")
      return fail(res, 405, "METHOD_NOT_ALLOWED", `${method} is not allowed here`);
    return fail(res, 404, "NOT_FOUND", `no route ${url.pathname}`);
  }

  bound.serve((req, res) => {
    handle(req, res).catch((err) => fail(res, 500, "INTERNAL", err instanceof Error ? err.message : String(err)));
  });
  return { url: bound.url, port: bound.port, close: () => bound.close() };
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
