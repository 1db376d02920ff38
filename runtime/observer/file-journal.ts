/**
 * The observer journal as an fsynced append-only file, for the embedded database (DESIGN.md §2
 * step 1). PGlite has one connection: a journal row would wait for the block transaction in flight
 * before the acknowledgement. A file append + fdatasync does not. Each record is later imported in
 * one transaction under a unique key (`control.journal.source_key`), so replaying the file after a
 * crash processes every acknowledged request exactly once.
 *
 * Record: `{"key":"…","path":"/new_block","bytes":N}\n` + N bytes of body + `\n`.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Ingestor } from "../chain/ingest.js";
import type { Logger } from "../internal/logger.js";
import { recoverPendingRows } from "./database-journal.js";
import type { FileJournalEntry, ObserverJournal } from "./journal.js";

export type { FileJournalEntry };

export interface FileJournal {
  /** Appends and fsyncs a request; resolves with its key once it is durable. */
  append(requestPath: string, body: string): Promise<FileJournalEntry>;
  /** Every complete record in the file, in order (a torn last record was never acknowledged). */
  readAll(): FileJournalEntry[];
  /** Records that a request was processed (committed under its key). */
  markProcessed(key: string): void;
  /** Empties the file if every record in it was processed; runs after appends in flight. */
  truncateIfDrained(): Promise<void>;
  close(): Promise<void>;
}

export function openFileJournal(dir: string): FileJournal {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "observer.journal");
  const fd = fs.openSync(file, "a");
  // Keys are unique across restarts: a per-open prefix plus a counter.
  const prefix = `observer:${Date.now().toString(36)}${randomBytes(4).toString("hex")}`;
  let counter = 0;
  // Keys written to the file and not processed yet; the file may be emptied only when none are.
  const pending = new Set<string>(parseRecords(fs.readFileSync(file)).map((r) => r.key));
  let dirty = pending.size > 0;
  let chain: Promise<unknown> = Promise.resolve(); // appends and truncation run one at a time

  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = chain.then(fn, fn);
    chain = next.catch(() => {});
    return next;
  };

  return {
    append(requestPath, body) {
      return serial(async () => {
        const key = `${prefix}:${++counter}`;
        const bodyBuf = Buffer.from(body, "utf8");
        const header = Buffer.from(`${JSON.stringify({ key, path: requestPath, bytes: bodyBuf.length })}\n`, "utf8");
        const record = Buffer.concat([header, bodyBuf, Buffer.from("\n")]);
        await new Promise<void>((resolve, reject) =>
          fs.write(fd, record, (err) => (err ? reject(err) : fs.fdatasync(fd, (e) => (e ? reject(e) : resolve())))),
        );
        pending.add(key);
        dirty = true;
        return { key, path: requestPath, body };
      });
    },
    readAll() {
      return parseRecords(fs.readFileSync(file));
    },
    markProcessed(key) {
      pending.delete(key);
    },
    truncateIfDrained() {
      if (!dirty) return Promise.resolve();
      return serial(async () => {
        if (pending.size > 0) return;
        await fs.promises.truncate(file, 0);
        await new Promise<void>((resolve, reject) => fs.fsync(fd, (e) => (e ? reject(e) : resolve())));
        dirty = false;
      });
    },
    close() {
      return serial(async () => fs.closeSync(fd));
    },
  };
}

/**
 * The observer journal over `file`: each record is imported under its key, so one processed twice
 * (after a crash) is applied once. Journal rows left pending by an earlier run on the database are
 * recovered too, before the file's records.
 */
export function createFileObserverJournal(file: FileJournal, ingestor: Ingestor, logger: Logger): ObserverJournal {
  const importRecord = async (entry: FileJournalEntry) => {
    const outcome = await ingestor.importRequest(entry.path, entry.body, entry.key);
    file.markProcessed(entry.key);
    return outcome;
  };
  return {
    append: (requestPath, body) => file.append(requestPath, body),
    process(entry) {
      if (!("key" in entry)) throw new Error(`not a file journal record: ${entry.id}`);
      return importRecord(entry);
    },
    async recover(onOutcome) {
      await recoverPendingRows(ingestor, logger, onOutcome);
      // Acknowledged before the last stop; the ones already committed are skipped by key.
      const records = file.readAll();
      for (const r of records) {
        // Not `onOutcome?.(await importRecord(r))`: without a listener that skips the call's
        // argument too, and the record would never be processed.
        const outcome = await importRecord(r);
        onOutcome?.(outcome);
      }
      if (records.length) logger.info({ msg: "recovered journaled requests", count: records.length });
      await file.truncateIfDrained();
    },
    drained: () => file.truncateIfDrained(),
    close: () => file.close(),
  };
}

/** Pure: the complete records of a journal file's bytes; a torn tail is ignored. */
export function parseRecords(data: Buffer): FileJournalEntry[] {
  const out: FileJournalEntry[] = [];
  let pos = 0;
  while (pos < data.length) {
    const nl = data.indexOf(0x0a, pos);
    if (nl < 0) break;
    let header: { key: string; path: string; bytes: number };
    try {
      header = JSON.parse(data.subarray(pos, nl).toString("utf8"));
    } catch {
      break; // torn header
    }
    const start = nl + 1;
    const end = start + header.bytes;
    if (end + 1 > data.length) break; // torn body
    out.push({ key: header.key, path: header.path, body: data.subarray(start, end).toString("utf8") });
    pos = end + 1;
  }
  return out;
}
