// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
/**
 * One event type, three names (README "Event type names"): ours (`print`), the trigger and
 * spec-source name (`print_event`) and the stacks-node's (`contract_event`) are accepted wherever
 * a type is named — Streams `types`/`not_types` (list and SSE), webhook trigger `type`, spec
 * source `type` — over real HTTP. The names come from test/support/chain-model.ts's literal table
 * and SPEC.md's trigger table, not from the runtime's alias table.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Service } from "../../../runtime/service.js";
import { simulateChain } from "../../../runtime/simulator/index.js";
import { NODE_TYPE_TO_OURS } from "../../support/chain-model.js";
import { type TestDb, createTestDb } from "../../support/db.js";
import { postObserver, startTestService, waitFor } from "../../support/service.js";
import { openSse } from "../../support/sse.js";
import { webhookClient } from "../../support/webhooks.js";

// SPEC.md "Trigger object": the trigger names of the event types (only print differs from ours).
const TRIGGER_NAME = (ours: string) => (ours === "print" ? "print_event" : ours);
/** Every event type as [ours, trigger name, node name], from the literal node → ours table. */
const NAMES = Object.entries(NODE_TYPE_TO_OURS).map(([node, ours]) => [ours, TRIGGER_NAME(ours), node] as const);

let testDb: TestDb;
let service: Service;
let base: string;

beforeAll(async () => {
  testDb = await createTestDb();
  service = await startTestService(testDb.db, { WEBHOOK_ALLOW_PRIVATE: "true" });
  base = service.apiUrl;
  const { payloads } = simulateChain({ seed: "event-type-names", blocks: 20, eventsPerBlock: 15 });
  for (const p of payloads) await postObserver(service.observerUrl, p.path, JSON.stringify(p.body));
  await service.idle();
});

afterAll(async () => {
  await service?.stop();
  await testDb?.drop();
});

async function page(query: string): Promise<{ status: number; body: { events: { event_type: string }[] } }> {
  const res = await fetch(`${base}/v1/streams/events?limit=1000&${query}`);
  return { status: res.status, body: (await res.json()) as { events: { event_type: string }[] } };
}

describe("Streams types and not_types", () => {
  it.each(NAMES)("%s, %s and %s select the same events", async (ours, trigger, node) => {
    const byOurs = await page(`types=${ours}`);
    expect(byOurs.status).toBe(200);
    expect(byOurs.body.events.every((e) => e.event_type === ours)).toBe(true);
    for (const alias of [trigger, node]) {
      const other = await page(`types=${alias}`);
      expect(other.status, alias).toBe(200);
      expect(other.body, alias).toEqual(byOurs.body);
    }
    const notOurs = await page(`not_types=${ours}`);
    expect((await page(`not_types=${node}`)).body).toEqual(notOurs.body);
  });

  it("the simulated chain has prints and STX transfers, so the comparisons above compare events", async () => {
    expect((await page("types=print")).body.events.length).toBeGreaterThan(0);
    expect((await page("types=stx_transfer")).body.events.length).toBeGreaterThan(0);
  });

  it("the SSE stream takes the node's and the trigger's names too", async () => {
    const expected = (await page("types=print")).body.events.length;
    const sse = await openSse(`${base}/v1/streams/events/stream?from_height=0&types=contract_event,print_event`);
    expect(sse.status).toBe(200);
    const frames = () => sse.items.filter((i) => i.kind === "event" && i.event !== "reorg");
    await waitFor(async () => frames().length >= expected);
    sse.close();
    for (const f of frames()) expect(JSON.parse((f as { data: string }).data).event_type).toBe("print");
  });
});

describe("webhook triggers", () => {
  it.each(NAMES)("a trigger of type %s, %s or %s is stored under its trigger name", async (ours, trigger, node) => {
    const client = webhookClient(base);
    for (const [i, name] of [ours, trigger, node].entries()) {
      const created = await client.create({
        name: `names-${node}-${i}`,
        url: "http://127.0.0.1:9/hooks",
        triggers: [{ type: name }],
      });
      expect(created.status, name).toBe(201);
      expect((created.body.triggers as { type: string }[])[0].type).toBe(trigger);
    }
  });
});

describe("spec sources", () => {
  it("a source typed with the node's name deploys as print_event", async () => {
    const spec = [
      "name: prints-by-node-name",
      "version: 1.0.0",
      "description: Prints, with the source typed by the node's event name.",
      "sources:",
      "  prints:",
      "    type: contract_event",
      "tables:",
      "  prints:",
      "    columns:",
      "      topic: { type: text, attributes: [nullable] }",
      "handlers:",
      "  prints:",
      "    - insert: prints",
      "      values:",
      "        topic: ${event.payload.topic}",
    ].join("\n");
    const res = await fetch(`${base}/api/subgraphs`, {
      method: "POST",
      headers: { "content-type": "application/yaml" },
      body: spec,
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    const described = (await (await fetch(`${base}/v1/subgraphs/prints-by-node-name/descriptor.json`)).json()) as {
      sources: Record<string, { type: string }>;
    };
    expect(described.sources.prints.type).toBe("print_event");
  });
});
