/**
 * SPEC.md "Authentication" over real HTTP: one test per rule of the access matrix.
 */
import { describe, expect, it } from "vitest";
import { bodyOf, bearer, PUBLISHED, startTestApi, TOKEN } from "../../../support/api-harness.js";
import { allRoutes } from "../../../support/test-routes.js";

const json = { "content-type": "application/json" };
const start = (env: Record<string, string> = {}) => startTestApi(env, { routes: allRoutes });

describe("rule 2/3: /v1 reads on loopback", () => {
  it("a loopback read without a token answers 200", async () => {
    const api = await start();
    expect((await api.get("/v1/test/rows")).status).toBe(200);
  });

  it("a loopback read without a token answers 200 even when the instance has a token", async () => {
    const api = await start({ INSTANCE_TOKEN: TOKEN });
    expect((await api.get("/v1/test/rows")).status).toBe(200);
  });

  it("a wrong token on a loopback read is ignored, never 401", async () => {
    const api = await start({ INSTANCE_TOKEN: TOKEN });
    const res = await api.get("/v1/test/rows", { headers: bearer("wrong") });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ rows: [] });
  });

  it("a malformed Authorization header on a loopback read is ignored", async () => {
    const api = await start({ INSTANCE_TOKEN: TOKEN });
    expect((await api.get("/v1/test/rows", { headers: { authorization: "Basic Zm9vOmJhcg==" } })).status).toBe(200);
  });

  it("a token on a loopback read with no instance token configured is ignored", async () => {
    const api = await start();
    expect((await api.get("/v1/test/rows", { headers: bearer("anything") })).status).toBe(200);
  });

  it("/extended reads follow the /v1 rule", async () => {
    const api = await start({ INSTANCE_TOKEN: TOKEN });
    expect((await api.get("/extended/test/rows", { headers: bearer("wrong") })).status).toBe(200);
  });

  it("loopback is decided by API_PUBLISH_ADDR, not the caller: published on 127.0.0.1 reads stay open", async () => {
    const api = await start({ API_PUBLISH_ADDR: "127.0.0.1:3800", INSTANCE_TOKEN: TOKEN });
    expect((await api.get("/v1/test/rows")).status).toBe(200);
  });
});

describe("rule 3: published past loopback, every /v1 read needs the token", () => {
  it("a read without a token answers 401 with WWW-Authenticate: Bearer", async () => {
    const api = await start(PUBLISHED);
    const res = await api.get("/v1/test/rows");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(await res.json()).toMatchObject({ code: "UNAUTHORIZED", error: expect.any(String) });
  });

  it("a read with a wrong token answers 401", async () => {
    const api = await start(PUBLISHED);
    expect((await api.get("/v1/test/rows", { headers: bearer("wrong") })).status).toBe(401);
  });

  it("a read with the right token answers 200", async () => {
    const api = await start(PUBLISHED);
    expect((await api.get("/v1/test/rows", { headers: bearer(TOKEN) })).status).toBe(200);
  });

  it("the Bearer scheme is case-insensitive", async () => {
    const api = await start(PUBLISHED);
    expect((await api.get("/v1/test/rows", { headers: { authorization: `bearer ${TOKEN}` } })).status).toBe(200);
  });

  it("a token that is a prefix of the real one is refused", async () => {
    const api = await start(PUBLISHED);
    expect((await api.get("/v1/test/rows", { headers: bearer(TOKEN.slice(0, -1)) })).status).toBe(401);
  });

  it("a public IP in API_PUBLISH_ADDR counts as past loopback", async () => {
    const api = await start({ API_PUBLISH_ADDR: "203.0.113.7:443", INSTANCE_TOKEN: TOKEN });
    expect((await api.get("/v1/test/rows")).status).toBe(401);
    expect((await api.get("/v1/test/rows", { headers: bearer(TOKEN) })).status).toBe(200);
  });

  it("/extended reads need the token past loopback too", async () => {
    const api = await start(PUBLISHED);
    expect((await api.get("/extended/test/rows")).status).toBe(401);
  });

  it("an unknown /v1 path answers 401 without the token (routes are not probeable), 404 with it", async () => {
    const api = await start(PUBLISHED);
    expect((await api.get("/v1/nope")).status).toBe(401);
    const res = await api.get("/v1/nope", { headers: bearer(TOKEN) });
    expect(res.status).toBe(404);
    expect((await bodyOf(res)).code).toBe("NOT_FOUND");
  });

  it("/health stays public past loopback", async () => {
    const api = await start(PUBLISHED);
    expect((await api.get("/health")).status).toBe(200);
  });
});

