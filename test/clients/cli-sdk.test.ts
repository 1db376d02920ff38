/**
 * The SDK (runtime/sdk) and the API commands of the CLI (`sluice status|subgraphs|webhooks|
 * events`) against one real service on PGlite, seeded with a small simulated chain whose ground
 * truth gives the expected counts (README "SDK", "CLI").
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerEventsCommands } from "../../runtime/cli/api/events-command.js";
import { registerStatusCommand } from "../../runtime/cli/api/status-command.js";
import { registerSubgraphsApiCommands } from "../../runtime/cli/api/subgraphs-command.js";
import { registerWebhooksCommands } from "../../runtime/cli/api/webhooks-command.js";
import type { Service } from "../../runtime/service.js";
import { simulateChain } from "../../runtime/simulator/index.js";
import {
  backoffDelay,
  createSluiceClient,
  fileCheckpoint,
  SluiceApiError,
  type SluiceClient,
  type SseFrame,
} from "../../runtime/sdk/index.js";
import { CLI_ENTRY, NODE_ARGS, runCli } from "../support/cli.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { createTestDb, type TestDb } from "../support/db.js";
import { canonicalBlocks, expectedContracts } from "../support/subgraph-expect.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { postObserver, startTestService, waitFor } from "../support/service.js";

const TOKEN = "tok_cli-sdk-test";
let t: TestDb;
let svc: Service;
let receiver: Receiver;
let sdk: SluiceClient;
let scratch: string;
let truth: ReturnType<typeof simulateChain>["truth"];
/** Successful deploys of the simulated chain's canonical blocks, computed from its payloads. */
let deploys: string[][];

beforeAll(async () => {
  t = await createTestDb();
  svc = await startTestService(t.db, { WEBHOOK_ALLOW_PRIVATE: "true", INSTANCE_TOKEN: TOKEN });
  receiver = await startReceiver();
  const sim = simulateChain({ seed: "clients-sdk", blocks: 10, eventsPerBlock: 5 });
  truth = sim.truth;
  deploys = expectedContracts(
    canonicalBlocks(sim.payloads.map((p) => ({ path: p.path, body: JSON.stringify(p.body) }))),
  );
  for (const p of sim.payloads) await postObserver(svc.observerUrl, p.path, JSON.stringify(p.body));
  await svc.idle();
  await svc.subgraphs.idle();
  sdk = createSluiceClient({ url: svc.apiUrl, token: TOKEN });
  scratch = mkdtempSync(path.join(tmpdir(), "sluice-clients-"));
});

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
  await t?.drop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The CLI against this service; SLUICE_URL/SLUICE_TOKEN unless the args say otherwise. */
const cli = (args: string[], env: Record<string, string> = { SLUICE_TOKEN: TOKEN }) =>
  runCli(args, { SLUICE_URL: svc.apiUrl, ...env });

const firstFrames = async (frames: AsyncGenerator<SseFrame>, n: number) => {
  const got: SseFrame[] = [];
  for await (const f of frames) {
    if (f.event !== "message") continue;
    got.push(f);
    if (got.length === n) break;
  }
  await frames.return(undefined);
  return got;
};

