/**
 * Start-up benchmark (prints figures; not a test): the compiled service (`npm start`'s entry,
 * `npm run build` first) on the embedded database, timed from process spawn to the first
 * `GET /health` 200 (and the CPU time it used until then, steadier on a shared host), and its
 * resident memory after it has idled BENCH_IDLE_MS (VmRSS; VmHWM is the peak), on:
 *  fresh — an empty DATA_DIR, the database copied from the build's template;
 *  off   — the same with PGLITE_TEMPLATE=off (initdb and every migration; only with BENCH_OFF=1);
 *  chain — a DATA_DIR holding a simulated chain of BENCH_BLOCKS blocks of about BENCH_EVENTS events
 *          (made once by `sluice simulate` and `sluice import`, kept in .tmp/bench-startup/; or
 *          BENCH_CHAIN_DIR).
 * BENCH_BASE=<checkout> (built there, template included) runs the same cases on that build too:
 * base and this build alternate within every case of every round, and the ratios this/base are
 * printed per round. The load average is printed with each run. Then, in this process, where the
 * embedded database's memory goes on the chain's data directory: the WebAssembly heap, the
 * PostgreSQL memory settings, and the JavaScript heap.
 *
 *   npm run build && BENCH_ROUNDS=3 BENCH_BLOCKS=5000 BENCH_EVENTS=10 BENCH_IDLE_MS=10000 npx tsx test/bench/startup.ts
 *   BENCH_BASE=../base npx tsx test/bench/startup.ts   # A/B against another build */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { DEFAULT_PGLITE_SHARED_BUFFERS_MB, pgliteStartParams } from "../../runtime/db/pglite-settings.js";
import { defaultTemplateDir } from "../../runtime/db/pglite-template.js";
import { REPO_ROOT } from "../support/fixtures.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 5000);
const EVENTS_PER_BLOCK = Number(process.env.BENCH_EVENTS ?? 10);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 10_000);
const BASE = process.env.BENCH_BASE ? path.resolve(process.env.BENCH_BASE) : null;
const WITH_OFF = process.env.BENCH_OFF === "1";
const SERVICE = path.join(REPO_ROOT, "dist/runtime/main.js");
const CLI = path.join(REPO_ROOT, "dist/runtime/cli/main.js");
const WORK = path.join(REPO_ROOT, ".tmp", "bench-startup");
// The simulated chain's BNS-V2 and sBTC contracts are devnet's.
const ENV = { NETWORK: "devnet", LOG_LEVEL: "warn" };

const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  `load ${os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** CPU seconds (user + system) process `pid` has used so far (/proc/<pid>/stat, USER_HZ = 100). */
function cpuSecondsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}

interface Run {
  healthMs: number;
  /** CPU seconds the service used until /health answered 200: steadier than the wall time on a busy host. */
  cpuS: number;
  rssMb: number;
  peakMb: number;
  load: string;
  /** What the service logged about the template (or nothing). */
  note: string;
}

/** Starts the service on `dataDir`, times /health 200 from spawn, idles, reads its memory, stops it. */
async function startOnce(service: string, dataDir: string, env: Record<string, string>): Promise<Run> {
  const [apiPort, observerPort] = [await freePort(), await freePort()];
  const loadAtStart = load();
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [service], {
    env: {
      ...process.env,
      ...ENV,
      LOG_LEVEL: "info",
      DATA_DIR: dataDir,
      API_PORT: String(apiPort),
      OBSERVER_PORT: String(observerPort),
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    let healthMs = 0;
    let cpuS = 0;
    while (!healthMs) {
      if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${stderr}`);
      try {
        const res = await fetch(`http://127.0.0.1:${apiPort}/health`);
        await res.arrayBuffer();
        if (res.status === 200) {
          healthMs = performance.now() - started;
          cpuS = cpuSecondsOf(child.pid ?? 0);
        }
      } catch {
        // not listening yet
      }
      if (!healthMs) await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const memory = memoryOf(child.pid ?? 0);
    const line = stderr.split("\n").find((l) => l.includes("template"));
    const note = line ? String((JSON.parse(line) as { msg: string }).msg) : "";
    return { healthMs, cpuS, ...memory, load: loadAtStart, note };
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

