/**
 * Error rendering (runtime/api/http/errors.ts): `{error, code, details?}` everywhere, a JSON 404 for
 * unknown routes, 500 INTERNAL without internals for unexpected throws, request ids.
 */
import { describe, expect, it } from "vitest";
import { codeForStatus, renderError } from "../../../../runtime/api/http/errors.js";
import { checkRouteTable } from "../../../../runtime/api/http/route-table.js";
import { routes } from "../../../../runtime/api/routes.js";
import { badRequest, ServiceError } from "../../../../runtime/internal/errors.js";
import { bodyOf, startTestApi } from "../../../support/api-harness.js";
import { allRoutes } from "../../../support/test-routes.js";

describe("unknown routes", () => {
  it("answer 404 JSON with code NOT_FOUND naming the method and path", async () => {
    const api = await startTestApi();
    const res = await api.get("/x?y=1");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: "no route GET /x", code: "NOT_FOUND" });
  });

  it("a known path with another method is a 404 too", async () => {
    const api = await startTestApi();
    const res = await api.fetch("/health", { method: "POST" });
    expect(res.status).toBe(404);
    expect((await bodyOf(res)).error).toBe("no route POST /health");
  });

  it("paths are case-sensitive", async () => {
    const api = await startTestApi();
    expect((await api.get("/HEALTH")).status).toBe(404);
  });

  it("HTML in the path is escaped in the JSON body", async () => {
    const api = await startTestApi();
    const res = await api.get("/<script>");
    expect(await res.text()).not.toContain("<script>");
  });
});

describe("unexpected errors", () => {
  it("a handler that throws answers 500 INTERNAL with no stack or message in the body, and is logged", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const res = await api.get("/v1/test/boom");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: "internal error", code: "INTERNAL" });
    expect(text).not.toMatch(/hunter2|at |\.ts/);
    const requestId = res.headers.get("x-request-id");
    const logged = api.logs.find((l) => l.msg === "request failed");
    expect(logged).toMatchObject({ level: "error", request_id: requestId, path: "/v1/test/boom" });
    expect(JSON.stringify(logged)).toContain("hunter2");
  });

  it("a handler whose promise rejects answers 500 INTERNAL", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const res = await api.get("/v1/test/boom-async");
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: "internal error", code: "INTERNAL" });
  });

  it("every response carries a fresh x-request-id", async () => {
    const api = await startTestApi();
    const a = (await api.get("/health")).headers.get("x-request-id");
    const b = (await api.get("/health", { headers: { "x-request-id": "spoofed" } })).headers.get("x-request-id");
    expect(a).toMatch(/^req_[0-9a-f]{16}$/);
    expect(b).toMatch(/^req_[0-9a-f]{16}$/);
    expect(a).not.toBe(b);
  });

  it("the X-Powered-By header is not sent", async () => {
    const api = await startTestApi();
    expect((await api.get("/health")).headers.get("x-powered-by")).toBeNull();
  });
});

describe("renderError", () => {
  it("renders a ServiceError with its status, code and details", () => {
    expect(renderError(badRequest("INVALID_COLUMN", "no column x", { column: "x" }))).toEqual({
      status: 400,
      body: { error: "no column x", code: "INVALID_COLUMN", details: { column: "x" } },
      internal: false,
    });
    expect(renderError(new ServiceError(503, "NOT_READY", "starting")).internal).toBe(true);
  });

  it("maps Express's own 4xx errors by status", () => {
    const decode = Object.assign(new URIError("Failed to decode param '%E0'"), { status: 400, expose: true });
    expect(renderError(decode)).toEqual({
      status: 400,
      body: { error: "Failed to decode param '%E0'", code: "BAD_REQUEST" },
      internal: false,
    });
  });

  it("hides the message of 4xx errors not marked exposable", () => {
    expect(renderError(Object.assign(new Error("secret"), { status: 403 })).body).toEqual({
      error: "Forbidden",
      code: "FORBIDDEN",
    });
  });

  it("turns everything else into 500 INTERNAL", () => {
    for (const err of [new Error("x"), "a string", null, { status: 502 }, { status: "400" }]) {
      expect(renderError(err)).toEqual({
        status: 500,
        body: { error: "internal error", code: "INTERNAL" },
        internal: true,
      });
    }
  });

  it("derives codes from status texts", () => {
    expect(codeForStatus(413)).toBe("PAYLOAD_TOO_LARGE");
    expect(codeForStatus(414)).toBe("URI_TOO_LONG");
  });

  it("a malformed percent-escape in a path parameter is a 400, not a 500", async () => {
    const api = await startTestApi(
      {},
      {
        routes: [
          ...allRoutes,
          {
            method: "GET",
            path: "/v1/test/items/:id",
            auth: "read",
            handler: (req, res) => res.json({ id: req.params.id }),
          },
        ],
      },
    );
    const res = await api.get("/v1/test/items/%E0%A4%A");
    expect(res.status).toBe(400);
    expect((await bodyOf(res)).code).toBe("BAD_REQUEST");
  });
});

describe("checkRouteTable", () => {
  it("the real table is consistent", () => {
    expect(checkRouteTable(routes)).toEqual([]);
  });

  it("lists duplicates, relative paths and access rules weaker than the prefix demands", () => {
    const h = () => undefined;
    expect(
      checkRouteTable([
        { method: "GET", path: "/v1/x", auth: "public", handler: h },
        { method: "GET", path: "/v1/x", auth: "read", handler: h },
        { method: "POST", path: "/api/x", auth: "read", handler: h },
        { method: "GET", path: "/status", auth: "public", handler: h },
        { method: "GET", path: "nope", auth: "public", handler: h },
      ]),
    ).toEqual([
      'GET /v1/x: auth "public" is weaker than "read" required under this prefix',
      "GET /v1/x: listed twice",
      'POST /api/x: auth "read" is weaker than "write" required under this prefix',
      'GET /status: auth "public" is weaker than "status" required under this prefix',
      'GET nope: path must start with "/"',
    ]);
  });

  it("createApiApp refuses an inconsistent table", async () => {
    await expect(
      startTestApi({}, { routes: [{ method: "GET", path: "/api/x", auth: "public", handler: () => undefined }] }),
    ).rejects.toThrow(/invalid route table/);
  });
});
