/**
 * Reads a stacks-blockchain-api event-replay TSV (`id \t timestamp \t path \t json`), plain or
 * gzipped, as a stream of requests, with the raw bytes consumed so far for progress and ETA.
 */
import fs from "node:fs";
import readline from "node:readline";
import { createGunzip } from "node:zlib";

export interface ReplayRow {
  line: number;
  id: string;
  path: string;
  body: string;
}

export async function* readReplayRows(
  file: string,
  onBytes?: (consumed: number, total: number) => void,
): AsyncGenerator<ReplayRow> {
  const total = fs.statSync(file).size;
  const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  let consumed = 0;
  raw.on("data", (chunk) => {
    consumed += chunk.length;
    onBytes?.(consumed, total);
  });
  const text = file.endsWith(".gz") ? raw.pipe(createGunzip()) : raw;
  const lines = readline.createInterface({ input: text, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const l of lines) {
    line++;
    if (!l.trim()) continue;
    const a = l.indexOf("\t");
    const b = a < 0 ? -1 : l.indexOf("\t", a + 1);
    const c = b < 0 ? -1 : l.indexOf("\t", b + 1);
    if (c < 0) throw new Error(`${file}:${line}: expected 4 tab-separated columns (id, timestamp, path, json)`);
    yield { line, id: l.slice(0, a), path: l.slice(b + 1, c), body: l.slice(c + 1) };
  }
}
