/**
 * The web console (GET /console) in a real browser: Debian's Chromium driven by playwright-core,
 * against a live service fed by the simulator and published past loopback, so every API call the
 * page makes needs the instance token. Expected figures come from the API itself, read by the test
 * over HTTP, never from the page's code. Screenshots of each page go to .tmp/console-screenshots/, or to
 * docs/console/ (the README's) with UPDATE_SCREENSHOTS=1.
 *
 * Skips (with a message) where /usr/bin/chromium is missing: `apt-get install -y chromium`.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiApp } from "../../runtime/api/app.js";
import { routes } from "../../runtime/api/routes.js";
import type { ApiRoute } from "../../runtime/api/types.js";
import { createChainHub } from "../../runtime/api/events/chain-hub.js";
import { startApiServer } from "../../runtime/api/http/server.js";
import { readIngestStatus } from "../../runtime/chain/status.js";
import { parseConfig } from "../../runtime/config/index.js";
import { silentLogger } from "../../runtime/internal/logger.js";
import type { Service } from "../../runtime/service.js";
import { simulateChain } from "../../runtime/simulator/index.js";
import { createTestDb, type TestDb } from "../support/db.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { postObserver, startTestService, waitFor } from "../support/service.js";

const CHROMIUM = "/usr/bin/chromium";
const TOKEN = "console-e2e-token-0123456789";
/** The README's screenshots are rewritten only on request, so a test run leaves the work tree clean. */
const SHOTS =
  process.env.UPDATE_SCREENSHOTS === "1" ? path.join("docs", "console") : path.join(".tmp", "console-screenshots");
