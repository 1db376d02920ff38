/**
 * Reads at the cost real traffic pays: every request of a case asks for a different URL (a new
 * random cursor and filter value), so the page cache cannot answer from memory unless something
 * really repeats. Cases: Index and Streams pages of 200 events (no filter, a `types` filter, a
 * `sender` filter), subgraph holdings lists `_limit=50` by holder and by asset, each next to
 * `GET /health` (the HTTP stack with no database) measured in the same run; with the page cache on
 * (the default) and off (PAGE_CACHE_MB=0). Prints req/s, p50/p99, the ratio to /health and the
 * 1-minute load average after each case (the machine is shared: read figures next to it); and, for
 * each case, a bare node:http server answering the same paths with a body of the case's mean size
 * (what HTTP alone reaches on this machine for those bytes) with the case's ratio to it. Not a test.
 *
 *   npx tsx test/bench/read-distinct.ts
 *   BENCH_DB=postgres|pglite|both (default postgres) BENCH_EVENTS=500000 BENCH_ROWS=1000000
 *   BENCH_SECONDS=5 BENCH_CACHE=both|on|off BENCH_CONNECTIONS=10 BENCH_ONLY=<regex> BENCH_BARE=0|1
 *   PGLITE_SHARED_BUFFERS_MB (PGlite runs; default as the service's)
 *
 * autocannon runs in a worker thread with a setupRequest module (distinct-paths.cjs) that walks a
 * list of pre-drawn paths. The histories come from test/support/synthetic-history.ts; the built-in subgraphs are marked as
 * caught up with the loaded chain, so no backfill runs during the measurements.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { encodeCursor } from "../../runtime/api/subgraphs/query/cursor.js";
import { migrate } from "../../runtime/db/migrate.js";
import { createPgliteDb } from "../../runtime/db/pglite.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import type { Db } from "../../runtime/db/types.js";
import { createPgDatabase } from "../support/db.js";
import { startTestService } from "../support/service.js";
import { autocannon } from "./autocannon.js";
import {
  ASSETS,
  loadChainEvents,
  loadHoldings,
  PER_BLOCK,
  SENDERS,
  senderAt,
  TOKEN,
} from "../support/synthetic-history.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 500_000);
/** 1,000,000 rows = 20,000 holders: more than a holder case sends requests, so few repeat. */
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DB = process.env.BENCH_DB ?? "postgres";
const DBS = DB === "both" ? ["postgres", "pglite"] : [DB];
const CACHE_MODES =
  (process.env.BENCH_CACHE ?? "both") === "both" ? ["on", "off"] : [process.env.BENCH_CACHE as string];
const ONLY = new RegExp(process.env.BENCH_ONLY ?? "", "i");
/** BENCH_BARE=0 leaves out the bare-HTTP reference of each case. */
const BARE = process.env.BENCH_BARE !== "0";
/** Paths drawn per case: more than a case sends, so no URL repeats. */
const PATHS = 200_000;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const SETUP_REQUEST = path.join(HERE, "distinct-paths.cjs");

const log = (line: string) => process.stdout.write(`${line}\n`);
const rand = (n: number) => Math.floor(Math.random() * n);
const load = () => os.loadavg()[0].toFixed(1);

export interface Case {
  name: string;
  /** A new path for each request. */
  draw: () => string;
}

