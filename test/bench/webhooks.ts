/**
 * Webhook benchmark (prints figures; ratios within one run, rounds alternating, medians):
 *  1. ingest: the same simulated chain ingested (chain tables, built-in subgraphs, webhook
 *     batches: what the service runs per block) with no webhooks, with 1,000 webhooks each
 *     matching a different contract or asset (about one match per event), and with 1,000 webhooks
 *     matching every event; events/s and the ratio to no webhooks. No dispatcher runs meanwhile:
 *     the batches wait, then the time to expand them into outbox rows is reported apart;
 *  2. throughput: a backlog of outbox rows across healthy local receivers drained by one dispatcher
 *     process, then by two (this one and `sluice dispatcher`) on PostgreSQL, all resumed at once;
 *     the rate spans the first attempt to the end of the last (as recorded), and on PostgreSQL the
 *     CPU time per delivery of the dispatchers, the database backends and the receivers is printed
 *     with the rate two idle cores would allow at that cost;
 *  3. latency: simulated blocks ingested at a steady rate with 100 webhooks, from each block's
 *     commit to the first attempt of its deliveries (p50/p99);
 *  4. isolation: the backlog with one more endpoint that never answers.
 * Receivers run in their own process (webhook-receivers.mjs). The load average is printed with
 * each figure.
 *
 *   BENCH_DB=postgres|pglite BENCH_DELIVERIES=20000 BENCH_ENDPOINTS=8 BENCH_CONCURRENCY=16 \
 *   BENCH_BLOCKS=60 BENCH_BLOCK_RATE=2 BENCH_ROUNDS=3 BENCH_WEBHOOKS=1000 npx tsx test/bench/webhooks.ts
 *
 * Targets (PostgreSQL): ingest with 1,000 one-match webhooks ≥ 90% of none, with 1,000 every-event
 * webhooks ≥ 50%; ≥ 10,000 deliveries/s with two dispatcher processes; commit → first attempt
 * p99 ≤ 100 ms with 100 webhooks; one dead endpoint costs the others < 10%.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import pg from "pg";
import { createIngestor } from "../../runtime/chain/ingest.js";
import { parseConfig } from "../../runtime/config/index.js";
import { migrate } from "../../runtime/db/migrate.js";
import { createPgliteDb } from "../../runtime/db/pglite.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import type { Db } from "../../runtime/db/types.js";
import { EVENT_TYPE_OF } from "../../runtime/dispatcher/trigger-events.js";
import { createChainOutbox } from "../../runtime/dispatcher/chain-outbox.js";
import { expandBatches } from "../../runtime/dispatcher/expander.js";
import { createDispatcher, type Dispatcher } from "../../runtime/dispatcher/dispatcher.js";
import { insertOutboxRows, type OutboxInsert, WEBHOOK_CHANNEL } from "../../runtime/dispatcher/outbox-store.js";
import { createSecretBox } from "../../runtime/dispatcher/secret-box.js";
import { generateSecret } from "../../runtime/dispatcher/signing.js";
import type { Trigger } from "../../runtime/dispatcher/triggers.js";
import { insertWebhook, newWebhookId } from "../../runtime/dispatcher/webhook-store.js";
import { assembleIngest } from "../../runtime/ingest-wiring.js";
import { silentLogger } from "../../runtime/internal/logger.js";
import { signingKeyFromSeed } from "../../runtime/internal/signing-key.js";
import { ChainSimulator, type SimPayload } from "../../runtime/simulator/index.js";
import { createPgDatabase, PG_ADMIN_URL } from "../support/db.js";
import { REPO_ROOT } from "../support/fixtures.js";

const ONLY = process.env.BENCH_DB;
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 60);
const BLOCK_RATE = Number(process.env.BENCH_BLOCK_RATE ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 1000);
/** Which parts run (comma-separated): ingest, throughput, latency. */
const PARTS = new Set((process.env.BENCH_PARTS ?? "ingest,throughput,latency").split(","));
const secretKey = randomBytes(32);
const signingSeed = randomBytes(32);
const box = createSecretBox(secretKey);
const signer = signingKeyFromSeed(signingSeed);

const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  `load ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`;

interface Receivers {
  healthy: string[];
  stuck: string[];
  /** Requests received so far and the receivers' CPU time (ms). */
  stats(): Promise<{ count: number; cpuMs: number }>;
  stop(): void;
}

