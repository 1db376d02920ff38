/**
 * Archive benchmark (`make bench`): on a simulated chain, per database (PGlite on disk, PostgreSQL):
 * - the import path's rate (chain tables only, test/bench/import-chain-only.ts, its own process);
 * - publish rate (events/s) and bundle bytes per million events;
 * - restore rate: events/s of the bootstrap's load + index build, downloads excluded (they are
 *   done and checked first); the subgraph rebuild after it is reported on its own line;
 * - on PostgreSQL, a reference measured in the same run: the database alone loading the same rows
 *   from server-side files and building the same indexes (the ceiling a restore can approach here);
 * - the encodings measured on the same bundles (why gzip level 6).
 *
 *   BENCH_ARCHIVE_BLOCKS=2000 BENCH_ARCHIVE_EVENTS=30 BENCH_DB=postgres npx tsx test/bench/archive.ts
 *
 * Not a test: figures to compare against the targets (≥ 60,000 events/s on PostgreSQL, ≥ 15,000 on PGlite).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { decompressBundle } from "../../runtime/archive/bundle.js";
import { buildIndexes, dropIndexes, readSecondaryIndexes } from "../../runtime/archive/chain-tables.js";
import { openArchive } from "../../runtime/archive/client.js";
import { keyFromSeed } from "../../runtime/archive/manifest.js";
import { publishArchive } from "../../runtime/archive/publish.js";
import { restoreFromArchive } from "../../runtime/archive/restore.js";
import { startArchiveServer } from "../../runtime/archive/server.js";
import { filesystemStorage } from "../../runtime/archive/storage.js";
import { parseConfig } from "../../runtime/config/index.js";
import { migrate } from "../../runtime/db/migrate.js";
import { createPgliteDb } from "../../runtime/db/pglite.js";
import { createPostgresDb } from "../../runtime/db/postgres.js";
import type { Db } from "../../runtime/db/types.js";
import { silentLogger } from "../../runtime/internal/logger.js";
import { writeSimulation } from "../../runtime/simulator/index.js";
import { createPgDatabase } from "../support/db.js";
import { REPO_ROOT } from "../support/fixtures.js";
import { runImportProcess } from "./cli-import.js";

const BLOCKS = Number(process.env.BENCH_ARCHIVE_BLOCKS ?? 2_000);
const EVENTS = Number(process.env.BENCH_ARCHIVE_EVENTS ?? 30);
const SPAN = Number(process.env.BENCH_ARCHIVE_SPAN ?? 200);
const ONLY = process.env.BENCH_DB; // "pglite" | "postgres" | undefined (both)
const WORK = path.join(REPO_ROOT, ".tmp/bench-archive");
const CHAIN_ONLY = path.join(REPO_ROOT, "test/bench/import-chain-only.ts");
const key = keyFromSeed(Buffer.alloc(32, 11));

const log = (line: string) => process.stdout.write(`${line}\n`);
const rate = (n: number, s: number) => Math.round(n / Math.max(s, 1e-6)).toLocaleString("en-US");

interface Target {
  label: string;
  env: Record<string, string>;
  open(): Promise<Db>;
  drop(): Promise<void>;
}

async function target(kind: "pglite" | "postgres", name: string): Promise<Target> {
  if (kind === "postgres") {
    const created = await createPgDatabase();
    return {
      label: "PostgreSQL",
      env: { DATABASE_URL: created.url, DATA_DIR: path.join(WORK, name) },
      open: () => createPostgresDb(created.url, 4),
      drop: created.drop,
    };
  }
  const dir = path.join(WORK, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return {
    label: "PGlite",
    env: { DATA_DIR: dir },
    open: () => createPgliteDb(path.join(dir, "pgdata")),
    drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

async function postgresReachable(): Promise<boolean> {
  try {
    await (await createPgDatabase()).drop();
    return true;
  } catch {
    return false;
  }
}

async function bench(kind: "pglite" | "postgres", tsv: string): Promise<string[]> {
  const source = await target(kind, `${kind}-source`);
  const restored = await target(kind, `${kind}-restored`);
  const archiveDir = path.join(WORK, `${kind}-archive`);
  fs.rmSync(archiveDir, { recursive: true, force: true });
  try {
    const imported = runImportProcess(["--import", "tsx", CHAIN_ONLY, tsv], {
      ...source.env,
      NETWORK: "devnet",
      FINALITY_BURN_CONFIRMATIONS: "1",
    });
    const label = source.label.padEnd(10);
    log(
      `${label} import (chain tables):  ${imported.events} events in ${imported.importSeconds.toFixed(1)} s: ${rate(imported.events, imported.importSeconds)} events/s`,
    );

    const a = await source.open();
    let published: Awaited<ReturnType<typeof publishArchive>>;
    try {
      published = await publishArchive({
        db: a,
        storage: filesystemStorage(archiveDir),
        key,
        network: "devnet",
        span: SPAN,
      });
    } finally {
      await a.close();
    }
    log(
      `${label} publish: ${published.partitions} partitions, ${published.events} events in ${published.seconds.toFixed(1)} s: ${rate(published.events, published.seconds)} events/s; ` +
        `bundles ${(published.bytes / 1e6).toFixed(1)} MB = ${(((published.bytes / Math.max(published.events, 1)) * 1e6) / 1e6).toFixed(0)} MB per million events`,
    );

    const server = await startArchiveServer({ storage: filesystemStorage(archiveDir), host: "127.0.0.1", port: 0 });
    const b = await restored.open();
    // Peak RSS of this process while the restore runs (the archive server shares it).
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 10);
    try {
      await migrate(b);
      const summary = await restoreFromArchive({
        db: b,
        config: parseConfig({ NETWORK: "devnet", DATA_DIR: path.join(WORK, `${kind}-restored-data`) }),
        logger: silentLogger,
        archive: await openArchive(server.url, [Buffer.from(key.publicKey).toString("base64")]),
        operation: "bootstrap",
        downloadsDir: path.join(WORK, `${kind}-downloads`),
        confirm: async () => true,
      });
      const restoreSeconds = summary.loadSeconds + summary.indexSeconds;
      log(
        `${label} restore: ${summary.events} events (${summary.rows} rows) in ${restoreSeconds.toFixed(1)} s ` +
          `(load ${summary.loadSeconds.toFixed(1)} s + indexes ${summary.indexSeconds.toFixed(1)} s; download ${summary.downloadSeconds.toFixed(1)} s excluded): ` +
          `${rate(summary.events, restoreSeconds)} events/s, ${rate(summary.rows, restoreSeconds)} rows/s — ` +
          `${(summary.events / Math.max(restoreSeconds, 1e-6) / (imported.events / Math.max(imported.importSeconds, 1e-6))).toFixed(1)}× the import path's events/s`,
      );
      const restoredSize = await bytesPerEvent(b);
      const a2 = await source.open();
      const sourceSize = await bytesPerEvent(a2).finally(() => a2.close());
      log(
        `${label} chain.events on disk (table + indexes): restored ${restoredSize.toFixed(0)} bytes/event, ` +
          `the imported source ${sourceSize.toFixed(0)} bytes/event`,
      );
      if (kind === "postgres") {
        const ref = await databaseAloneReference(b, summary.events);
        log(
          ref.skipped
            ? `${label} database-alone reference skipped: ${ref.skipped}`
            : `${label} database alone, same rows and indexes (server-side COPY from files + index build, no sluice work): ${ref.seconds.toFixed(1)} s (COPY ${ref.copySeconds.toFixed(1)} s + indexes ${ref.indexSeconds.toFixed(1)} s): ${rate(summary.events, ref.seconds)} events/s — the restore runs at ${(ref.seconds / Math.max(restoreSeconds, 1e-6)).toFixed(2)} of it`,
        );
      }
      log(
        `${label} then the subgraph rebuild from the restored blocks: ${summary.subgraphSeconds.toFixed(1)} s (${rate(summary.events, summary.subgraphSeconds)} events/s); peak RSS during the restore ${(peakRss / 1e6).toFixed(0)} MB`,
      );
    } finally {
      clearInterval(sampler);
      await b.close();
      await server.close();
    }
    return fs.readdirSync(path.join(archiveDir, "bundles")).map((f) => path.join(archiveDir, "bundles", f));
  } finally {
    await source.drop();
    await restored.drop();
  }
}

/**
 * What PostgreSQL alone takes to load the restored rows and build the same indexes: the tables
 * `from` holds are written to server-side files (COPY TO), then loaded into a new migrated
 * database with its secondary indexes dropped (COPY FROM the files, on two connections as the
 * restore uses) and the indexes built by the restore's own routine. No bundle, no gunzip, no
 * per-row work in sluice: the ceiling a restore on this machine and schema can approach. Needs a
 * server on this host that may write to the temporary directory; otherwise it says why it skipped.
 */
