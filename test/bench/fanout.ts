/**
 * Commit → SSE frame latency on the ingest process itself and on a separate `ROLE=api` process
 * (README "Running several processes"), on one PostgreSQL. A simulated chain is posted to the
 * ingest process one block every BENCH_INTERVAL_MS; `BENCH_CLIENTS` event streams are open on each
 * process. The commit time of a block is when this script, listening on the chain channel itself,
 * hears the block's notification (NOTIFY is delivered at commit); a block's latency on a client is
 * the arrival of its first frame minus that. Both processes see the same blocks in the same run,
 * so the ratio compares like with like. Prints p50/p90/p99 per process and the ratios. Not a test.
 *
 *   npx tsx test/bench/fanout.ts
 *   BENCH_BLOCKS=120 BENCH_INTERVAL_MS=250 BENCH_CLIENTS=20
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createParser } from "eventsource-parser";
import pg from "pg";
import { CHAIN_CHANNEL } from "../../runtime/chain/ingest.js";
import { simulateChain } from "../../runtime/simulator/index.js";
import { type ServiceProcess, startServiceProcess } from "../support/cli.js";
import { createPgDatabase } from "../support/db.js";
import { postObserver, waitFor } from "../support/service.js";

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 120);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 250);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 20);

const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

/** An event stream recording when the first frame of each height arrived. */
async function timedStream(url: string, firstAt: Map<number, number>): Promise<() => void> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: "text/event-stream" }, signal: controller.signal });
  if (res.status !== 200 || !res.body) throw new Error(`${url}: ${res.status}`);
  const parser = createParser({
    onEvent: (m) => {
      if (m.event !== undefined || !m.id) return;
      const height = Number(m.id.split(":")[0]);
      if (!firstAt.has(height)) firstAt.set(height, performance.now());
    },
  });
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>)
        parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // aborted
    }
  })();
  return () => controller.abort();
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main() {
  log(
    `SSE fan-out latency: nproc ${os.cpus().length}, node ${process.version}, load ${load()}; ${BLOCKS} blocks, ` +
      `one every ${INTERVAL_MS} ms, ${CLIENTS} streams per process`,
  );
  const database = await createPgDatabase();
  const root = mkdtempSync(path.join(os.tmpdir(), "sluice-fanout-"));
  const children: ServiceProcess[] = [];
  const closers: (() => void)[] = [];
  const listener = new pg.Client({ connectionString: database.url });
  try {
    const start = async (name: string, role: string) => {
      const svc = await startServiceProcess(
        { DATABASE_URL: database.url, ROLE: role, NETWORK: "devnet", DATA_DIR: path.join(root, name) },
        120_000,
      );
      children.push(svc);
      return svc;
    };
    const ingest = await start("ingest", "ingest");
    const api = await start("api", "api");

    // Commit times: this script's own notification of each block.
    const committedAt = new Map<number, number>();
    await listener.connect();
    listener.on("notification", (msg) => {
      const p = JSON.parse(msg.payload ?? "{}") as { type?: string; height?: number };
      if (p.type === "block" && typeof p.height === "number" && !committedAt.has(p.height))
        committedAt.set(p.height, performance.now());
    });
    await listener.query(`LISTEN ${pg.escapeIdentifier(CHAIN_CHANNEL)}`);

    const seen = { ingest: [] as Map<number, number>[], api: [] as Map<number, number>[] };
    for (const [name, svc] of [
      ["ingest", ingest],
      ["api", api],
    ] as const) {
      for (let i = 0; i < CLIENTS; i++) {
        const firstAt = new Map<number, number>();
        seen[name].push(firstAt);
        closers.push(await timedStream(`${svc.apiUrl}/v1/streams/events/stream?from_height=0`, firstAt));
      }
    }

    const { payloads } = simulateChain({ seed: "fanout-bench", blocks: BLOCKS, eventsPerBlock: 10, forkRate: 0 });
    for (const p of payloads) {
      const t = performance.now();
      await postObserver(ingest.observerUrl, p.path, JSON.stringify(p.body));
      if (p.path === "/new_block") {
        const wait = INTERVAL_MS - (performance.now() - t);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    }
    // Every block applied, and every height any stream got reached every stream.
    const last = payloads.filter((p) => p.path === "/new_block").at(-1)?.body as { block_height: number };
    await waitFor(() => committedAt.has(last.block_height), { timeoutMs: 60_000 });
    const all = [...seen.ingest, ...seen.api];
    await waitFor(
      () => {
        const union = new Set(all.flatMap((m) => [...m.keys()]));
        return union.has(last.block_height) && all.every((m) => m.size === union.size);
      },
      { timeoutMs: 60_000 },
    );

    const latencies = (maps: Map<number, number>[]) => {
      const out: number[] = [];
      for (const m of maps)
        for (const [h, at] of m) {
          const c = committedAt.get(h);
          if (c !== undefined && h > 0) out.push(at - c); // the genesis block arrives before the streams settle
        }
      return out.sort((a, b) => a - b);
    };
    const onIngest = latencies(seen.ingest);
    const onApi = latencies(seen.api);
    log("");
    log("process          | frames |  p50 ms |  p90 ms |  p99 ms");
    log("-----------------|--------|---------|---------|--------");
    const row = (name: string, l: number[]) =>
      log(
        `${name.padEnd(17)}| ${String(l.length).padStart(6)} | ${percentile(l, 50).toFixed(1).padStart(7)} | ${percentile(l, 90).toFixed(1).padStart(7)} | ${percentile(l, 99).toFixed(1).padStart(7)}`,
      );
    row("ingest (leader)", onIngest);
    row("api (second)", onApi);
    const ratio = (p: number) => (percentile(onApi, p) / percentile(onIngest, p)).toFixed(2);
    log("");
    log(`api ÷ ingest: p50 ${ratio(50)}×, p90 ${ratio(90)}×, p99 ${ratio(99)}× (load ${load()})`);
  } finally {
    for (const close of closers) close();
    await listener.end().catch(() => {});
    for (const c of children) c.child.kill("SIGTERM");
    await Promise.all(children.map((c) => c.exited));
    await database.drop();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