/** The data directory of a simulated chain of BLOCKS blocks, made once. */
function chainDataDir(): string {
  const dir = process.env.BENCH_CHAIN_DIR
    ? path.resolve(process.env.BENCH_CHAIN_DIR)
    : path.join(WORK, `chain-${BLOCKS}x${EVENTS_PER_BLOCK}`);
  if (fs.existsSync(path.join(dir, "pgdata", "PG_VERSION"))) {
    log(`${BLOCKS}-block data directory: ${path.relative(REPO_ROOT, dir)} (made by an earlier run)`);
    return dir;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const tsv = path.join(WORK, `chain-${BLOCKS}x${EVENTS_PER_BLOCK}.tsv`);
  const run = (args: string[]) => {
    const res = spawnSync(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...ENV, DATA_DIR: dir },
      encoding: "utf8",
      maxBuffer: 1 << 26,
    });
    if (res.status !== 0) throw new Error(`sluice ${args[0]} failed:\n${res.stderr}\n${res.stdout}`);
    return res.stdout.trim();
  };
  const started = performance.now();
  const size = ["--blocks", String(BLOCKS), "--events-per-block", String(EVENTS_PER_BLOCK)];
  run(["simulate", "--out", tsv, ...size, "--seed", "bench-startup"]);
  log(`${BLOCKS}-block data directory: ${run(["import", "--quiet", tsv])}`);
  log(`  (simulated and imported in ${((performance.now() - started) / 1000).toFixed(0)} s; ${load()})`);
  fs.rmSync(tsv, { force: true });
  fs.rmSync(`${tsv}.truth.json`, { force: true });
  return dir;
}

