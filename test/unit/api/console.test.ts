/**
 * GET /console and its bundle (runtime/api/console.ts) over real HTTP, without a browser: public
 * on any publish address (the page holds no data), a self-only content-security-policy, only the
 * bundle's two files, and a clear 503 where the bundle was never built.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { consoleAssetDir } from "../../../runtime/api/console.js";
import { PUBLISHED, startTestApi } from "../../support/api-harness.js";

describe("GET /console", () => {
  it("answers the page without a token past loopback, with a self-only CSP and no inline script", async () => {
    const api = await startTestApi(PUBLISHED);
    const res = await api.get("/console");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = res.headers.get("content-security-policy") ?? "";
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'"]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toMatch(/unsafe|\*|https?:/);
    const html = await res.text();
    expect(html).toContain('<script type="module" src="/console/app.js"></script>');
    expect(html).not.toMatch(/<script>|style=/);
    // the data it shows stays behind the token
    expect((await api.get("/status")).status).toBe(401);
  });

  it("serves no file but the bundle's", async () => {
    const api = await startTestApi({});
    for (const name of ["index.html", "..%2Fpackage.json", "app.js.map"]) {
      const res = await api.get(`/console/${name}`);
      expect(res.status, name).toBe(404);
    }
  });

  it("finds dist/console from a module anywhere under the package root (source or dist/)", () => {
    const root = path.resolve(".");
    expect(consoleAssetDir(path.join(root, "runtime", "api"))).toBe(path.join(root, "dist", "console"));
    expect(consoleAssetDir(path.join(root, "dist", "runtime", "api"))).toBe(path.join(root, "dist", "console"));
    const outside = mkdtempSync(path.join(tmpdir(), "console-"));
    try {
      expect(consoleAssetDir(outside)).toBe(path.join(outside, "console"));
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
