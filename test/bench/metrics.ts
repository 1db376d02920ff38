/**
 * Metrics benchmark (prints figures; not a test):
 *  1. per-block cost of the instrumentation: the calls the service makes for one block (the
 *     ingest outcome, one apply-time observation per built-in subgraph, one webhook attempt)
 *     timed in a loop on a registry of their own, against the mean block apply time the service
 *     itself measured while ingesting a simulated chain;
 *  2. GET /metrics against GET /status on that service: sequential requests, p50 and p95.
 * The load average is printed with the figures.
 *
 *   BENCH_DB=postgres|pglite BENCH_BLOCKS=200 BENCH_EVENTS=20 BENCH_REQUESTS=200 npx tsx test/bench/metrics.ts
 */
import os from "node:os";
import { createServiceMetrics } from "../../runtime/metrics/index.js";
import { simulateChain } from "../../runtime/simulator/index.js";
import { createTestDb } from "../support/db.js";
import { parseScrape } from "../support/scrape.js";
import { postObserver, startTestService } from "../support/service.js";

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 200);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const CALLS = 200_000;

const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  `load ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`;
const ms = (n: number) => `${n.toFixed(3)} ms`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timeRequests(url: string): Promise<{ p50: number; p95: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const start = process.hrtime.bigint();
    const res = await fetch(url);
    const body = await res.arrayBuffer();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    bytes = body.byteLength;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), bytes };
}

async function main(): Promise<void> {
  const t = await createTestDb();
  const service = await startTestService(t.db, { LOG_LEVEL: "silent" });
  try {
    const { payloads } = simulateChain({ seed: "bench-metrics", blocks: BLOCKS, eventsPerBlock: EVENTS });
    const started = Date.now();
    for (const p of payloads) await postObserver(service.observerUrl, p.path, JSON.stringify(p.body));
    await service.idle();
    log(`ingested ${BLOCKS} blocks (${EVENTS} events each) on ${t.db.kind} in ${Date.now() - started} ms; ${load()}`);

    const scraped = parseScrape(await (await fetch(`${service.apiUrl}/metrics`)).text());
    const applySum = scraped.sum("sluice_ingest_block_apply_seconds_sum");
    const applyCount = scraped.sum("sluice_ingest_block_apply_seconds_count");
    const meanApplyMs = (applySum / applyCount) * 1000;
    const subgraphs = service.subgraphs.list().map((s) => s.name);

    // 1. The instrumentation of one block, on a registry of its own (its gauges never collect here).
    const metrics = createServiceMetrics({ db: t.db, backlog: () => 0, stacksNodeRpcUrl: null });
    const outcome = { kind: "block", result: "extended", height: 1, indexBlockHash: "0x00", events: EVENTS } as const;
    const attempt = {
      outboxId: "1",
      leaseToken: "l",
      webhookId: "wh_1",
      attempt: 1,
      startedAt: new Date(),
      durationMs: 3,
      success: true,
      responseStatus: 200,
      responseExcerpt: null,
      error: null,
      next: { status: "delivered" },
    } as const;
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) {
      metrics.ingest.observe(outcome, 0.004);
      for (const name of subgraphs) metrics.subgraphs.applied(name, 0.0005);
      metrics.dispatcher.onAttempt(attempt);
    }
    const perBlockMs = Number(process.hrtime.bigint() - start) / 1e6 / CALLS;
    log(
      `instrumentation per block (${subgraphs.length} subgraphs, 1 attempt): ${(perBlockMs * 1000).toFixed(2)} µs; ` +
        `mean block apply ${ms(meanApplyMs)} → ${((perBlockMs / meanApplyMs) * 100).toFixed(3)}% of a block; ${load()}`,
    );

    // 2. Scrape against /status.
    for (const path of ["/status", "/metrics"]) {
      const r = await timeRequests(`${service.apiUrl}${path}`);
      log(`GET ${path}: p50 ${ms(r.p50)}, p95 ${ms(r.p95)}, ${r.bytes} bytes (${REQUESTS} requests); ${load()}`);
    }
  } finally {
    await service.stop();
    await t.drop();
  }
}

await main();
