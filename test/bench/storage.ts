/**
 * Storage per event: a simulated devnet chain imported by the compiled `sluice import` (build
 * first) into a fresh PostgreSQL database, then chain.events measured with pg_relation_size: the
 * table (heap + TOAST), each index, and the total per event and per million events, and the whole
 * database's size per million events. Not a test.
 *
 *   npm run build && npx tsx test/bench/storage.ts
 *   BENCH_BLOCKS=1000 BENCH_EVENTS=30 (mean events per block)
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { writeSimulation } from "../../runtime/simulator/index.js";
import { createPgDatabase } from "../support/db.js";
import { describeCliImport, runCliImport } from "./cli-import.js";

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 1000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 30);
const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  `load ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(", ")}`;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-storage-"));
  const database = await createPgDatabase();
  try {
    const file = path.join(dir, "chain.tsv");
    const { truth } = await writeSimulation(
      { seed: "storage", blocks: BLOCKS, eventsPerBlock: EVENTS, network: "devnet" },
      file,
    );
    log(`simulated chain: ${truth.newBlockCount} blocks, ${truth.eventCount.toLocaleString()} events`);
    const figures = await runCliImport(file, { NETWORK: "devnet", DATABASE_URL: database.url });
    log(`imported: ${describeCliImport(figures)}; ${load()}`);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query("VACUUM ANALYZE chain.events");
      const { rows: count } = await client.query<{ n: string }>("SELECT count(*) AS n FROM chain.events");
      const events = Number(count[0].n);
      const { rows } = await client.query<{ name: string; bytes: string }>(
        `SELECT 'table (heap + TOAST)' AS name, pg_table_size('chain.events') AS bytes
         UNION ALL
         SELECT i.indexrelid::regclass::text, pg_relation_size(i.indexrelid) FROM pg_index i
          WHERE i.indrelid = 'chain.events'::regclass
         UNION ALL
         SELECT 'total', pg_total_relation_size('chain.events')`,
      );
      log(`\nchain.events: ${events.toLocaleString()} rows`);
      log("relation                         |     bytes | bytes/event | MB per million events");
      for (const r of rows) {
        const per = Number(r.bytes) / events;
        log(
          `${r.name.padEnd(33)}| ${r.bytes.padStart(9)} | ${per.toFixed(0).padStart(11)} | ${per.toFixed(0).padStart(5)}`,
        );
      }
      const { rows: db } = await client.query<{ bytes: string }>(
        "SELECT pg_database_size(current_database()) AS bytes",
      );
      const perMillion = (Number(db[0].bytes) / events) * 1e6;
      log(`\nwhole database: ${db[0].bytes} bytes, ${(perMillion / 1e9).toFixed(2)} GB per million events`);
    } finally {
      await client.end();
    }
  } finally {
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  log(`\nuptime: ${spawnSync("uptime", { encoding: "utf8" }).stdout.trim()}`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
