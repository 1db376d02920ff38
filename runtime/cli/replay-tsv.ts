/**
 * Reads a stacks-blockchain-api event-replay TSV (`id \t timestamp \t path \t json`), plain or
 * gzipped, as a stream of requests, with the raw bytes consumed so far for progress and ETA.
 */
import fs from "node:fs";
import { StringDecoder } from "node:string_decoder";
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
  let line = 0;
  for await (const l of splitLines(text)) {
    line++;
    if (!l.trim()) continue;
    const a = l.indexOf("\t");
    const b = a < 0 ? -1 : l.indexOf("\t", a + 1);
    const c = b < 0 ? -1 : l.indexOf("\t", b + 1);
    if (c < 0) throw new Error(`${file}:${line}: expected 4 tab-separated columns (id, timestamp, path, json)`);
    yield { line, id: l.slice(0, a), path: l.slice(b + 1, c), body: l.slice(c + 1) };
  }
}

/**
 * The lines of a UTF-8 byte stream, ended by LF, CRLF or a lone CR (as node:readline cuts them,
 * without its regular expression over every chunk: on a 70 MB file that was most of the reading).
 */
export async function* splitLines(input: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder("utf8");
  let rest = "";
  // A chunk ending in CR: an LF opening the next chunk belongs to the same line break.
  let skipLf = false;
  for await (const chunk of input) {
    let text = rest + (typeof chunk === "string" ? chunk : decoder.write(chunk));
    rest = "";
    if (skipLf && text.startsWith("\n")) text = text.slice(1);
    skipLf = false;
    let start = 0;
    for (;;) {
      const lf = text.indexOf("\n", start);
      if (lf < 0) break;
      const end = lf > start && text.charCodeAt(lf - 1) === 13 ? lf - 1 : lf;
      yield* byCr(text.slice(start, end));
      start = lf + 1;
    }
    rest = text.slice(start);
    // Lone CRs in what remains end lines too; the last piece may still grow.
    const cr = rest.lastIndexOf("\r");
    if (cr >= 0) {
      yield* byCr(rest.slice(0, cr));
      rest = rest.slice(cr + 1);
      skipLf = cr === text.length - start - 1;
    }
  }
  rest += decoder.end();
  if (rest !== "") yield* byCr(rest);
}

/** A line holding lone CRs is several lines. */
function* byCr(text: string): Generator<string> {
  if (!text.includes("\r")) {
    yield text;
    return;
  }
  yield* text.split("\r");
}
