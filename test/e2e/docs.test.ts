/**
 * GET /docs in a real browser (README "OpenAPI and docs"): Debian's Chromium driven by
 * playwright-core renders every operation of the served /openapi.json with Swagger UI loaded from
 * the instance itself, and the page's content-security-policy (the console's) reports no
 * violation. The expected operations are counted from the document, read by the test over HTTP.
 * A screenshot goes to .tmp/docs-screenshots/. Skips where /usr/bin/chromium is missing.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../runtime/service.js";
import { createTestDb, type TestDb } from "../support/db.js";
import { startTestService } from "../support/service.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`docs e2e skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

let testDb: TestDb;
let service: Service;
let browser: Browser;

describe.skipIf(!hasChromium)("the API reference page in Chromium", () => {
  beforeAll(async () => {
    const launched = chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    testDb = await createTestDb();
    service = await startTestService(testDb.db, {});
    browser = await launched;
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await testDb?.drop();
  });

  it("renders every documented operation under the console's CSP, loading nothing from elsewhere", async () => {
    const doc = (await (await fetch(`${service.apiUrl}/openapi.json`)).json()) as { paths: Record<string, object> };
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const violations: string[] = [];
    const origins = new Set<string>();
    page.on("console", (m) => {
      if (/content security policy/i.test(m.text())) violations.push(m.text());
    });
    page.on("request", (r) => origins.add(new URL(r.url()).origin));
    const res = await page.goto(`${service.apiUrl}/docs`);
    expect(res?.status()).toBe(200);
    await page.waitForFunction(`document.querySelectorAll(".opblock").length === ${operations}`, undefined, {
      timeout: 30_000,
    });
    const shown = await page
      .locator(".opblock-summary-path, .opblock-summary-path__deprecated")
      .evaluateAll((els) => els.map((el) => el.getAttribute("data-path")));
    const missing = Object.keys(doc.paths).filter((p) => !shown.includes(p));
    expect(missing, JSON.stringify(shown)).toEqual([]);
    expect(violations).toEqual([]);
    expect([...origins]).toEqual([service.apiUrl]);
    await page.screenshot({ path: path.join(".tmp", "docs-screenshots", "docs.png") });
  });
});