/** The cases over a history loaded by loadReadHistory (also test/bench/api-scale.ts). */
export function cases(maxHeight: number): Case[] {
  // Cursors leave room for a full page of the unfiltered routes (200 events = 4 blocks).
  const cursor = () => `${rand(maxHeight - 8)}:${rand(PER_BLOCK)}`;
  const types = ["stx_transfer", "ft_transfer", "nft_mint", "print", "ft_mint"];
  const holders = Math.floor(ROWS / ASSETS);
  const H = "/v1/subgraphs/asset-holdings/holdings";
  const idCursor = (id: number) =>
    encodeURIComponent(
      encodeCursor({ table: "asset-holdings/holdings", sort: "_id", order: "asc" }, { id: String(id) }),
    );
  return [
    { name: "GET /health", draw: () => "/health" },
    { name: "index, 200 events, random cursor", draw: () => `/v1/index/events?limit=200&cursor=${cursor()}` },
    {
      name: "streams, 200, types=<random>, random cursor",
      draw: () => `/v1/streams/events?limit=200&types=${types[rand(types.length)]}&cursor=${cursor()}`,
    },
    {
      name: "streams, 200, sender=<random>, random cursor",
      draw: () => `/v1/streams/events?limit=200&sender=${senderAt(rand(SENDERS))}&cursor=${cursor()}`,
    },
    {
      name: "holdings _limit=50, holder=<random>",
      draw: () => `${H}?_limit=50&holder=SP${(1 + rand(holders - 1)).toString(16).toUpperCase().padStart(38, "0")}`,
    },
    {
      name: "holdings _limit=50, asset=<random>, cursor",
      draw: () =>
        `${H}?_limit=50&asset_identifier=${encodeURIComponent(TOKEN(rand(ASSETS)))}&cursor=${idCursor(rand(ROWS - 5000))}`,
    },
  ];
}

/**
 * Draws the case's paths into `dir` for the load workers (distinct-paths.cjs reads the file named
 * by BENCH_PATHS_FILE; each worker starts at a random line) and checks that the first one answers.
 * Returns how many distinct paths were drawn.
 */
export async function preparePaths(apiUrl: string, c: Case, dir: string): Promise<number> {
  const file = path.join(dir, "paths.txt");
  const seen = new Set<string>();
  for (let i = 0; i < PATHS; i++) seen.add(c.draw());
  writeFileSync(file, [...seen].join("\n"));
  process.env.BENCH_PATHS_FILE = file; // read by distinct-paths.cjs in the worker
  const probe = await fetch(apiUrl + [...seen][0]);
  if (probe.status !== 200) throw new Error(`${c.name}: ${probe.status} ${(await probe.text()).slice(0, 300)}`);
  return seen.size;
}