async function startReceivers(healthy: number, stuck: number): Promise<Receivers> {
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(REPO_ROOT, "test/bench/webhook-receivers.mjs"), String(healthy), String(stuck)],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const queue: ((line: string) => void)[] = [];
  lines.on("line", (line) => queue.shift()?.(line));
  const next = () => new Promise<string>((resolve) => queue.push(resolve));
  const urls = JSON.parse(await next()) as { healthy: string[]; stuck: string[] };
  return {
    ...urls,
    async stats() {
      const answer = next();
      child.stdin?.write("stats\n");
      return JSON.parse(await answer) as { count: number; cpuMs: number };
    },
    stop: () => child.kill(),
  };
}

/** CPU time (user + system, ms) a process has used so far, from /proc (0 where there is none). */
function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 1/100 s
  } catch {
    return 0;
  }
}

/** CPU time (ms) of the PostgreSQL backends now connected to `database` (same machine only). */
async function backendCpuMs(database: string): Promise<Map<number, number>> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1", [
      database,
    ]);
    return new Map(rows.map((r) => [r.pid, processCpuMs(r.pid)]));
  } finally {
    await admin.end();
  }
}

async function freshDb(kind: "postgres" | "pglite"): Promise<{ db: Db; url: string | null; drop(): Promise<void> }> {
  if (kind === "postgres") {
    const created = await createPgDatabase();
    const db = await createPostgresDb(created.url, 10);
    await migrate(db);
    return {
      db,
      url: created.url,
      async drop() {
        await db.close();
        await created.drop();
      },
    };
  }
  const db = await createPgliteDb(undefined);
  await migrate(db);
  return { db, url: null, drop: () => db.close() };
}

// One trigger per chain event type (the sBTC triggers are prints too: print_event covers them).
const EVERY_EVENT: Trigger[] = Object.keys(EVENT_TYPE_OF)
  .filter((type) => !type.startsWith("sbtc_"))
  .map((type) => ({ type }) as Trigger);

async function addWebhook(
  db: Db,
  url: string,
  options: { timeoutMs?: number; triggers?: Trigger[]; concurrency?: number } = {},
): Promise<string> {
  const id = newWebhookId();
  await insertWebhook(db, {
    id,
    name: id,
    kind: "chain",
    url,
    format: "standard-webhooks",
    triggers: options.triggers ?? [
      { type: "stx_transfer" },
      { type: "ft_transfer" },
      { type: "ft_mint" },
      { type: "nft_mint" },
      { type: "print_event" },
    ],
    subgraphName: null,
    tableName: null,
    filter: null,
    startHeight: -1,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxAttempts: 10,
    concurrency: options.concurrency ?? CONCURRENCY,
    secretSealed: box.seal(generateSecret(), id),
  });
  return id;
}

function dispatcherFor(db: Db): Dispatcher {
  return createDispatcher({ db, logger: silentLogger, signer, secrets: box, allowPrivate: true, maxInFlight: 1024 });
}

/** A realistic apply payload (~600 bytes of JSON). */
function applyData(i: number): Record<string, unknown> {
  return {
    action: "apply",
    trigger: "stx_transfer",
    tx_id: `0x${i.toString(16).padStart(64, "0")}`,
    block_hash: `0x${"ab".repeat(32)}`,
    block_height: 1000 + Math.floor(i / 50),
    canonical: true,
    event: {
      type: "stx_transfer_event",
      event_index: i % 50,
      tx_id: `0x${i.toString(16).padStart(64, "0")}`,
      data: {
        memo: "0x",
        amount: String(1000 + i),
        sender: "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM",
        recipient: "ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG",
      },
    },
  };
}

async function enqueueBacklog(db: Db, webhookIds: string[], perWebhook: number): Promise<number> {
  let total = 0;
  for (const webhookId of webhookIds) {
    for (let start = 0; start < perWebhook; start += 2000) {
      const rows: OutboxInsert[] = [];
      for (let i = start; i < Math.min(perWebhook, start + 2000); i++) {
        rows.push({
          webhookId,
          eventType: "chain.stx_transfer.apply",
          kind: "apply",
          txId: `0x${i}`,
          eventIndex: i % 50,
          blockHash: "0xbench",
          blockHeight: 1000,
          data: applyData(i),
        });
      }
      total += await insertOutboxRows(db, rows);
    }
  }
  return total;
}