async function databaseAloneReference(
  from: Db,
  events: number,
): Promise<{ seconds: number; copySeconds: number; indexSeconds: number; skipped?: string }> {
  const none = { seconds: 0, copySeconds: 0, indexSeconds: 0 };
  const tables = ["chain.burn_blocks", "chain.blocks", "chain.transactions", "chain.events", "chain.address_activity"];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-copy-reference-"));
  fs.chmodSync(dir, 0o777);
  const file = (t: string) => path.join(dir, `${t}.copy`);
  try {
    try {
      for (const t of tables) await from.exec(`COPY ${t} TO '${file(t)}'`);
    } catch (err) {
      return { ...none, skipped: `the server cannot write ${dir} (${(err as Error).message})` };
    }
    const created = await createPgDatabase();
    const db = await createPostgresDb(created.url, 4);
    try {
      await migrate(db);
      const dropped = await db.transaction(async (q) => {
        const secondary = await readSecondaryIndexes(q);
        await dropIndexes(
          q,
          secondary.map((ix) => ix.name),
        );
        return secondary;
      });
      const copy = (t: string) =>
        db.transaction(async (q) => {
          await q.query("SET LOCAL synchronous_commit TO off");
          await q.exec(`COPY ${t} FROM '${file(t)}'`);
        });
      let t0 = performance.now();
      // The transactions (the largest section) on one connection, the rest on the other.
      await Promise.all([
        copy("chain.transactions"),
        (async () => {
          for (const t of tables.filter((x) => x !== "chain.transactions")) await copy(t);
        })(),
      ]);
      const copySeconds = (performance.now() - t0) / 1000;
      t0 = performance.now();
      await buildIndexes(db, dropped);
      const indexSeconds = (performance.now() - t0) / 1000;
      const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM chain.events");
      if (Number(rows[0].n) !== events) return { ...none, skipped: `loaded ${rows[0].n} events, expected ${events}` };
      return { seconds: copySeconds + indexSeconds, copySeconds, indexSeconds };
    } finally {
      await db.close();
      await created.drop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** chain.events' size on disk (table and indexes) per stored event. */
async function bytesPerEvent(db: Db): Promise<number> {
  const { rows } = await db.query<{ bytes: string; n: string }>(
    "SELECT pg_total_relation_size('chain.events') AS bytes, (SELECT count(*) FROM chain.events) AS n",
  );
  return Number(rows[0].bytes) / Math.max(Number(rows[0].n), 1);
}

/** The same bundle payloads under other encodings: size and compression speed. */
function compareEncodings(files: string[], events: number) {
  const payloads = files.map((f) => decompressBundle(fs.readFileSync(f)));
  const raw = payloads.reduce((s, p) => s + p.length, 0);
  const perMillion = (bytes: number) => `${(((bytes / Math.max(events, 1)) * 1e6) / 1e6).toFixed(0)} MB/M events`;
  log(
    `encodings of the same ${payloads.length} bundles (COPY text ${(raw / 1e6).toFixed(1)} MB = ${perMillion(raw)}):`,
  );
  const candidates: [string, (b: Buffer) => Buffer][] = [
    ["gzip 1", (b) => gzipSync(b, { level: 1 })],
    ["gzip 6 (used)", (b) => gzipSync(b, { level: 6 })],
    ["gzip 9", (b) => gzipSync(b, { level: 9 })],
    ["brotli 5", (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })],
  ];
  for (const [name, fn] of candidates) {
    const t0 = performance.now();
    const size = payloads.reduce((s, p) => s + fn(p).length, 0);
    const s = (performance.now() - t0) / 1000;
    log(
      `  ${name.padEnd(14)} ${(size / 1e6).toFixed(1)} MB (${perMillion(size)}), ${(raw / 1e6 / s).toFixed(0)} MB/s to compress`,
    );
  }
}

fs.mkdirSync(WORK, { recursive: true });
const tsv = path.join(WORK, `sim-${BLOCKS}x${EVENTS}.tsv`);
if (!fs.existsSync(`${tsv}.truth.json`)) {
  log(`generating ${BLOCKS} blocks × ~${EVENTS} events with the simulator…`);
  await writeSimulation({ seed: "bench-archive", blocks: BLOCKS, eventsPerBlock: EVENTS, forkRate: 0.01 }, tsv);
}
const events = JSON.parse(fs.readFileSync(`${tsv}.truth.json`, "utf8")).eventCount as number;
log(
  `archive benchmark: ${BLOCKS} blocks, ${events} events, partitions of ${SPAN} heights; load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
let files: string[] = [];
if (ONLY !== "postgres") files = await bench("pglite", tsv);
if (ONLY !== "pglite") {
  if (await postgresReachable()) files = await bench("postgres", tsv);
  else log("PostgreSQL not reachable at 127.0.0.1:5432: skipped");
}
if (files.length) compareEncodings(files, events);