describe("SDK", () => {
  it("index.eventsAll follows next_cursor through every event of the chain", async () => {
    const events = [];
    for await (const e of sdk.index.eventsAll({ limit: 7 })) events.push(e);
    expect(events.length).toBe(truth.eventCount);
    const keys = events.map((e) => `${e.block_height}:${e.event_index}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("streams.eventsAll applies the filter; counts match the chain's ground truth", async () => {
    const transfers = [];
    for await (const e of sdk.streams.eventsAll({ types: "stx_transfer", limit: 3 })) transfers.push(e);
    expect(transfers.length).toBe(truth.eventCounts.stx_transfer);
    expect(transfers.length).toBeGreaterThan(3);
  });

  it("errors carry the service's status and code", async () => {
    const err = await sdk.subgraphs.get("no-such-subgraph").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SluiceApiError);
    expect(err).toMatchObject({ status: 404, code: "SUBGRAPH_NOT_FOUND" });
    const anon = createSluiceClient({ url: svc.apiUrl });
    await expect(anon.status()).rejects.toMatchObject({ status: 401 });
  });

  it("the SSE consumer gives up on a 4xx at once; its reconnect delay doubles from 0.5 s to 30 s", async () => {
    const frames = sdk.streams.stream({ types: "no_such_type" });
    await expect(frames.next()).rejects.toMatchObject({ status: 400 });
    const delays = [1, 2, 3, 7, 20].map((attempt) => backoffDelay(attempt, undefined, undefined, () => 0));
    expect(delays).toEqual([500, 1000, 2000, 30_000, 30_000]);
    expect(backoffDelay(2, undefined, undefined, () => 1)).toBe(800);
  });

  it("the SSE consumer resumes after its last frame id, and a file checkpoint carries it across restarts", async () => {
    const all = [];
    for await (const e of sdk.streams.eventsAll({ limit: 1000 })) all.push(`${e.block_height}:${e.event_index}`);
    const first = await firstFrames(sdk.streams.stream({ from_height: 0 }), 5);
    expect(first.map((f) => f.id)).toEqual(all.slice(0, 5));
    const checkpoint = fileCheckpoint(path.join(scratch, "sdk.cursor"));
    expect(await checkpoint.load()).toBeUndefined();
    await checkpoint.save(String(first[4].id));
    const restarted = fileCheckpoint(path.join(scratch, "sdk.cursor"));
    const resumed = await firstFrames(sdk.streams.stream({}, { lastEventId: await restarted.load() }), 5);
    expect(resumed.map((f) => f.id)).toEqual(all.slice(5, 10));
  });
});

describe("CLI", () => {
  it("every API command has --help; the top-level help lists them", async () => {
    const program = new Command("sluice").exitOverride();
    registerStatusCommand(program);
    registerEventsCommands(program);
    registerSubgraphsApiCommands(program);
    registerWebhooksCommands(program);
    const leaves = (c: Command): Command[] => (c.commands.length ? c.commands.flatMap(leaves) : [c]);
    const names = leaves(program).map(
      (c) => `${c.parent?.name() === "sluice" ? "" : `${c.parent?.name()} `}${c.name()}`,
    );
    expect(names.sort()).toEqual(
      [
        "status",
        "events tail",
        ...["list", "get", "deploy", "reindex", "remove", "query"].map((c) => `subgraphs ${c}`),
        ...[
          "create",
          "list",
          "get",
          "update",
          "delete",
          "pause",
          "resume",
          "test",
          "deliveries",
          "dead-letters",
          "requeue",
          "replay",
          "rotate-secret",
        ].map((c) => `webhooks ${c}`),
      ].sort(),
    );
    for (const leaf of leaves(program)) {
      const help = leaf.helpInformation();
      expect(help, leaf.name()).toMatch(/--url <url>[\s\S]*--token <token>[\s\S]*--json/);
      expect(leaf.description().length, leaf.name()).toBeGreaterThan(5);
    }
    const top = await cli(["--help"]);
    expect(top.code).toBe(0);
    for (const group of ["status", "subgraphs", "webhooks", "events", "mcp"])
      expect(top.stdout).toContain(`  ${group} `);
    const leaf = await cli(["webhooks", "replay", "--help"]);
    expect(leaf.stdout).toContain("Usage: sluice webhooks replay [options] <webhook>");
  });

  it("status: JSON with --json; exit 4 without the token, 3 when the service is unreachable", async () => {
    const ok = await cli(["status", "--json"]);
    expect(ok.code).toBe(0);
    const status = await sdk.status();
    expect(JSON.parse(ok.stdout)).toMatchObject({ status: status.status, tip: status.tip });
    expect(JSON.parse(ok.stdout).tip.block_height).toBe(truth.tip.height);
    expect((await cli(["status"], {})).code).toBe(4);
    expect((await cli(["status", "--url", "http://127.0.0.1:9", "--token", TOKEN], {})).code).toBe(3);
  });

  it("webhooks: create, list, pause, resume, test, deliveries, rotate-secret, replay, dead-letters, requeue, delete", async () => {
    const created = await cli([
      "webhooks",
      "create",
      "cli-hook",
      "--target",
      receiver.url,
      "--trigger",
      "stx_transfer",
      "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const hook = JSON.parse(created.stdout);
    expect(hook).toMatchObject({ name: "cli-hook", kind: "chain", triggers: [{ type: "stx_transfer" }] });
    expect(hook.secret).toMatch(/^whsec_/);
    expect(
      (await cli(["webhooks", "create", "cli-hook", "--target", receiver.url, "--trigger", "stx_mint"])).code,
    ).toBe(6);

    const table = await cli(["webhooks", "list"]);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+KIND\s+STATUS/);
    expect(table.stdout).toContain(hook.id);

    expect(JSON.parse((await cli(["webhooks", "pause", "cli-hook", "--json"])).stdout).status).toBe("paused");
    expect(JSON.parse((await cli(["webhooks", "resume", hook.id, "--json"])).stdout).status).toBe("active");

    const before = receiver.requests.length;
    const tested = await cli(["webhooks", "test", "cli-hook", "--message", "hello", "--json"]);
    expect(tested.code, tested.stderr).toBe(0);
    const outcome = JSON.parse(tested.stdout);
    expect(outcome).toMatchObject({ type: "chain.test.apply", success: true });
    const delivered = receiver.requests.slice(before).map((r) => JSON.parse(r.body));
    expect(delivered).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ test: true, message: "hello" }) }),
    ]);
    const attempts = JSON.parse((await cli(["webhooks", "deliveries", "cli-hook", "--json"])).stdout);
    expect(attempts.deliveries.map((d: { deliveryId: string }) => d.deliveryId)).toContain(outcome.deliveryId);

    const rotated = JSON.parse(
      (await cli(["webhooks", "rotate-secret", "cli-hook", "--grace-seconds", "0", "--json"])).stdout,
    );
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);

    const replay = await cli([
      "webhooks",
      "replay",
      "cli-hook",
      "--from",
      "1",
      "--to",
      String(truth.tip.height),
      "--json",
    ]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).enqueuedCount).toBe(truth.eventCounts.stx_transfer);
    // Every replayed delivery arrives before the receiver starts failing below.
    const replayed = () =>
      receiver.deliveredBodies().filter((b) => (b as { type?: string }).type === "chain.stx_transfer.apply").length;
    await waitFor(() => replayed() >= truth.eventCounts.stx_transfer);
    expect(replayed()).toBe(truth.eventCounts.stx_transfer);

    receiver.set({ status: 500 });
    const failed = await cli(["webhooks", "test", "cli-hook"]);
    expect(failed.code).toBe(1);
    receiver.set({ status: 200 });
    const dead = JSON.parse((await cli(["webhooks", "dead-letters", "cli-hook", "--json"])).stdout);
    expect(dead.deadLetters.length).toBe(1);
    const requeued = await cli(["webhooks", "requeue", "cli-hook", dead.deadLetters[0].deliveryId, "--json"]);
    expect(JSON.parse(requeued.stdout)).toEqual({ deliveryId: dead.deadLetters[0].deliveryId, status: "pending" });

    const updated = JSON.parse(
      (await cli(["webhooks", "update", "cli-hook", "--timeout-ms", "5000", "--json"])).stdout,
    );
    expect(updated.timeoutMs).toBe(5000);
    expect((await cli(["webhooks", "update", "cli-hook", "--timeout-ms", "5"])).code).toBe(7);
    expect((await cli(["webhooks", "delete", "cli-hook"])).code).toBe(0);
    expect((await cli(["webhooks", "get", "cli-hook"])).code).toBe(5);
  });

  it("subgraphs: list, query (NDJSON, every page), deploy with its backfill, reindex with progress, remove", async () => {
    const list = JSON.parse((await cli(["subgraphs", "list", "--json"])).stdout);
    expect(list.map((s: { name: string }) => s.name)).toContain("contract-deployments");

    const spec = path.join(scratch, "moves.yaml");
    writeFileSync(
      spec,
      [
        "name: cli-moves",
        "version: 1.0.0",
        "description: STX transfers.",
        "sources:",
        "  xfer:",
        "    type: stx_transfer",
        "tables:",
        "  moves:",
        "    columns:",
        "      sender: { type: principal }",
        "      amount: { type: uint }",
        "handlers:",
        "  xfer:",
        "    - insert: moves",
        "      values:",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the spec language's own expressions
        "        sender: ${event.sender}",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the spec language's own expressions
        "        amount: ${event.amount}",
        "",
      ].join("\n"),
    );
    const deployed = await cli(["subgraphs", "deploy", spec, "--json"]);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(JSON.parse(deployed.stdout)).toMatchObject({ name: "cli-moves", status: "ready" });

    const rows = await cli(["subgraphs", "query", "cli-moves", "moves", "--all", "--limit", "2", "--json"]);
    expect(rows.code, rows.stderr).toBe(0);
    const lines = rows.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.length).toBe(truth.eventCounts.stx_transfer);
    const big = lines.filter((r) => BigInt(r.amount) > 1000n).length;
    const filtered = await cli([
      "subgraphs",
      "query",
      "cli-moves",
      "moves",
      "--where",
      "amount.gt=1000",
      "--all",
      "--json",
    ]);
    expect(filtered.stdout.trim().split("\n").filter(Boolean).length).toBe(big);

    const reindex = await cli(["subgraphs", "reindex", "cli-moves", "--json"]);
    expect(reindex.code, reindex.stderr).toBe(0);
    expect(JSON.parse(reindex.stdout)).toMatchObject({ name: "cli-moves", status: "ready" });
    expect(reindex.stderr).toMatch(/cli-moves: ready \(\d+\/\d+ blocks\)/);
    expect((await sdk.subgraphs.count("cli-moves", "moves")).count).toBe(truth.eventCounts.stx_transfer);

    expect((await cli(["subgraphs", "remove", "cli-moves"])).code).toBe(0);
    expect((await cli(["subgraphs", "get", "cli-moves"])).code).toBe(5);
  });

  it("events tail prints NDJSON frames and resumes from its checkpoint file", async () => {
    const all = [];
    for await (const e of sdk.streams.eventsAll({ limit: 1000 })) all.push(`${e.block_height}:${e.event_index}`);
    const checkpoint = path.join(scratch, "tail.cursor");
    const first = await cli(["events", "tail", "--from-height", "0", "--limit", "3", "--checkpoint", checkpoint]);
    expect(first.code, first.stderr).toBe(0);
    const frames = first.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(frames.map((f) => f.id)).toEqual(all.slice(0, 3));
    expect(frames[0]).toMatchObject({
      event: "message",
      data: expect.objectContaining({ block_height: expect.any(Number) }),
    });
    expect(readFileSync(checkpoint, "utf8").trim()).toBe(all[2]);
    const second = await cli(["events", "tail", "--limit", "2", "--checkpoint", checkpoint]);
    expect(
      second.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    ).toEqual(all.slice(3, 5));
  });
});

describe("sluice mcp", () => {
  const connect = async (env: Record<string, string>) => {
    const client = new Client({ name: "sluice-test", version: "1" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...NODE_ARGS, CLI_ENTRY, "mcp"],
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", SLUICE_URL: svc.apiUrl, ...env },
      stderr: "pipe",
    });
    await client.connect(transport);
    return client;
  };
  // biome-ignore lint/suspicious/noExplicitAny: tool results are JSON text
  const parsed = (result: any) => JSON.parse(result.content[0].text);

  it("lists the API as tools with schemas from the OpenAPI document and performs calls; writes need the token", async () => {
    const withToken = await connect({ SLUICE_TOKEN: TOKEN });
    try {
      const { tools } = await withToken.listTools();
      const names = tools.map((t) => t.name);
      for (const name of ["webhooks_create", "webhooks_list", "webhooks_replay", "subgraphs_list", "subgraphs_deploy"])
        expect(names).toContain(name);
      for (const name of ["index_list_events", "streams_list_events", "subgraphs_list_table_rows"])
        expect(names).toContain(name);
      expect(names.some((n) => n.includes("stream_") || n.includes("subscriptions"))).toBe(false);
      const doc = (await sdk.openapi()) as { components: { schemas: { WebhookCreate: { properties: object } } } };
      const create = tools.find((t) => t.name === "webhooks_create");
      if (!create) throw new Error("no webhooks_create tool");
      expect(
        Object.keys((create.inputSchema.properties as { body: { properties: object } }).body.properties).sort(),
      ).toEqual(Object.keys(doc.components.schemas.WebhookCreate.properties).sort());

      const created = await withToken.callTool({
        name: "webhooks_create",
        arguments: { body: { name: "mcp-hook", url: receiver.url, triggers: [{ type: "stx_transfer" }] } },
      });
      expect(created.isError).toBe(false);
      expect(parsed(created)).toMatchObject({ name: "mcp-hook", secret: expect.stringMatching(/^whsec_/) });
      const listed = parsed(await withToken.callTool({ name: "webhooks_list", arguments: {} }));
      expect(listed.webhooks.map((w: { name: string }) => w.name)).toContain("mcp-hook");
      // The subgraph query tool: the contracts table as deployed on the canonical chain.
      const contracts = parsed(
        await withToken.callTool({
          name: "subgraphs_list_table_rows",
          arguments: { name: "contract-deployments", table: "contracts", _limit: 1000 },
        }),
      );
      expect(contracts.rows.map((r: { contract_id: string }) => r.contract_id).sort()).toEqual(
        deploys.map((d) => d[0]),
      );
      expect(deploys.length).toBeGreaterThan(0);
      const events = parsed(await withToken.callTool({ name: "index_list_events", arguments: { limit: 4 } }));
      expect(events.events.length).toBe(4);
      const refused = await withToken.callTool({ name: "webhooks_get", arguments: { webhook: "no-such-hook" } });
      expect(refused.isError).toBe(true);
      expect(parsed(refused)).toMatchObject({ status: 404, code: "WEBHOOK_NOT_FOUND" });
    } finally {
      await withToken.close();
    }

    const anonymous = await connect({});
    try {
      const write = await anonymous.callTool({ name: "webhooks_list", arguments: {} });
      expect(write.isError).toBe(true);
      expect(parsed(write).error).toContain("needs the instance token");
      const read = await anonymous.callTool({
        name: "streams_list_events",
        arguments: { types: "stx_transfer", limit: 1000 },
      });
      expect(parsed(read).events.length).toBe(truth.eventCounts.stx_transfer);
    } finally {
      await anonymous.close();
    }
  });
});

describe("SSE reconnect", () => {
  it("while the service restarts, the consumer retries with backoff, then resumes after its last frame id", async () => {
    const all = [];
    for await (const e of sdk.streams.eventsAll({ limit: 1000 })) all.push(`${e.block_height}:${e.event_index}`);
    const reconnects: number[] = [];
    const frames = sdk.streams.stream(
      { from_height: 0 },
      { minDelayMs: 100, maxDelayMs: 1000, onReconnect: ({ delayMs }) => reconnects.push(delayMs) },
    );
    const ids: (string | undefined)[] = [];
    for await (const f of frames) {
      if (f.event !== "message") continue;
      ids.push(f.id);
      if (ids.length === 3) break;
    }
    // A consumer restarted from the third id (its checkpoint) while the service itself restarts.
    const resumed = sdk.streams.stream(
      {},
      {
        lastEventId: ids[2],
        minDelayMs: 100,
        maxDelayMs: 1000,
        onReconnect: ({ delayMs }) => reconnects.push(delayMs),
      },
    );
    const port = new URL(svc.apiUrl).port;
    await svc.stop();
    const next = resumed.next(); // connects while the service is down: refused, retried with backoff
    svc = await startTestService(t.db, { WEBHOOK_ALLOW_PRIVATE: "true", INSTANCE_TOKEN: TOKEN, API_PORT: port });
    const got: (string | undefined)[] = [];
    let step = await next;
    while (!step.done) {
      if (step.value.event === "message") got.push(step.value.id);
      if (got.length === 3) break;
      step = await resumed.next();
    }
    await resumed.return(undefined);
    expect([...ids, ...got]).toEqual(all.slice(0, 6));
    expect(reconnects.length).toBeGreaterThan(0);
  });
});
