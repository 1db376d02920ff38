/**
 * GET /openapi.json and /docs against the real service (README "OpenAPI and docs"): the document
 * is valid OpenAPI 3.1, names exactly the routes of the route table (a route added or renamed
 * without documentation fails here), and every documented operation, called for real, answers
 * with a status (and media type) the document lists and a JSON body its schema accepts (ajv,
 * JSON Schema 2020-12). HTTP shape only: PGlite.
 */
import { validate } from "@readme/openapi-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { undocumentedRoutes } from "../../runtime/api/openapi-document.js";
import { routes } from "../../runtime/api/routes.js";
import type { Service } from "../../runtime/service.js";
import { simulateChain } from "../../runtime/simulator/index.js";
import { createTestDb, type TestDb } from "../support/db.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { postObserver, startTestService } from "../support/service.js";

const TOKEN = "tok_openapi-test";
const auth = { authorization: `Bearer ${TOKEN}` };
let t: TestDb;
let svc: Service;
let receiver: Receiver;
// biome-ignore lint/suspicious/noExplicitAny: a parsed OpenAPI document is walked generically
let doc: any;

beforeAll(async () => {
  t = await createTestDb();
  svc = await startTestService(t.db, { WEBHOOK_ALLOW_PRIVATE: "true", INSTANCE_TOKEN: TOKEN });
  receiver = await startReceiver();
  const { payloads } = simulateChain({ seed: "openapi-doc", blocks: 6, eventsPerBlock: 4 });
  for (const p of payloads) await postObserver(svc.observerUrl, p.path, JSON.stringify(p.body));
  await svc.idle();
  await svc.subgraphs.idle();
  const res = await fetch(`${svc.apiUrl}/openapi.json`);
  expect(res.status).toBe(200);
  doc = await res.json();
});

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
  await t?.drop();
});

/** `/a/:b` → `/a/{b}`, written here independently of the document builder. */
const templated = (path: string) =>
  path
    .split("/")
    .map((s) => (s.startsWith(":") ? `{${s.slice(1)}}` : s))
    .join("/");

describe("the document", () => {
  it("is valid OpenAPI 3.1 and its servers entry is the address it was fetched from", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(doc));
    expect(result).toMatchObject({ valid: true });
    expect(doc.servers).toEqual([{ url: svc.apiUrl }]);
  });

  it("documents exactly the routes of the route table, with their access rules", () => {
    const served = routes.map((r) => `${r.method} ${templated(r.path)}`).sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, item]) => Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(documented).toEqual(served);
    for (const r of routes) {
      const op = doc.paths[templated(r.path)][r.method.toLowerCase()];
      const needsToken = op.security.some((s: object) => "instanceToken" in s);
      const anonymousToo = op.security.length === 0 || op.security.some((s: object) => Object.keys(s).length === 0);
      expect([needsToken, anonymousToo], `${r.method} ${r.path}`).toEqual(
        r.auth === "public" ? [false, true] : r.auth === "read" ? [true, true] : [true, false],
      );
    }
  });

  it("a route added to the table without documentation is reported (and so refused at start-up)", () => {
    expect(undocumentedRoutes(routes)).toEqual({ undocumented: [], unserved: [] });
    const added = [...routes, { method: "GET" as const, path: "/v1/index/blocks", auth: "read" as const }];
    expect(undocumentedRoutes(added).undocumented).toEqual(["GET /v1/index/blocks (read)"]);
    const renamed = routes.map((r) => (r.path === "/v1/index/events" ? { ...r, path: "/v1/index/event" } : r));
    expect(undocumentedRoutes(renamed)).toEqual({
      undocumented: ["GET /v1/index/event (read)"],
      unserved: ["GET /v1/index/events (read)"],
    });
  });

  it("lists the parameters the handlers accept: an undocumented one is refused, documented ones are not", async () => {
    const params = doc.paths["/v1/index/events"].get.parameters.map((p: { name: string }) => p.name).sort();
    expect(params).toEqual(["cursor", "from_cursor", "from_height", "limit", "to_height"]);
    for (const name of params) {
      const value = name.includes("cursor") ? "0:0" : "1";
      const query = name === "from_cursor" ? `from_cursor=${value}` : `${name}=${value}`;
      const res = await fetch(`${svc.apiUrl}/v1/index/events?${query}`);
      expect(res.status, name).toBe(200);
    }
    expect((await fetch(`${svc.apiUrl}/v1/index/events?offset=1`)).status).toBe(400);
  });
});