/** Conditions are waited for, never slept on: generous for a loaded 2-core machine. */
const WAIT = 30_000;

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`console e2e skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

let testDb: TestDb;
let service: Service;
let receiver: Receiver;
let browser: Browser;
let page: Page;

async function apiGet<T = Record<string, unknown>>(pathAndQuery: string): Promise<T> {
  const res = await fetch(service.apiUrl + pathAndQuery, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status, `${pathAndQuery}: ${res.status}`).toBe(200);
  return (await res.json()) as T;
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

describe.skipIf(!hasChromium)("web console in Chromium", () => {
  beforeAll(async () => {
    // The bundle, the browser and the indexed chain are independent: prepared side by side.
    const bundled = promisify(execFile)(process.execPath, [path.join("console", "build.mjs")]);
    const launched = chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    testDb = await createTestDb();
    service = await startTestService(testDb.db, {
      NETWORK: "devnet",
      INSTANCE_TOKEN: TOKEN,
      API_PUBLISH_ADDR: "203.0.113.5:3800",
      WEBHOOK_ALLOW_PRIVATE: "true",
    });
    const { payloads } = simulateChain({ seed: "console-e2e", blocks: 16, eventsPerBlock: 8, forkRate: 0.2 });
    for (const p of payloads) await postObserver(service.observerUrl, p.path, JSON.stringify(p.body));
    await service.idle();
    await service.subgraphs.idle();
    receiver = await startReceiver();
    browser = await launched;
    await bundled;
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(WAIT);
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await service?.stop();
    await testDb?.drop();
  });

  it("serves the page with a self-only content-security-policy", async () => {
    const res = await fetch(`${service.apiUrl}/console`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect((await fetch(`${service.apiUrl}/console/app.js`)).headers.get("content-type")).toContain("javascript");
    expect((await fetch(`${service.apiUrl}/console/other.js`)).status).toBe(404);
  });

  it("refuses a wrong token and signs in with the right one, sending it only as a header", async () => {
    const urls: string[] = [];
    const bearers = new Set<string>();
    page.on("request", (req) => {
      urls.push(req.url());
      const auth = req.headers().authorization;
      if (auth) bearers.add(auth);
    });
    await page.goto(`${service.apiUrl}/console`);
    await page.getByTestId("login").waitFor();
    await shot("login");
    await page.getByLabel("Instance token").fill("not-the-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByTestId("login-error").textContent(), { timeout: WAIT }).toContain("refused");
    await page.getByLabel("Instance token").fill(TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("figures").waitFor();
    expect(await page.evaluate("sessionStorage.getItem('sluice.instanceToken')")).toBe(TOKEN);
    expect(bearers.has(`Bearer ${TOKEN}`)).toBe(true);
    for (const url of urls) expect(url).not.toContain(TOKEN);
  });

  it("Overview shows the figures of /status", async () => {
    const status = await apiGet<{
      tip: Record<string, number>;
      lag: Record<string, number>;
      counts: Record<string, number>;
    }>("/status");
    const shown = (key: string) => page.locator(`[data-figure="${key}"]`).textContent();
    const expected: Record<string, number> = {
      "tip.block_height": status.tip.block_height,
      "tip.finalized_height": status.tip.finalized_height,
      "lag.journal_backlog": status.lag.journal_backlog,
      "counts.malformed_payloads": status.counts.malformed_payloads,
      "counts.canonical_events": status.counts.canonical_events,
      "counts.blocks": status.counts.blocks,
      "counts.reorgs": status.counts.reorgs,
    };
    for (const [key, value] of Object.entries(expected)) {
      await expect.poll(() => shown(key), { timeout: WAIT }).toBe(value.toLocaleString("en-US"));
    }
    // The node card shows only where the instance answers GET /api/node.
    const node = await fetch(`${service.apiUrl}/api/node`, { headers: { authorization: `Bearer ${TOKEN}` } });
    if (node.status === 200) await page.getByTestId("node-card").waitFor();
    else expect(await page.getByTestId("node-card").isHidden()).toBe(true);
    // Recent reorgs: the API's records (newest first), fork point and depth.
    const { reorgs } = await apiGet<{
      reorgs: { fork_point_height: number; orphaned_from_height: number; orphaned_to_height: number }[];
    }>("/v1/streams/events?asset_identifier=console.none%3A%3Anone&limit=1");
    expect(reorgs.length, "the simulated chain should hold reorgs").toBeGreaterThan(0);
    const newest = [...reorgs].sort((a, b) => b.orphaned_to_height - a.orphaned_to_height)[0];
    const firstRow = page.getByTestId("reorgs").locator("tbody tr").first();
    await expect
      .poll(() => firstRow.locator('[data-col="fork_point_height"]').textContent(), { timeout: WAIT })
      .toBe(String(newest.fork_point_height));
    expect(await firstRow.locator('[data-col="depth"]').textContent()).toBe(
      String(newest.orphaned_to_height - newest.orphaned_from_height + 1),
    );
    await shot("overview");
  });

  it("Subgraphs: the list, and a filtered query whose rows equal the API's answer for the same URL", async () => {
    await page.goto(`${service.apiUrl}/console#/subgraphs`);
    const { subgraphs } = await apiGet<{ subgraphs: { name: string; schemaHash: string }[] }>("/v1/subgraphs");
    const list = page.getByTestId("subgraph-list");
    for (const s of subgraphs) await list.getByRole("link", { name: s.name, exact: true }).waitFor();
    await shot("subgraphs");

    await page.goto(`${service.apiUrl}/console#/subgraphs/asset-holdings`);
    await page.getByTestId("table-select").selectOption("holdings");
    await page.getByTestId("add-filter").click();
    await page.getByTestId("add-filter").click();
    const filters = page.getByTestId("filter");
    await filters.nth(0).getByLabel("Filter column").selectOption("kind");
    await filters.nth(0).getByLabel("Filter operator").selectOption("eq");
    await filters.nth(0).getByLabel("Filter value").fill("stx");
    await filters.nth(1).getByLabel("Filter column").selectOption("amount");
    await filters.nth(1).getByLabel("Filter operator").selectOption("gt");
    await filters.nth(1).getByLabel("Filter value").fill("0");
    await page.getByLabel("Fields").fill("_id,holder,amount,kind");
    await page.getByLabel("Limit").fill("3");
    await page.getByTestId("run").click();

    const expectPageEqualsApi = async () => {
      await page.getByTestId("rows").waitFor();
      const url = (await page.getByTestId("query-url").textContent()) ?? "";
      expect(url).toContain("kind=stx");
      expect(url).toContain("amount.gt=0");
      expect(url).toContain("_fields=_id%2Cholder%2Camount%2Ckind");
      const answer = await apiGet<{ rows: Record<string, unknown>[]; next_cursor: string | null }>(url);
      expect(answer.rows.length).toBeGreaterThan(0);
      const trs = page.getByTestId("rows").locator("tbody tr");
      const cells: string[][] = [];
      for (let i = 0; i < (await trs.count()); i++) cells.push(await trs.nth(i).locator("td").allTextContents());
      const expected = answer.rows.map((row) =>
        Object.values(row).map((v) => (v === null ? "null" : typeof v === "object" ? JSON.stringify(v) : String(v))),
      );
      expect(cells).toEqual(expected);
      return { url, answer };
    };
    const first = await expectPageEqualsApi();
    expect(first.answer.rows.every((r) => r.kind === "stx" && BigInt(String(r.amount)) > 0n)).toBe(true);
    const { count } = await apiGet<{ count: number }>(
      "/v1/subgraphs/asset-holdings/holdings/count?kind=stx&amount.gt=0",
    );
    await expect
      .poll(() => page.getByTestId("count").textContent(), { timeout: WAIT })
      .toBe(`${count.toLocaleString("en-US")} matching rows`);
    expect(await page.getByTestId("curl").textContent()).toContain(`authorization: Bearer $INSTANCE_TOKEN`);
    await shot("subgraph-explorer");

    // Keyset paging: the next page is the API's page after next_cursor.
    expect(first.answer.next_cursor, "more than one page of stx holdings").toBeTruthy();
    await page.getByTestId("next-page").click();
    await expect.poll(() => page.getByTestId("query-url").textContent(), { timeout: WAIT }).toContain("cursor=");
    const second = await expectPageEqualsApi();
    expect(new URL(second.url, "http://x").searchParams.get("cursor")).toBe(first.answer.next_cursor);

    // Aggregates over the same filters: the answer shown is the API's for the URL shown.
    await page.getByLabel("Aggregate", { exact: true }).selectOption("_sum");
    await page.getByLabel("Aggregate column").selectOption("amount");
    await page.getByTestId("aggregate").click();
    const aggregateBox = page.getByTestId("aggregate-result");
    await aggregateBox.locator("pre").waitFor();
    const aggregateUrl = (await aggregateBox.getByTestId("query-url").textContent()) ?? "";
    expect(aggregateUrl).toBe(
      "/v1/subgraphs/asset-holdings/holdings/aggregate?kind=stx&amount.gt=0&_count=true&_sum=amount",
    );
    const aggregate = await apiGet(aggregateUrl);
    expect(aggregate.count).toBe(count);
    expect(JSON.parse((await aggregateBox.locator("pre").textContent()) ?? "")).toEqual(aggregate);
  });

  it("Subgraphs: reindex shows its progress until the subgraph is ready again", async () => {
    await page.goto(`${service.apiUrl}/console#/subgraphs/contract-deployments`);
    await page.getByTestId("explorer").waitFor();
    page.once("dialog", (dialog) => void dialog.accept());
    const answered = page.waitForResponse(
      (r) => r.request().method() === "POST" && r.url().endsWith("/api/subgraphs/contract-deployments/reindex"),
    );
    await page.getByTestId("reindex").click();
    expect((await answered).status()).toBe(202);
    await waitFor(
      async () => {
        const s = await apiGet<{ progress: { status: string }; tip: { blocks_behind: number } }>(
          "/v1/subgraphs/contract-deployments",
        );
        return s.progress.status === "ready" && s.tip.blocks_behind === 0;
      },
      { timeoutMs: WAIT },
    );
    await expect
      .poll(() => page.getByTestId("progress").locator(".badge").textContent(), { timeout: WAIT })
      .toBe("ready");
  });

  it("Subgraphs: a spec with an error shows the validator's message at its line", async () => {
    const lines = [
      "name: console-broken",
      "version: 1.0.0",
      "description: a spec with a column of an unknown type",
      "sources:",
      "  deploy:",
      "    type: contract_deploy",
      "tables:",
      "  things:",
      "    columns:",
      "      label:",
      "        type: strnig",
      "handlers:",
      "  deploy:",
      "    - insert: things",
      "      values:",
      "        label: deployed",
    ];
    const badLine = lines.indexOf("        type: strnig") + 1;
    const res = await fetch(`${service.apiUrl}/api/subgraphs`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/yaml" },
      body: lines.join("\n"),
    });
    const answer = (await res.json()) as { code: string; details: { errors: { line: number; message: string }[] } };
    expect(res.status).toBe(400);
    expect(answer.code).toBe("SPEC_INVALID");
    const atBadLine = answer.details.errors.find((e) => e.line === badLine);
    expect(atBadLine, JSON.stringify(answer.details.errors)).toBeDefined();

    await page.goto(`${service.apiUrl}/console#/subgraphs`);
    await page.getByTestId("spec-input").fill(lines.join("\n"));
    await page.getByTestId("deploy").click();
    const marked = page.locator(`[data-testid="spec-errors"] [data-line="${badLine}"].has-error`);
    await marked.waitFor();
    expect(await marked.textContent()).toContain(atBadLine?.message);
    expect(await marked.textContent()).toContain("strnig");
    await shot("subgraph-deploy-error");
  });

  it("Webhooks: a create the API refuses shows its answer; a created webhook's test delivery reaches the receiver and the log", async () => {
    await page.goto(`${service.apiUrl}/console#/webhooks`);
    const form = page.getByTestId("create-webhook");
    await form.getByLabel("Name").fill("console-hook");
    await form.getByLabel("URL").fill(receiver.url);
    const badTriggers = [{ type: "stx_transfer", colour: "blue" }];
    await form.getByLabel("Triggers").fill(JSON.stringify(badTriggers));
    await form.getByTestId("create").click();
    const refused = await fetch(`${service.apiUrl}/api/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "console-hook", url: receiver.url, triggers: badTriggers }),
    });
    expect(refused.status).toBe(400);
    const refusal = (await refused.json()) as { error: string };
    await expect.poll(() => page.getByTestId("api-error").textContent(), { timeout: WAIT }).toContain(refusal.error);

    await form.getByLabel("Triggers").fill(JSON.stringify([{ type: "stx_transfer" }]));
    await form.getByTestId("create").click();
    await expect.poll(() => page.getByTestId("new-secret").textContent(), { timeout: WAIT }).toMatch(/^whsec_/);
    const { webhooks } = await apiGet<{ webhooks: { id: string; name: string; status: string }[] }>("/api/webhooks");
    const created = webhooks.find((w) => w.name === "console-hook");
    expect(created?.status).toBe("active");
    const listed = page.getByTestId("webhook-list").locator("tbody tr", { hasText: "console-hook" });
    await listed.waitFor();
    expect(await listed.locator('[data-col="circuit"]').textContent()).toBe("closed");
    await shot("webhooks");

    await page.getByTestId("open-created").click();
    await expect.poll(() => page.getByTestId("status").textContent(), { timeout: WAIT }).toBe("active");
    await page.getByTestId("send-test").click();
    const testRow = page.getByTestId("delivery-log").locator("tbody tr", { hasText: "chain.test.apply" }).first();
    await testRow.waitFor();
    expect(await testRow.locator('[data-col="responseStatus"]').textContent()).toBe("200");
    expect(await testRow.locator('[data-col="success"]').textContent()).toBe("true");
    const deliveryId = (await testRow.locator('[data-col="deliveryId"]').textContent()) ?? "";
    const { deliveries } = await apiGet<{ deliveries: { deliveryId: string; responseStatus: number }[] }>(
      `/api/webhooks/${created?.id}/deliveries`,
    );
    expect(deliveries.find((d) => d.deliveryId === deliveryId)?.responseStatus).toBe(200);
    await waitFor(() => receiver.requests.some((r) => r.status === 200 && r.body.includes("chain.test.apply")), {
      timeoutMs: WAIT,
    });

    // A replay of the stored chain: its deliveries reach the receiver and show in the log.
    const tip = (await apiGet<{ tip: { block_height: number } }>("/status")).tip.block_height;
    await page.getByLabel("From block").fill("0");
    await page.getByLabel("To block").fill(String(tip));
    await page.getByTestId("replay").click();
    await expect
      .poll(() => page.getByTestId("action-result").textContent(), { timeout: WAIT })
      .toContain("enqueuedCount");
    const replayed = page
      .getByTestId("delivery-log")
      .locator("tbody tr")
      .filter({ hasNotText: "chain.test.apply" })
      .filter({ hasText: "delivered" })
      .first();
    await replayed.waitFor();
    expect(await replayed.locator('[data-col="responseStatus"]').textContent()).toBe("200");
    const replayedId = (await replayed.locator('[data-col="deliveryId"]').textContent()) ?? "";
    await waitFor(() => receiver.deliveredIds().has(replayedId), { timeoutMs: WAIT });

    // Pause and resume go through the API and show in the record.
    await page.getByTestId("pause").click();
    await expect.poll(() => page.getByTestId("status").textContent(), { timeout: WAIT }).toBe("paused");
    expect((await apiGet<{ status: string }>(`/api/webhooks/${created?.id}`)).status).toBe("paused");
    await page.getByTestId("resume").click();
    await expect.poll(() => page.getByTestId("status").textContent(), { timeout: WAIT }).toBe("active");
    await shot("webhook");
  });

  it("Chain: a filtered Streams list equals the API's page, and a transaction shows its events", async () => {
    await page.goto(`${service.apiUrl}/console#/chain`);
    await page.getByTestId("event-list").waitFor();
    await page.getByLabel("stx_transfer").check();
    await page.getByLabel("limit").fill("5");
    await page.getByTestId("run-events").click();
    await expect
      .poll(() => page.getByTestId("query-url").textContent(), { timeout: WAIT })
      .toContain("types=stx_transfer");
    const url = (await page.getByTestId("query-url").textContent()) ?? "";
    const answer = await apiGet<{
      events: { cursor: string; tx_id: string; block_height: number; event_type: string }[];
    }>(url);
    expect(answer.events.length).toBeGreaterThan(0);
    const cursors = page.getByTestId("event-list").locator('tbody [data-col="cursor"]');
    await expect.poll(() => cursors.allTextContents(), { timeout: WAIT }).toEqual(answer.events.map((e) => e.cursor));
    await shot("chain");

    const first = answer.events[0];
    await page.getByTestId("event-list").locator("tbody tr").first().locator('[data-col="tx_id"] a').click();
    await page.getByTestId("transaction").waitFor();
    expect(await page.getByTestId("tx-height").textContent()).toBe(String(first.block_height));
    const block = await apiGet<{ events: { cursor: string; tx_id: string }[] }>(
      `/v1/index/events?from_height=${first.block_height}&to_height=${first.block_height}&limit=1000`,
    );
    const ofTx = block.events.filter((e) => e.tx_id === first.tx_id).map((e) => e.cursor);
    expect(ofTx).toContain(first.cursor);
    expect(await page.getByTestId("tx-events").locator('tbody [data-col="cursor"]').allTextContents()).toEqual(ofTx);
    await shot("transaction");
  });

  it("on loopback without a token the console opens with no login, and shows the node card when /api/node answers", async () => {
    // A second API over the same database, published on loopback with no instance token, with a
    // stand-in /api/node answering a fixed report.
    const nodeReport = {
      observer: { paths: { "/new_block": { requests: 24, last_request_at: new Date().toISOString() } } },
      last_block: { height: 24, index_block_hash: "0x01", burn_block_height: 124, received_at: null },
      malformed_payloads: 0,
      sluice: { tip_height: 24, index_block_hash: "0x01", burn_block_height: 124 },
      node: { configured: true, reachable: true, rpc_url: "http://127.0.0.1:20443/", elapsed_ms: 3, gap: 2 },
    };
    const nodeRoute: ApiRoute = {
      method: "GET",
      path: "/api/node",
      auth: "write",
      handler: (_req, res) => res.json(nodeReport),
    };
    const config = parseConfig({ API_PORT: "0", OBSERVER_PORT: "0", DATA_DIR: ".tmp/unused" });
    const chainHub = await createChainHub({ db: testDb.db, logger: silentLogger });
    const status = {
      isReady: () => true,
      getStatus: async () => ({ status: "ok", ...(await readIngestStatus(testDb.db)) }),
    };
    const app = createApiApp({
      routes: [...routes.filter((r) => r.path !== "/api/node"), nodeRoute],
      config,
      logger: silentLogger,
      db: testDb.db,
      status,
      chainHub,
      subgraphs: service.subgraphs,
    });
    const server = await startApiServer(app, { host: "127.0.0.1", port: 0, closeGraceMs: 500 });
    const open = await browser.newPage();
    try {
      await open.goto(`${server.url}/console`);
      const tip = (await (await fetch(`${server.url}/status`)).json()) as { tip: { block_height: number } };
      await expect
        .poll(() => open.locator('[data-figure="tip.block_height"]').textContent(), { timeout: WAIT })
        .toBe(tip.tip.block_height.toLocaleString("en-US"));
      expect(await open.getByTestId("login").count()).toBe(0);
      expect(await open.getByTestId("sign-out").count()).toBe(0);
      await open.getByTestId("node-card").waitFor();
      expect(await open.locator('[data-figure="node.reachable"]').textContent()).toBe("true");
      expect(await open.locator('[data-figure="node.gap"]').textContent()).toBe("2");
    } finally {
      await open.close();
      await server.close();
      await chainHub.close();
    }
  });
});
