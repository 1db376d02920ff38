/**
 * GET /health and GET /status (runtime/api/ops.ts) backed by a StatusSource object literal.
 */
import { describe, expect, it } from "vitest";
import type { StatusSource } from "../../../runtime/api/types.js";
import { bearer, startTestApi, TOKEN } from "../../support/api-harness.js";

describe("GET /health", () => {
  it("answers 503 {status:'starting'} until the status source is ready, then 200 {status:'ok'}", async () => {
    let ready = false;
    const status: StatusSource = { isReady: () => ready, getStatus: async () => ({}) };
    const api = await startTestApi({}, { status });
    const before = await api.get("/health");
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({ status: "starting" });
    ready = true;
    const after = await api.get("/health");
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ status: "ok" });
    expect(after.headers.get("cache-control")).toBe("no-store");
  });

  it("is public even when a token is set", async () => {
    const api = await startTestApi({ INSTANCE_TOKEN: TOKEN });
    expect((await api.get("/health")).status).toBe(200);
  });
});

describe("GET /status", () => {
  it("answers the status source's figures", async () => {
    const figures = {
      tip: { block_height: 812, finalized_height: 806 },
      lag: { blocks_behind: 2 },
      counts: { blocks: 812, transactions: 9000, events: 40000 },
      malformed_payloads: 1,
    };
    const status: StatusSource = { isReady: () => true, getStatus: async () => figures };
    const api = await startTestApi({ INSTANCE_TOKEN: TOKEN }, { status });
    const res = await api.get("/status", { headers: bearer(TOKEN) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(figures);
  });

  it("a failing status source answers 500 INTERNAL", async () => {
    const status: StatusSource = { isReady: () => true, getStatus: async () => Promise.reject(new Error("db down")) };
    const api = await startTestApi({}, { status });
    const res = await api.get("/status");
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: "internal error", code: "INTERNAL" });
  });
});