/** Where the embedded database's memory goes, on a copy of `dataDir` opened in this process. */
async function memoryBreakdown(dataDir: string): Promise<void> {
  const copy = path.join(WORK, "memory-probe");
  fs.rmSync(copy, { recursive: true, force: true });
  fs.cpSync(path.join(dataDir, "pgdata"), copy, { recursive: true });
  const before = process.memoryUsage();
  const pg = await PGlite.create({
    dataDir: copy,
    extensions: { pg_trgm },
    startParams: pgliteStartParams(PGlite.defaultStartParams, DEFAULT_PGLITE_SHARED_BUFFERS_MB),
  });
  try {
    // Touch what a service touches at start and on reads: the chain tables' pages.
    await pg.query("SELECT count(*) FROM chain.blocks");
    await pg.query("SELECT count(*) FROM chain.events");
    const settings = await pg.query<{ name: string; setting: string; unit: string | null }>(
      `SELECT name, setting, unit FROM pg_settings WHERE name IN
        ('shared_buffers', 'wal_buffers', 'work_mem', 'maintenance_work_mem', 'temp_buffers', 'max_connections')
       ORDER BY name`,
    );
    const wasmBytes = (pg as unknown as { mod: { HEAPU8: Uint8Array } }).mod.HEAPU8.byteLength;
    const after = process.memoryUsage();
    const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;
    log("\nembedded database memory (one PGlite on the chain's data directory, in this process):");
    log(`  WebAssembly heap (PostgreSQL's whole address space, never shrinks): ${mb(wasmBytes)}`);
    log(
      `  settings: ${settings.rows
        .map((r) => {
          const unit = r.unit === "8kB" ? 8192 : r.unit === "kB" ? 1024 : r.unit === "MB" ? 1048576 : 0;
          return `${r.name}=${unit ? mb(Number(r.setting) * unit) : r.setting}`;
        })
        .join(", ")}`,
    );
    log(
      `  process: RSS ${mb(before.rss)} → ${mb(after.rss)}; JS heap used ${mb(after.heapUsed)}; ` +
        `external ${mb(after.external)}, of it ArrayBuffers ${mb(after.arrayBuffers)}`,
    );
  } finally {
    await pg.close();
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

type Case = "fresh" | "off" | "chain";

async function main(): Promise<void> {
  const builds: { name: "base" | "this"; service: string }[] = [];
  if (BASE) builds.push({ name: "base", service: path.join(BASE, "dist/runtime/main.js") });
  builds.push({ name: "this", service: SERVICE });
  for (const file of [...builds.map((b) => b.service), CLI]) {
    if (!fs.existsSync(file)) throw new Error(`${file} is missing: npm run build`);
  }
  for (const root of [REPO_ROOT, ...(BASE ? [BASE] : [])]) {
    const template = path.join(root, "dist", "pglite-template");
    if (!fs.existsSync(template)) throw new Error(`${template} is missing: npm run build`);
  }
  if (!fs.existsSync(defaultTemplateDir())) throw new Error("the template is missing: npm run build");
  fs.mkdirSync(WORK, { recursive: true });
  const chain = chainDataDir();
  const cases: Case[] = WITH_OFF ? ["fresh", "off", "chain"] : ["fresh", "chain"];
  const label: Record<Case, string> = {
    fresh: "fresh DATA_DIR, template",
    off: "fresh DATA_DIR, PGLITE_TEMPLATE=off",
    chain: `${BLOCKS}-block DATA_DIR`,
  };
  log(
    `start-up to GET /health 200, then RSS after ${IDLE_MS / 1000} s idle; ${ROUNDS} rounds; ` +
      `builds ${builds.map((b) => b.name).join(", ")} alternating in each case${BASE ? ` (base: ${BASE})` : ""}`,
  );
  const runs = new Map<string, Run[]>();
  const key = (build: string, c: Case) => `${build} ${c}`;
  for (let round = 1; round <= ROUNDS; round++) {
    for (const c of cases) {
      // Alternate which build goes first, so neither always follows the other.
      const order = round % 2 === 1 ? builds : [...builds].reverse();
      for (const build of order) {
        const fresh = path.join(WORK, "fresh");
        fs.rmSync(fresh, { recursive: true, force: true });
        const run =
          c === "chain"
            ? await startOnce(build.service, chain, {})
            : await startOnce(build.service, fresh, c === "off" ? { PGLITE_TEMPLATE: "off" } : {});
        const list = runs.get(key(build.name, c)) ?? [];
        list.push(run);
        runs.set(key(build.name, c), list);
        log(
          `  round ${round} ${build.name} ${c} (${label[c]}): /health ${(run.healthMs / 1000).toFixed(2)} s (CPU ${run.cpuS.toFixed(2)} s), ` +
            `RSS ${run.rssMb.toFixed(0)} MB (peak ${run.peakMb.toFixed(0)} MB); ${run.load}${run.note ? `; ${run.note}` : ""}`,
        );
      }
    }
  }
  fs.rmSync(path.join(WORK, "fresh"), { recursive: true, force: true });
  log("\nmedians (min–max):");
  const span = (xs: number[], digits: number) =>
    `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
  for (const c of cases) {
    for (const build of builds) {
      const r = runs.get(key(build.name, c)) ?? [];
      log(
        `  ${build.name} ${label[c]}: /health ${span(
          r.map((x) => x.healthMs / 1000),
          2,
        )} s, CPU ${span(
          r.map((x) => x.cpuS),
          2,
        )} s, RSS ${span(
          r.map((x) => x.rssMb),
          0,
        )} MB, peak ${span(
          r.map((x) => x.peakMb),
          0,
        )} MB`,
      );
    }
  }
  if (BASE) {
    log("this/base per round (wall; CPU; idle RSS):");
    for (const c of cases) {
      const a = runs.get(key("base", c)) ?? [];
      const b = runs.get(key("this", c)) ?? [];
      const ratio = (f: (r: Run) => number) => b.map((x, i) => f(x) / f(a[i]));
      const show = (xs: number[]) => `${xs.map((x) => x.toFixed(2)).join(", ")} (median ${median(xs).toFixed(2)})`;
      log(`  ${c}: ${show(ratio((r) => r.healthMs))}; ${show(ratio((r) => r.cpuS))}; ${show(ratio((r) => r.rssMb))}`);
    }
  }
  await memoryBreakdown(chain);
  log(load());
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : err}\n`);
  process.exit(1);
});
