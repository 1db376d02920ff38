/**
 * Start-up benchmark (prints figures; not a test): the compiled service (`npm start`'s entry,
 * `npm run build` first) on the embedded database, timed from process spawn to the first
 * `GET /health` 200 (and the CPU time it used until then, steadier on a shared host), and its resident memory after it has idled (VmRSS; VmHWM is the peak):
 *  A. a fresh (empty) DATA_DIR, the database copied from the build's template;
 *  B. a fresh DATA_DIR with PGLITE_TEMPLATE=off (initdb and every migration, as before the template);
 *  C. a DATA_DIR holding a simulated chain of BENCH_BLOCKS blocks of about BENCH_EVENTS events
 *     (made once by `sluice simulate` and `sluice import`, kept in .tmp/bench-startup/ for later runs).
 * A, B and C alternate in every round; the load average is printed with each run. Then, in this
 * process, where the embedded database's memory goes on C's data directory: the WebAssembly heap,
 * the PostgreSQL memory settings, and the JavaScript heap.
 *
 *   npm run build && BENCH_ROUNDS=3 BENCH_BLOCKS=5000 BENCH_EVENTS=10 BENCH_IDLE_MS=10000 npx tsx test/bench/startup.ts
 */
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
async function startOnce(dataDir: string, env: Record<string, string>): Promise<Run> {
  const [apiPort, observerPort] = [await freePort(), await freePort()];
  const loadAtStart = load();
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [SERVICE], {
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
  const dir = path.join(WORK, `chain-${BLOCKS}x${EVENTS_PER_BLOCK}`);
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

async function main(): Promise<void> {
  for (const file of [SERVICE, CLI]) if (!fs.existsSync(file)) throw new Error(`${file} is missing: npm run build`);
  const template = defaultTemplateDir();
  if (!fs.existsSync(template)) throw new Error(`${template} is missing: npm run build`);
  fs.mkdirSync(WORK, { recursive: true });
  const chain = chainDataDir();
  log(`start-up to GET /health 200, then RSS after ${IDLE_MS / 1000} s idle; ${ROUNDS} rounds, A/B/C alternating`);
  const runs: Record<"A" | "B" | "C", Run[]> = { A: [], B: [], C: [] };
  const label = {
    A: "fresh DATA_DIR, template",
    B: "fresh DATA_DIR, PGLITE_TEMPLATE=off",
    C: `${BLOCKS}-block DATA_DIR`,
  };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const kind of ["A", "B", "C"] as const) {
      const fresh = path.join(WORK, "fresh");
      fs.rmSync(fresh, { recursive: true, force: true });
      const run =
        kind === "C"
          ? await startOnce(chain, {})
          : await startOnce(fresh, kind === "B" ? { PGLITE_TEMPLATE: "off" } : {});
      runs[kind].push(run);
      log(
        `  round ${round} ${kind} (${label[kind]}): /health ${(run.healthMs / 1000).toFixed(2)} s (CPU ${run.cpuS.toFixed(2)} s), ` +
          `RSS ${run.rssMb.toFixed(0)} MB (peak ${run.peakMb.toFixed(0)} MB); ${run.load}${run.note ? `; ${run.note}` : ""}`,
      );
    }
  }
  fs.rmSync(path.join(WORK, "fresh"), { recursive: true, force: true });
  log("\nmedians:");
  for (const kind of ["A", "B", "C"] as const) {
    const r = runs[kind];
    log(
      `  ${kind} ${label[kind]}: /health ${(median(r.map((x) => x.healthMs)) / 1000).toFixed(2)} s ` +
        `(CPU ${median(r.map((x) => x.cpuS)).toFixed(2)} s), ` +
        `RSS ${median(r.map((x) => x.rssMb)).toFixed(0)} MB, peak ${median(r.map((x) => x.peakMb)).toFixed(0)} MB`,
    );
  }
  const ratios = runs.A.map((a, i) => a.healthMs / runs.B[i].healthMs);
  log(
    `  A/B start-up ratio per round: ${ratios.map((x) => x.toFixed(2)).join(", ")} (median ${median(ratios).toFixed(2)})`,
  );
  const cpuRatios = runs.A.map((a, i) => a.cpuS / runs.B[i].cpuS);
  log(
    `  A/B CPU ratio per round: ${cpuRatios.map((x) => x.toFixed(2)).join(", ")} (median ${median(cpuRatios).toFixed(2)})`,
  );
  await memoryBreakdown(chain);
  log(load());
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : err}\n`);
  process.exit(1);
});
