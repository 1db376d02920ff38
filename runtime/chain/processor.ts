/**
 * Serial processing of journaled observer requests (DESIGN.md §2): strictly in journal order, one
 * at a time. A decoding problem marks the entry malformed and moves on; a database failure keeps
 * the entry pending and retries it with backoff, so nothing acknowledged is skipped.
 */
import { errorMessage } from "../internal/errors.js";
import type { Logger } from "../internal/logger.js";
import type { IngestOutcome } from "./hooks.js";
import type { Ingestor } from "./ingest.js";
import type { FileJournal, FileJournalEntry } from "./file-journal.js";
import type { JournalEntry } from "./journal-store.js";

/** A request to process: a journal row (PostgreSQL) or a file-journal record (embedded database). */
export type QueuedRequest = JournalEntry | FileJournalEntry;

export interface JournalProcessor {
  /** Queues an entry that was just journaled (the observer's fast path). */
  enqueue(entry: QueuedRequest): void;
  /** Processes whatever is pending in the journal (start-up), then the queue. */
  start(): Promise<void>;
  /** Stops after the entry in flight; resolves when idle. */
  stop(): Promise<void>;
  /** Resolves once the queue is empty (tests, import). */
  idle(): Promise<void>;
  readonly backlog: number;
  readonly lastError: string | null;
}

export function createJournalProcessor(deps: {
  ingestor: Ingestor;
  logger: Logger;
  onOutcome?: (o: IngestOutcome) => void;
  retryDelayMs?: (attempt: number) => number;
  /** Embedded database: requests are journaled in this file instead of the database. */
  fileJournal?: FileJournal;
}): JournalProcessor {
  const queue: QueuedRequest[] = [];
  const fileJournal = deps.fileJournal;
  const retryDelay = deps.retryDelayMs ?? ((n) => Math.min(30_000, 200 * 2 ** n));
  let running: Promise<void> | null = null;
  let stopping = false;
  let draining = false;
  let lastError: string | null = null;
  let idleWaiters: (() => void)[] = [];

  const settleIdle = () => {
    if (queue.length || running || draining) return;
    // Everything acknowledged is committed: the file journal can be emptied.
    fileJournal
      ?.truncateIfDrained()
      .catch((err) => deps.logger.error({ msg: "journal truncation failed", error: err }));
    for (const w of idleWaiters) w();
    idleWaiters = [];
  };

  /** File records are imported under their key (idempotent), journal rows processed by id. */
  async function processOne(entry: QueuedRequest): Promise<IngestOutcome> {
    if (!("key" in entry)) return deps.ingestor.processJournalEntry(entry);
    const outcome = await deps.ingestor.importRequest(entry.path, entry.body, entry.key);
    fileJournal?.markProcessed(entry.key);
    return outcome;
  }

  async function run(): Promise<void> {
    while (queue.length && !stopping) {
      const entry = queue[0];
      for (let attempt = 0; !stopping; attempt++) {
        try {
          const outcome = await processOne(entry);
          deps.onOutcome?.(outcome);
          lastError = null;
          break;
        } catch (err) {
          lastError = errorMessage(err);
          deps.logger.error({
            msg: "block processing failed; will retry",
            journal: "key" in entry ? entry.key : entry.id,
            attempt,
            error: err,
          });
          await new Promise((r) => setTimeout(r, retryDelay(attempt)));
        }
      }
      if (!stopping) queue.shift();
    }
  }

  const kick = () => {
    if (running || draining || stopping) return;
    running = run().finally(() => {
      running = null;
      if (queue.length && !stopping) kick();
      else settleIdle();
    });
  };

  return {
    enqueue(entry) {
      queue.push(entry);
      kick();
    },
    async start() {
      draining = true;
      try {
        const n = await deps.ingestor.drainPending(deps.onOutcome);
        if (n) deps.logger.info({ msg: "recovered pending journal entries", count: n });
        if (fileJournal) {
          // Acknowledged before the last stop; the ones already committed are skipped by key.
          const records = fileJournal.readAll();
          for (const r of records) {
            // Not `onOutcome?.(await processOne(r))`: without a listener that skips the call's
            // argument too, and the record would never be processed.
            const outcome = await processOne(r);
            deps.onOutcome?.(outcome);
          }
          if (records.length) deps.logger.info({ msg: "recovered journaled requests", count: records.length });
          await fileJournal.truncateIfDrained();
        }
      } finally {
        draining = false;
      }
      // Entries journaled while draining were seen by drainPending too; processing one twice is a
      // no-op (the block is already stored).
      kick();
      settleIdle();
    },
    async stop() {
      stopping = true;
      await running;
    },
    idle() {
      if (!queue.length && !running && !draining) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    get backlog() {
      return queue.length;
    },
    get lastError() {
      return lastError;
    },
  };
}