/** Drives `apiUrl` with the prepared paths for `seconds` (a worker thread of its own). */
export async function distinctLoad(
  apiUrl: string,
  connections: number,
  seconds: number,
): Promise<{ rps: number; p50: number; p99: number; requests: number }> {
  const r = await autocannon({
    url: apiUrl,
    connections,
    workers: 1,
    duration: seconds,
    requests: [{ setupRequest: SETUP_REQUEST }],
  });
  if (r.non2xx || r.errors) throw new Error(`${apiUrl}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total };
}

async function measure(
  apiUrl: string,
  c: Case,
  dir: string,
): Promise<{ rps: number; p50: number; p99: number; requests: number; urls: number; bytes: number }> {
  const urls = await preparePaths(apiUrl, c, dir);
  const bytes = await meanBodyBytes(apiUrl, c);
  await distinctLoad(apiUrl, CONNECTIONS, 1); // warm-up
  return { ...(await distinctLoad(apiUrl, CONNECTIONS, SECONDS)), urls, bytes };
}

/** The mean body size of 20 of a case's responses. */
async function meanBodyBytes(apiUrl: string, c: Case): Promise<number> {
  let total = 0;
  for (let i = 0; i < 20; i++) total += (await (await fetch(apiUrl + c.draw())).arrayBuffer()).byteLength;
  return Math.round(total / 20);
}

/**
 * The reference a case's figure is read against besides /health: a bare node:http server (no
 * routing, no database) answering the same distinct paths with a fixed JSON body of the case's
 * mean size, driven the same way in the same run. What this machine can push through HTTP for
 * responses of that size: no route serving those bytes goes faster here.
 */
export async function bareHttpReference(bytes: number): Promise<{ rps: number; p99: number }> {
  const body = Buffer.from(`{"x":"${"a".repeat(Math.max(bytes - 8, 0))}"}`);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const url = `http://127.0.0.1:${port}`;
    await distinctLoad(url, CONNECTIONS, 1); // warm-up
    const r = await distinctLoad(url, CONNECTIONS, SECONDS);
    return { rps: r.rps, p99: r.p99 };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * Loads the synthetic history the cases read (`events` chain events, `rows` holdings rows) into a
 * migrated database, the built-in subgraphs marked as caught up with it; returns the top height.
 */
export async function loadReadHistory(db: Db, events: number, rows: number): Promise<number> {
  await migrate(db);
  await (await startTestService(db, { LOG_LEVEL: "silent" })).stop(); // registers the built-in subgraphs
  const maxHeight = await loadChainEvents(db, events);
  await loadHoldings(db, rows);
  await db.query("UPDATE control.subgraph_progress SET subgraph_height = $1", [maxHeight]);
  return maxHeight;
}

async function openDb(kind: string): Promise<{ db: Db; cleanup: () => Promise<void> }> {
  if (kind === "postgres") {
    const database = await createPgDatabase();
    const db = await createPostgresDb(database.url, 10);
    return {
      db,
      cleanup: async () => {
        await db.close();
        await database.drop();
      },
    };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "sluice-bench-"));
  const sharedBuffersMb = process.env.PGLITE_SHARED_BUFFERS_MB
    ? Number(process.env.PGLITE_SHARED_BUFFERS_MB)
    : undefined;
  const db = await createPgliteDb(dir, undefined, { sharedBuffersMb });
  return {
    db,
    cleanup: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function run(kind: string, dir: string): Promise<void> {
  log(`\n=== ${kind}: ${EVENTS.toLocaleString()} events, ${ROWS.toLocaleString()} holdings rows`);
  const { db, cleanup } = await openDb(kind);
  try {
    const maxHeight = await loadReadHistory(db, EVENTS, ROWS);
    const list = cases(maxHeight).filter((c) => c.name === "GET /health" || ONLY.test(c.name));
    for (const mode of CACHE_MODES) {
      const service = await startTestService(db, {
        LOG_LEVEL: "silent",
        ...(mode === "off" ? { PAGE_CACHE_MB: "0" } : {}),
      });
      try {
        log("");
        log(
          `page cache ${mode}${mode === "off" ? " (PAGE_CACHE_MB=0)" : " (the default)"}; ${CONNECTIONS} connections × ${SECONDS} s per case, a new URL per request`,
        );
        log(
          "case                                          |   req/s | p50 ms | p99 ms | ÷ /health | requests / distinct URLs | bytes  | bare HTTP req/s, same bytes | ÷ bare | load",
        );
        log(
          "----------------------------------------------|---------|--------|--------|----------|--------------------------|--------|-----------------------------|--------|-----",
        );
        let health = 0;
        for (const c of list) {
          const r = await measure(service.apiUrl, c, dir);
          if (c.name === "GET /health") health = r.rps;
          const ratio = health > 0 ? `${((100 * r.rps) / health).toFixed(0)}%` : "-";
          const bare = c.name === "GET /health" || !BARE ? null : await bareHttpReference(r.bytes);
          const bareCells = bare
            ? `${`${bare.rps.toFixed(0)} (p99 ${bare.p99} ms)`.padStart(27)} | ${`${((100 * r.rps) / bare.rps).toFixed(0)}%`.padStart(6)}`
            : `${"-".padStart(27)} | ${"-".padStart(6)}`;
          log(
            `${c.name.padEnd(46)}| ${r.rps.toFixed(0).padStart(7)} | ${String(r.p50).padStart(6)} | ${String(r.p99).padStart(6)} | ${ratio.padStart(8)} | ${`${r.requests} / ${r.urls}`.padStart(24)} | ${String(r.bytes).padStart(6)} | ${bareCells} | ${load()}`,
          );
        }
      } finally {
        await service.stop();
      }
    }
  } finally {
    await cleanup();
  }
}

async function main() {
  log(`distinct-URL read benchmark on ${os.cpus().length} cores, node ${process.version}, load ${load()}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "sluice-distinct-"));
  try {
    for (const kind of DBS) await run(kind, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Run as a script, not when test/bench/api-scale.ts imports the helpers above.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href)
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
