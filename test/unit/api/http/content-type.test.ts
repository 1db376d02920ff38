/**
 * Write-request bodies (runtime/api/http/content-type.ts): JSON only by default (415 otherwise),
 * malformed JSON is 400 INVALID_JSON, oversized bodies are 413 PAYLOAD_TOO_LARGE, bodies nested
 * deeper than 64 levels are 400 BODY_TOO_DEEP.
 */
import { describe, expect, it } from "vitest";
import { bodyOf, startTestApi } from "../../../support/api-harness.js";
import { allRoutes } from "../../../support/test-routes.js";

const post = (body: string | undefined, headers: Record<string, string> = {}, path = "/api/test/echo") => ({
  path,
  init: { method: "POST", headers, body } as RequestInit,
});

describe("write bodies", () => {
  it("a JSON write with a charset parameter is accepted", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const { path, init } = post('{"x":[1,2]}', { "content-type": "application/json; charset=utf-8" });
    const res = await api.fetch(path, init);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: { x: [1, 2] } });
  });

  it("a non-JSON write answers 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const { path, init } = post("a=1", { "content-type": "application/x-www-form-urlencoded" });
    const res = await api.fetch(path, init);
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({
      code: "UNSUPPORTED_MEDIA_TYPE",
      details: { accepted: ["application/json"] },
    });
  });

  it("a write body with no Content-Type answers 415", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const res = await api.fetch("/api/test/echo", { method: "POST", body: new Uint8Array([123, 125]) });
    expect(res.status).toBe(415);
  });

  it("a write without a body needs no Content-Type", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    expect((await api.fetch("/api/test/echo", { method: "DELETE" })).status).toBe(204);
    const res = await api.fetch("/api/test/echo", { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: null });
  });

  it("a non-UTF charset answers 415", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const { path, init } = post("{}", { "content-type": "application/json; charset=koi8-r" });
    const res = await api.fetch(path, init);
    expect(res.status).toBe(415);
    expect((await bodyOf(res)).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it.each([['{"a":'], ["{'a':1}"], ['"just a string"'], ["nul"]])(
    "malformed JSON %j answers 400 INVALID_JSON",
    async (body) => {
      const api = await startTestApi({}, { routes: allRoutes });
      const { path, init } = post(body, { "content-type": "application/json" });
      const res = await api.fetch(path, init);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: "request body is not valid JSON", code: "INVALID_JSON" });
    },
  );

  it("a JSON body over 1 MiB answers 413 PAYLOAD_TOO_LARGE", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const big = JSON.stringify({ blob: "x".repeat(1024 * 1024) });
    const { path, init } = post(big, { "content-type": "application/json" });
    const res = await api.fetch(path, init);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limitBytes: 1024 * 1024 } });
  });

  it("a JSON body nested deeper than 64 levels answers 400 BODY_TOO_DEEP; 64 levels are accepted", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}[]${"}".repeat(depth - 1)}`;
    const send = (body: string) => api.fetch("/api/test/echo", post(body, { "content-type": "application/json" }).init);
    const ok = await send(nested(64));
    expect(ok.status).toBe(200);
    expect(JSON.stringify(((await ok.json()) as { received: unknown }).received)).toBe(nested(64));
    for (const body of [nested(65), "[".repeat(10_000) + "]".repeat(10_000), nested(10_000)]) {
      const res = await send(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: "request body nests arrays and objects deeper than 64 levels",
        code: "BODY_TOO_DEEP",
        details: { maxDepth: 64 },
      });
    }
  });

  it("a route may accept further types; those arrive as text", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const yaml = await api.fetch("/api/test/spec", {
      method: "POST",
      headers: { "content-type": "application/yaml" },
      body: "name: x\n",
    });
    expect(await yaml.json()).toEqual({ kind: "string", body: "name: x\n" });
    const json = await api.fetch("/api/test/spec", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name":"x"}',
    });
    expect(await json.json()).toEqual({ kind: "object", body: { name: "x" } });
    const text = await api.fetch("/api/test/spec", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x",
    });
    expect(text.status).toBe(415);
  });
});