describe("every documented operation answers with a documented status", () => {
  it("called with the token, and the protected ones without it", async () => {
    const events = (await (await fetch(`${svc.apiUrl}/v1/index/events?limit=1000`)).json()) as {
      events: { tx_id: string; event_type: string; contract_id?: string; payload?: { contract_identifier?: string } }[];
    };
    const txId = events.events[0].tx_id;
    const created = await fetch(`${svc.apiUrl}/api/webhooks`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: "doc-check", url: receiver.url, triggers: [{ type: "stx_transfer" }] }),
    });
    expect(created.status).toBe(201);
    const subscription = await fetch(`${svc.apiUrl}/api/subscriptions`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: "doc-check-alias", url: receiver.url, triggers: [{ type: "stx_transfer" }] }),
    });
    expect(subscription.status).toBe(201);
    const values: Record<string, string> = {
      name: "contract-deployments",
      table: "contracts",
      id: "1",
      contract_id: "SP000000000000000000002Q6VF78.pox-4",
      tx_id: txId,
      delivery_id: "dlv_none",
      asset: "swagger-ui.css",
    };
    const bodies: Record<string, unknown> = {
      "POST /api/webhooks": { name: "doc-check-2", url: receiver.url, triggers: [{ type: "stx_mint" }] },
      "POST /api/subscriptions": { name: "doc-check-3", url: receiver.url, triggers: [{ type: "stx_mint" }] },
      "PATCH /api/webhooks/{webhook}": { timeoutMs: 5000 },
      "PATCH /api/subscriptions/{webhook}": { timeoutMs: 5000 },
      "POST /api/webhooks/{webhook}/replay": { fromBlock: 1, toBlock: 2 },
      "POST /api/subscriptions/{webhook}/replay": { fromBlock: 1, toBlock: 2 },
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { responses: Record<string, { content?: object }> }>).map(
        ([method, op]) => ({ path, method: method.toUpperCase(), op }),
      ),
    );
    // Deletions last, so the other calls find their webhook.
    operations.sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));
    // Bodies are checked against the response schema the document gives for their status.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(structuredClone(doc), "openapi");
    const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
    const bodiesChecked: string[] = [];
    const checked: string[] = [];
    for (const { path, method, op } of operations) {
      const key = `${method} ${path}`;
      const webhook = path.startsWith("/api/subscriptions") ? "doc-check-alias" : "doc-check";
      const url = svc.apiUrl + path.replace(/\{(\w+)\}/g, (_, n: string) => (n === "webhook" ? webhook : values[n]));
      const body = bodies[key];
      const abort = new AbortController();
      const res = await fetch(url, {
        method,
        headers: { ...auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: abort.signal,
      });
      const type = (res.headers.get("content-type") ?? "").split(";")[0];
      // Streams stay open: only JSON answers are read whole.
      const text = type === "application/json" || res.status >= 400 ? await res.text() : "";
      const documented = op.responses[String(res.status)];
      expect(documented, `${key} answered ${res.status}: ${res.status >= 400 ? text : ""}`).toBeDefined();
      if (documented.content && res.status !== 304)
        expect(Object.keys(documented.content), `${key} media type`).toContain(type);
      const schema = (documented.content as Record<string, { schema?: unknown }> | undefined)?.[type]?.schema;
      if (type === "application/json" && schema !== undefined) {
        const body = JSON.parse(text);
        const ref = `openapi#/${pointer("paths", path, method.toLowerCase(), "responses", String(res.status), "content", type, "schema")}`;
        const ok = ajv.validate({ $ref: ref }, body);
        expect(ok ? [] : ajv.errors, `${key} ${res.status} body`).toEqual([]);
        bodiesChecked.push(key);
      }
      abort.abort();
      checked.push(`${key} ${res.status}`);
      if (op.responses["401"]) {
        const anon = await fetch(url, { method, signal: AbortSignal.timeout(30_000) }).catch(() => null);
        // Read routes answer anonymous callers on loopback; the rest refuse them.
        if (anon && anon.status !== 401)
          expect(key.includes(" /v1/"), `${key} without token: ${anon.status}`).toBe(true);
        await anon?.body?.cancel();
      }
    }
    // A success was seen for the bulk of the operations (not only 4xx answers).
    const ok = checked.filter((c) => /\s2\d\d$/.test(c));
    expect(ok.length).toBeGreaterThan(operations.length * 0.7);
    // And the bodies of most of them were JSON checked against their schema.
    expect(bodiesChecked.length).toBeGreaterThan(operations.length * 0.6);
  });
});

describe("GET /docs", () => {
  it("serves the reference page and its Swagger UI files from this origin under the console's CSP", async () => {
    const page = await fetch(`${svc.apiUrl}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.filter((r) => r.startsWith("/docs/")).sort()).toEqual([
      "/docs/init.js",
      "/docs/swagger-ui-bundle.js",
      "/docs/swagger-ui.css",
    ]);
    expect(html).not.toMatch(/<script>[^<]/);
    for (const ref of refs.filter((r) => r.startsWith("/docs/"))) {
      const res = await fetch(svc.apiUrl + ref);
      expect(res.status, ref).toBe(200);
      expect((await res.text()).length, ref).toBeGreaterThan(10);
    }
    expect(await (await fetch(`${svc.apiUrl}/docs/init.js`)).clone().text()).toContain("/openapi.json");
    expect((await fetch(`${svc.apiUrl}/docs/index.html`)).status).toBe(404);
  });
});