describe("token sources: INSTANCE_TOKEN and the legacy SLUICE_API_KEY", () => {
  it("SLUICE_API_KEY works as the instance token", async () => {
    const api = await start({ API_PUBLISH_ADDR: "0.0.0.0:3800", SLUICE_API_KEY: "legacy-key" });
    expect((await api.get("/v1/test/rows", { headers: bearer("legacy-key") })).status).toBe(200);
    expect((await api.get("/v1/test/rows")).status).toBe(401);
  });

  it("when both are set INSTANCE_TOKEN wins and the alias value is refused", async () => {
    const api = await start({ API_PUBLISH_ADDR: "0.0.0.0:3800", INSTANCE_TOKEN: TOKEN, SLUICE_API_KEY: "legacy-key" });
    expect((await api.get("/v1/test/rows", { headers: bearer(TOKEN) })).status).toBe(200);
    expect((await api.get("/v1/test/rows", { headers: bearer("legacy-key") })).status).toBe(401);
  });
});

describe("rule 1: once a token is set, /status and writes require it, loopback included", () => {
  it("/status with a token set answers 401 without it on loopback", async () => {
    const api = await start({ INSTANCE_TOKEN: TOKEN });
    expect((await api.get("/status")).status).toBe(401);
    expect((await api.get("/status", { headers: bearer("wrong") })).status).toBe(401);
    expect((await api.get("/status", { headers: bearer(TOKEN) })).status).toBe(200);
  });

  it("/status without a token set is open on loopback", async () => {
    const api = await start();
    expect((await api.get("/status")).status).toBe(200);
  });

  it("a write with a token set answers 401 without it on loopback", async () => {
    const api = await start({ INSTANCE_TOKEN: TOKEN });
    const body = JSON.stringify({ a: 1 });
    expect((await api.fetch("/api/test/echo", { method: "POST", headers: json, body })).status).toBe(401);
    expect(
      (await api.fetch("/api/test/echo", { method: "POST", headers: { ...json, ...bearer("wrong") }, body })).status,
    ).toBe(401);
    const ok = await api.fetch("/api/test/echo", { method: "POST", headers: { ...json, ...bearer(TOKEN) }, body });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ received: { a: 1 } });
  });

  it("a write past loopback needs the token", async () => {
    const api = await start(PUBLISHED);
    expect((await api.fetch("/api/test/echo", { method: "DELETE" })).status).toBe(401);
    expect((await api.fetch("/api/test/echo", { method: "DELETE", headers: bearer(TOKEN) })).status).toBe(204);
  });

  it("the token is checked before the body: an unauthenticated non-JSON write is 401, not 415", async () => {
    const api = await start({ INSTANCE_TOKEN: TOKEN });
    const res = await api.fetch("/api/test/echo", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x",
    });
    expect(res.status).toBe(401);
  });

  it("an unknown /api path answers 401 without the token once one is set", async () => {
    const api = await start({ INSTANCE_TOKEN: TOKEN });
    expect((await api.fetch("/api/node", { method: "POST" })).status).toBe(401);
    expect((await api.fetch("/api/node", { method: "POST", headers: bearer(TOKEN) })).status).toBe(404);
  });

  it("without a token set, loopback writes are allowed", async () => {
    const api = await start();
    const res = await api.fetch("/api/test/echo", { method: "POST", headers: json, body: "{}" });
    expect(res.status).toBe(200);
  });
});
