/**
 * Reads an uncompressed bundle (docs/archive-format.md) as a stream: each section's bytes are
 * handed on as they arrive, so memory stays bounded whatever the partition's size. The framing is
 * checked as it goes (magic, heights, section order, declared bytes and rows, nothing after
 * @end) and the content digest is computed over every byte read. Pure: no I/O of its own.
 */
import { createHash } from "node:crypto";
import { BUNDLE_MAGIC, BundleFormatError } from "./bundle.js";
import { CHAIN_TABLES, type ChainTable } from "./chain-tables.js";

/** Longer framing lines are not a bundle (they are at most a few dozen bytes). */
const MAX_LINE = 1024;

export interface StreamedBundle {
  firstHeight: number;
  lastHeight: number;
  /** sha256 of every byte of the uncompressed bundle (the manifest's content_sha256). */
  contentSha256: string;
  rows: Record<ChainTable["name"], number>;
}

export interface SectionSink {
  /** Called once the @partition line is read, before any section. */
  partition?(firstHeight: number, lastHeight: number): Promise<void> | void;
  /**
   * One section: `data` yields exactly its bytes; consume it before returning (whatever is left
   * is read and discarded). Its row count is checked once it has been read to the end.
   */
  section(table: ChainTable, declaredRows: number, data: AsyncIterable<Buffer>): Promise<void>;
}

const asBuffer = (b: Uint8Array) => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** Buffered reads off an async iterable of chunks; every byte consumed goes into `hash`. */
class ChunkReader {
  private pending: Buffer = Buffer.alloc(0);
  private readonly it: AsyncIterator<Uint8Array>;

  constructor(
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    private readonly hash: ReturnType<typeof createHash>,
  ) {
    this.it =
      Symbol.asyncIterator in source
        ? source[Symbol.asyncIterator]()
        : (async function* () {
            yield* source;
          })();
  }

  private async more(): Promise<boolean> {
    const r = await this.it.next();
    if (r.done) return false;
    const chunk = asBuffer(r.value);
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    return true;
  }

  private consume(n: number): Buffer {
    const out = this.pending.subarray(0, n);
    this.hash.update(out);
    this.pending = this.pending.subarray(n);
    return out;
  }

  async line(): Promise<string> {
    for (;;) {
      const at = this.pending.indexOf(10);
      if (at >= 0 && at <= MAX_LINE) return this.consume(at + 1).toString("utf8", 0, at);
      if (at > MAX_LINE || this.pending.length > MAX_LINE) throw new BundleFormatError("not a sluice archive bundle");
      if (!(await this.more())) throw new BundleFormatError("truncated bundle");
    }
  }

  /** Exactly n bytes, in the chunks they came in. */
  async *take(n: number, what: string): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.pending.length === 0 && !(await this.more())) throw new BundleFormatError(`${what} is truncated`);
      const piece = this.consume(Math.min(left, this.pending.length));
      left -= piece.length;
      yield piece;
    }
  }

  async atEnd(): Promise<boolean> {
    while (this.pending.length === 0) if (!(await this.more())) return true;
    return false;
  }
}

/** Reads a whole uncompressed bundle from `source`, handing each section to `sink`. */
export async function readBundle(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  sink: SectionSink,
): Promise<StreamedBundle> {
  const hash = createHash("sha256");
  const reader = new ChunkReader(source, hash);
  if ((await reader.line()) !== BUNDLE_MAGIC) throw new BundleFormatError("not a sluice archive bundle");
  const head = await reader.line();
  if (!head.startsWith("@partition ")) throw new BundleFormatError("missing @partition line");
  let meta: { first_height?: unknown; last_height?: unknown };
  try {
    meta = JSON.parse(head.slice("@partition ".length)) as typeof meta;
  } catch {
    throw new BundleFormatError("the @partition line is not JSON");
  }
  if (!Number.isSafeInteger(meta.first_height) || !Number.isSafeInteger(meta.last_height))
    throw new BundleFormatError("the @partition line lacks its heights");
  const firstHeight = meta.first_height as number;
  const lastHeight = meta.last_height as number;
  await sink.partition?.(firstHeight, lastHeight);
  const rows = {} as StreamedBundle["rows"];
  for (const table of CHAIN_TABLES) {
    const m = /^@table (\S+) rows=(\d+) bytes=(\d+)$/.exec(await reader.line());
    if (!m || m[1] !== table.name) throw new BundleFormatError(`expected section ${table.name}`);
    const declared = Number(m[2]);
    let counted = 0;
    let last = 10;
    const data = reader.take(Number(m[3]), `section ${table.name}`);
    const counting = (async function* () {
      for await (const piece of data) {
        // indexOf is native: a byte-by-byte loop in JavaScript took longer than the COPY itself.
        for (let at = piece.indexOf(10); at !== -1; at = piece.indexOf(10, at + 1)) counted++;
        if (piece.length) last = piece[piece.length - 1];
        yield piece;
      }
    })();
    await sink.section(table, declared, counting);
    for await (const _ of counting); // what the sink left unread
    if (last !== 10) throw new BundleFormatError(`section ${table.name} ends inside a row`);
    if (counted !== declared) throw new BundleFormatError(`section ${table.name} declares ${declared} rows`);
    rows[table.name] = declared;
  }
  if ((await reader.line()) !== "@end" || !(await reader.atEnd()))
    throw new BundleFormatError("trailing data after @end");
  return { firstHeight, lastHeight, contentSha256: hash.digest("hex"), rows };
}