async function pendingFor(db: Db, webhookIds: string[] | null): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT (SELECT count(*) FROM control.webhook_batches) + (SELECT count(*) FROM control.webhook_outbox
       WHERE status = 'pending' AND ($1::text[] IS NULL OR webhook_id = ANY($1::text[]))) AS n`,
    [webhookIds],
  );
  return Number(rows[0].n);
}

/** A second dispatcher process: `sluice dispatcher` on the same database, keys and receivers. */
async function extraDispatcher(url: string): Promise<{ pid: number | undefined; stop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-bench-dispatcher-"));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(REPO_ROOT, "runtime/cli/main.ts"), "dispatcher"],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DATABASE_URL: url,
        DATA_DIR: dataDir,
        WEBHOOK_SECRET_KEY: secretKey.toString("base64"),
        SIGNING_KEY_SEED: signingSeed.toString("base64"),
        WEBHOOK_ALLOW_PRIVATE: "true",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let err = "";
    child.stderr?.on("data", (d) => {
      err += d;
      if (err.includes("dispatcher worker started")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`sluice dispatcher exited with ${code}: ${err}`)));
  });
  return {
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface ThroughputRun {
  /** Deliveries to the healthy receivers per second, from the first attempt to the last one's end. */
  rate: number;
  /** CPU time per delivery (µs): dispatcher processes, PostgreSQL backends, receivers. */
  cpu: { dispatchers: number; postgres: number; receivers: number } | null;
}

/**
 * One drain of a backlog. Every dispatcher process starts first, with the webhooks paused; then
 * they are all resumed at once, so no process gets a head start. The rate counts the window the
 * database records — from the first attempt's start to the last attempt's end — not the polling
 * around it, and every healthy receiver must have received at least the backlog.
 */
async function throughput(
  kind: "postgres" | "pglite",
  deliveries: number,
  options: { stuck?: boolean; processes?: number } = {},
): Promise<ThroughputRun> {
  const { db, url, drop } = await freshDb(kind);
  const receivers = await startReceivers(ENDPOINTS, options.stuck ? 1 : 0);
  const extra: { pid: number | undefined; stop(): Promise<void> }[] = [];
  try {
    const healthy: string[] = [];
    for (const u of receivers.healthy) healthy.push(await addWebhook(db, u));
    const perWebhook = Math.ceil(deliveries / ENDPOINTS);
    const total = await enqueueBacklog(db, healthy, perWebhook);
    if (options.stuck) {
      const stuck = await addWebhook(db, receivers.stuck[0], { timeoutMs: 1000 });
      await enqueueBacklog(db, [stuck], perWebhook);
    }
    await db.query("UPDATE control.webhooks SET status = 'paused'");
    for (let p = 1; p < (options.processes ?? 1); p++) {
      if (!url) throw new Error("several dispatcher processes need PostgreSQL");
      extra.push(await extraDispatcher(url));
    }
    const d = dispatcherFor(db);
    await d.start();
    const database = url ? new URL(url).pathname.slice(1) : null;
    const backendsBefore = database ? await backendCpuMs(database) : null;
    const receiversBefore = await receivers.stats();
    const extraBefore = extra.map((x) => processCpuMs(x.pid));
    const selfBefore = process.cpuUsage();
    await db.query("UPDATE control.webhooks SET status = 'active'");
    await db.notify(WEBHOOK_CHANNEL, "webhooks");
    while ((await pendingFor(db, healthy)) > 0) await new Promise((r) => setTimeout(r, 100));
    const self = process.cpuUsage(selfBefore);
    const extraMs = extra.reduce((sum, x, i) => sum + processCpuMs(x.pid) - extraBefore[i], 0);
    const receiversAfter = await receivers.stats();
    // Backends that were connected throughout (a pool's connection opened meanwhile counts from 0).
    let backendMs = 0;
    if (database && backendsBefore)
      for (const [pid, ms] of await backendCpuMs(database)) backendMs += ms - (backendsBefore.get(pid) ?? 0);
    await d.stop(0);
    const { rows } = await db.query<{ seconds: number; delivered: string }>(
      `SELECT extract(epoch FROM max(finished_at) - min(first_attempt_at))::float8 AS seconds, count(*) AS delivered
         FROM control.webhook_outbox WHERE webhook_id = ANY($1::text[]) AND status = 'delivered'`,
      [healthy],
    );
    if (Number(rows[0].delivered) !== total) throw new Error(`${rows[0].delivered} of ${total} delivered`);
    const received = receiversAfter.count - receiversBefore.count;
    if (received < total) throw new Error(`the receivers got ${received} requests for ${total} deliveries`);
    const perDelivery = (ms: number) => (ms * 1000) / total;
    return {
      rate: total / rows[0].seconds,
      cpu: database
        ? {
            dispatchers: perDelivery((self.user + self.system) / 1000 + extraMs),
            postgres: perDelivery(backendMs),
            receivers: perDelivery(receiversAfter.cpuMs - receiversBefore.cpuMs),
          }
        : null,
    };
  } finally {
    for (const x of extra) await x.stop();
    receivers.stop();
    await drop();
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The chain's (event type, asset or contract) pairs, as triggers matching that pair only. */
function vocabulary(payloads: SimPayload[]): Trigger[] {
  const seen = new Map<string, Trigger>();
  const node: Record<string, [string, string, string]> = {
    ft_transfer_event: ["ft_transfer", "assetIdentifier", "asset_identifier"],
    ft_mint_event: ["ft_mint", "assetIdentifier", "asset_identifier"],
    ft_burn_event: ["ft_burn", "assetIdentifier", "asset_identifier"],
    nft_transfer_event: ["nft_transfer", "assetIdentifier", "asset_identifier"],
    nft_mint_event: ["nft_mint", "assetIdentifier", "asset_identifier"],
    nft_burn_event: ["nft_burn", "assetIdentifier", "asset_identifier"],
    contract_event: ["print_event", "contractId", "contract_identifier"],
    stx_transfer_event: ["stx_transfer", "sender", "sender"],
    stx_mint_event: ["stx_mint", "recipient", "recipient"],
    stx_burn_event: ["stx_burn", "sender", "sender"],
  };
  for (const p of payloads) {
    if (p.path !== "/new_block") continue;
    // biome-ignore lint/suspicious/noExplicitAny: raw node payload JSON
    for (const e of (p.body as any).events) {
      const n = node[e.type];
      if (!n) continue;
      const value = e[e.type]?.[n[2]];
      if (typeof value === "string") seen.set(`${n[0]} ${value}`, { type: n[0], [n[1]]: value } as Trigger);
    }
  }
  return [...seen.values()];
}

/**
 * `count` webhooks, each on its own (type, contract/asset/address): the chain's pairs first, then
 * contracts that never appear — about one match per event when `count` exceeds the pairs.
 */
function oneMatchEach(vocab: Trigger[], count: number): Trigger[][] {
  return Array.from({ length: count }, (_, i) =>
    i < vocab.length ? [vocab[i]] : [{ type: "print_event", contractId: `ST000000000000000000002AMW42H.bench-${i}` }],
  );
}

type IngestCase = "none" | "one-match" | "every-event";

async function ingestRun(
  kind: "postgres" | "pglite",
  payloads: SimPayload[],
  which: IngestCase,
  expand: boolean,
): Promise<{ eventsPerSecond: number; events: number; batches: number; expandSeconds: number; rows: number }> {
  const { db, drop } = await freshDb(kind);
  try {
    if (which !== "none") {
      const triggers = which === "every-event" ? null : oneMatchEach(vocabulary(payloads), WEBHOOKS);
      for (let i = 0; i < WEBHOOKS; i++)
        await addWebhook(db, "http://127.0.0.1:9/never", { triggers: triggers ? triggers[i] : EVERY_EVENT });
    }
    const config = parseConfig({ NETWORK: "devnet", DATA_DIR: ".tmp/unused" });
    const { ingestor, subgraphs } = await assembleIngest({ db, config, logger: silentLogger });
    let events = 0;
    const started = performance.now();
    let n = 0;
    for (const p of payloads) {
      const outcome = await ingestor.importRequest(p.path, JSON.stringify(p.body), `bench:${n++}`);
      if (outcome.kind === "block") events += outcome.events;
    }
    const seconds = (performance.now() - started) / 1000;
    await subgraphs.close();
    const batches = Number(
      (await db.query<{ n: string }>("SELECT count(*) AS n FROM control.webhook_batches")).rows[0].n,
    );
    // Expansion into outbox rows, as a dispatcher does it (after ingest here, to time it apart).
    const expandStart = performance.now();
    let rows = 0;
    while (expand) {
      const r = await expandBatches(db);
      rows += r.rows;
      if (!r.more) break;
    }
    return {
      eventsPerSecond: events / seconds,
      events,
      batches,
      expandSeconds: (performance.now() - expandStart) / 1000,
      rows,
    };
  } finally {
    await drop();
  }
}

async function ingestRatios(kind: "postgres" | "pglite"): Promise<void> {
  const sim = new ChainSimulator(
    { seed: "bench-webhooks-ingest", blocks: BLOCKS, eventsPerBlock: 18, forkRate: 0 },
    { recordTruth: false },
  );
  const payloads = [...sim.payloads()];
  log(`\ningest, ${kind}: ${BLOCKS} blocks, rounds alternate none / ${WEBHOOKS} one-match / ${WEBHOOKS} every-event`);
  await ingestRun(kind, payloads.slice(0, Math.min(payloads.length, 40)), "none", false); // warm-up: not reported
  const results: Record<IngestCase, number[]> = { none: [], "one-match": [], "every-event": [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const which of ["none", "one-match", "every-event"] as const) {
      // Expansion (after ingest, timed apart) once per case, on PostgreSQL: it is the slow part
      // of a million deliveries, not of ingest.
      const expand = r === 0 && kind === "postgres";
      const x = await ingestRun(kind, payloads, which, expand);
      results[which].push(x.eventsPerSecond);
      const expanded = expand
        ? `${x.rows} outbox rows expanded in ${x.expandSeconds.toFixed(1)} s (${(x.rows / Math.max(x.expandSeconds, 1e-3)).toFixed(0)} rows/s)`
        : "not expanded";
      log(
        `  round ${r + 1} ${which}: ${x.events} events, ${x.eventsPerSecond.toFixed(0)} events/s; ${x.batches} batches, ${expanded}; ${load()}`,
      );
    }
  }
  const none = median(results.none);
  for (const which of ["one-match", "every-event"] as const) {
    const m = median(results[which]);
    const target = which === "one-match" ? 90 : 50;
    log(
      `ingest with ${WEBHOOKS} ${which} webhooks: median ${m.toFixed(0)} events/s = ${((m / none) * 100).toFixed(0)}% ` +
        `of none (${none.toFixed(0)} events/s; target ≥ ${target}%); ${load()}`,
    );
  }
}

async function latency(
  kind: "postgres" | "pglite",
  webhooks: number,
): Promise<{ p50: number; p99: number; deliveries: number }> {
  const { db, drop } = await freshDb(kind);
  const receivers = await startReceivers(ENDPOINTS, 0);
  try {
    const sim = new ChainSimulator(
      { seed: "bench-webhooks", blocks: BLOCKS, eventsPerBlock: 12, forkRate: 0 },
      { recordTruth: false },
    );
    const payloads = [...sim.payloads()];
    const triggers = oneMatchEach(vocabulary(payloads), webhooks);
    for (let i = 0; i < webhooks; i++)
      await addWebhook(db, receivers.healthy[i % receivers.healthy.length], { triggers: triggers[i], concurrency: 8 });
    const config = parseConfig({ NETWORK: "devnet", DATA_DIR: ".tmp/unused" });
    const ingestor = createIngestor({
      db,
      logger: silentLogger,
      finalityBurnConfirmations: 6,
      hooks: [createChainOutbox({ logger: silentLogger, sbtcRegistry: config.contracts.sbtcRegistryContractId })],
    });
    const d = dispatcherFor(db);
    await d.start();
    const committed = new Map<string, number>(); // index_block_hash → commit time (epoch ms)
    const interval = 1000 / BLOCK_RATE;
    let next = performance.now();
    let n = 0;
    for (const p of payloads) {
      const body = JSON.stringify(p.body);
      if (p.path === "/new_block") {
        const wait = next - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        next += interval;
      }
      await ingestor.importRequest(p.path, body, `bench:${n++}`);
      if (p.path === "/new_block") committed.set(String(p.body.index_block_hash), Date.now());
    }
    while ((await pendingFor(db, null)) > 0) await new Promise((r) => setTimeout(r, 25));
    await d.stop(0);
    const { rows } = await db.query<{ block_hash: string; first_attempt_at: Date }>(
      "SELECT block_hash, first_attempt_at FROM control.webhook_outbox WHERE first_attempt_at IS NOT NULL",
    );
    const samples = rows
      .filter((r) => committed.has(r.block_hash))
      // The NOTIFY can wake the worker before the commit's promise resolves here: clamp at 0.
      .map((r) => Math.max(0, new Date(r.first_attempt_at).getTime() - (committed.get(r.block_hash) as number)))
      .sort((a, b) => a - b);
    return { p50: percentile(samples, 50), p99: percentile(samples, 99), deliveries: samples.length };
  } finally {
    receivers.stop();
    await drop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(", ");

async function run(kind: "postgres" | "pglite"): Promise<void> {
  log(`\n== ${kind}`);
  if (PARTS.has("ingest")) await ingestRatios(kind);
  if (PARTS.has("throughput")) await throughputs(kind);
  if (PARTS.has("latency")) {
    const lat = await latency(kind, 100);
    log(
      `latency, 100 webhooks (block commit → first attempt, ${lat.deliveries} deliveries, ${BLOCK_RATE} blocks/s): ` +
        `p50 ${lat.p50} ms, p99 ${lat.p99} ms (target p99 ≤ 100 ms); ${load()}`,
    );
  }
}

async function throughputs(kind: "postgres" | "pglite"): Promise<void> {
  const deliveries = Number(process.env.BENCH_DELIVERIES ?? (kind === "postgres" ? 20_000 : 6_000));
  log(`\nthroughput, ${kind}: ${ENDPOINTS} endpoints × concurrency ${CONCURRENCY}, ${deliveries} deliveries per run`);
  await throughput(kind, Math.min(deliveries, 4000)); // warm-up (JIT, connections): not reported
  // Interleaved rounds, medians: the machine's background load varies more than the effect measured.
  const one: ThroughputRun[] = [];
  const two: ThroughputRun[] = [];
  const stuck: ThroughputRun[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    one.push(await throughput(kind, deliveries));
    if (kind === "postgres") two.push(await throughput(kind, deliveries, { processes: 2 }));
    stuck.push(await throughput(kind, deliveries, { stuck: true }));
  }
  const rates = (runs: ThroughputRun[]) => runs.map((r) => r.rate);
  log(
    `one dispatcher process: median ${median(rates(one)).toFixed(0)} deliveries/s (runs: ${fmt(rates(one))}); ${load()}`,
  );
  if (two.length)
    log(
      `two dispatcher processes: median ${median(rates(two)).toFixed(0)} deliveries/s (runs: ${fmt(rates(two))}; target ≥ 10,000); ${load()}`,
    );
  for (const [name, runs] of [
    ["one process", one],
    ["two processes", two],
  ] as const) {
    const cpus = runs.map((r) => r.cpu).filter((c) => c !== null);
    if (!cpus.length) continue;
    const d = median(cpus.map((c) => c.dispatchers));
    const p = median(cpus.map((c) => c.postgres));
    const rcv = median(cpus.map((c) => c.receivers));
    // What the CPU time per delivery allows on this machine's cores with nothing else running.
    const idle = (os.cpus().length * 1e6) / (d + p + rcv);
    log(
      `  CPU per delivery, ${name} (medians): dispatchers ${d.toFixed(0)} µs, PostgreSQL backends ${p.toFixed(0)} µs, ` +
        `receivers ${rcv.toFixed(0)} µs; ${os.cpus().length} idle cores would allow ≈ ${idle.toFixed(0)}/s`,
    );
  }
  const drop = ((median(rates(one)) - median(rates(stuck))) / median(rates(one))) * 100;
  log(
    `isolation: with one more endpoint that never answers, the healthy ones deliver median ${median(rates(stuck)).toFixed(0)} deliveries/s ` +
      `(runs: ${fmt(rates(stuck))}; ${drop >= 0 ? "-" : "+"}${Math.abs(drop).toFixed(1)}% against one process without it); ${load()}`,
  );
}

const kinds: ("postgres" | "pglite")[] =
  ONLY === "postgres" ? ["postgres"] : ONLY === "pglite" ? ["pglite"] : ["postgres", "pglite"];
for (const kind of kinds) {
  try {
    await run(kind);
  } catch (err) {
    if (kind === "postgres" && !ONLY) log(`\n== postgres: skipped (${(err as Error).message})`);
    else throw err;
  }
}
process.exit(0);
