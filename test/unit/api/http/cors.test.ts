/**
 * SPEC.md "Authentication" rule 5: wildcard CORS on loopback reads, nowhere else.
 */
import { describe, expect, it } from "vitest";
import { bearer, PUBLISHED, startTestApi, TOKEN } from "../../../support/api-harness.js";
import { allRoutes } from "../../../support/test-routes.js";

describe("CORS", () => {
  it("loopback reads answer with Access-Control-Allow-Origin: *", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const res = await api.get("/v1/test/rows", { headers: { origin: "https://dapp.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("loopback read errors carry CORS too, so browsers can read the error body", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const res = await api.get("/v1/test/params?limt=1");
    expect(res.status).toBe(400);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("a preflight on a loopback read is answered 204 with the allowed methods and headers", async () => {
    const api = await startTestApi({ INSTANCE_TOKEN: TOKEN }, { routes: allRoutes });
    const res = await api.fetch("/v1/test/rows", {
      method: "OPTIONS",
      headers: {
        origin: "https://dapp.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization, last-event-id",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("GET");
    const allowed = res.headers.get("access-control-allow-headers")?.toLowerCase() ?? "";
    for (const h of ["authorization", "content-type", "last-event-id"]) expect(allowed).toContain(h);
  });

  it("a Private Network Access preflight is granted on loopback reads", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const res = await api.fetch("/v1/test/rows", {
      method: "OPTIONS",
      headers: {
        origin: "https://dapp.example",
        "access-control-request-method": "GET",
        "access-control-request-private-network": "true",
      },
    });
    expect(res.headers.get("access-control-allow-private-network")).toBe("true");
  });

  it("management routes and /status get no CORS headers", async () => {
    const api = await startTestApi({}, { routes: allRoutes });
    const write = await api.fetch("/api/test/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(write.headers.get("access-control-allow-origin")).toBeNull();
    expect((await api.get("/status")).headers.get("access-control-allow-origin")).toBeNull();
  });

  it("reads published past loopback get no CORS headers", async () => {
    const api = await startTestApi(PUBLISHED, { routes: allRoutes });
    const res = await api.get("/v1/test/rows", { headers: { ...bearer(TOKEN), origin: "https://dapp.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});
