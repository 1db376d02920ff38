/**
 * Serial processing of journaled observer requests (DESIGN.md §2): strictly in journal order, one
 * at a time. A malformed request is recorded as such by the ingestor and counts as processed
 * (runtime/chain/malformed.ts); any failure reaching here may pass, so the entry stays pending and
 * is retried with backoff: nothing acknowledged is skipped.
 */
import type { IngestOutcome } from "../chain/hooks.js";
import { errorMessage } from "../internal/errors.js";
import type { Logger } from "../internal/logger.js";
import { type JournaledRequest, journalRef, type ObserverJournal } from "./journal.js";

export interface JournalProcessor {
  /** Queues an entry that was just journaled (the observer's fast path). */
  enqueue(entry: JournaledRequest): void;
  /** Processes whatever is pending in the journal (start-up), then the queue. */
  start(): Promise<void>;
  /** Stops after the entry in flight; resolves when idle. */
  stop(): Promise<void>;
  /** Resolves once the queue is empty (tests, import). */
  idle(): Promise<void>;
  readonly backlog: number;
  readonly lastError: string | null;
}

/**
 * Processes one journaled entry, retrying with backoff until it is done (true) or `going()` turns
 * false (false). `noteError` hears each failure's message, and null on success.
 */
export async function processWithRetry(
  entry: JournaledRequest,
  deps: {
    journal: ObserverJournal;
    logger: Logger;
    onOutcome?: (o: IngestOutcome) => void;
    retryDelay: (attempt: number) => number;
    going: () => boolean;
    noteError: (message: string | null) => void;
  },
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    if (!deps.going()) return false;
    try {
      const outcome = await deps.journal.process(entry);
      deps.onOutcome?.(outcome);
      deps.noteError(null);
      return true;
    } catch (err) {
      deps.noteError(errorMessage(err));
      deps.logger.error({
        msg: "block processing failed; will retry",
        journal: journalRef(entry),
        attempt,
        error: err,
      });
      await new Promise((r) => setTimeout(r, deps.retryDelay(attempt)));
    }
  }
}

export function createJournalProcessor(deps: {
  journal: ObserverJournal;
  logger: Logger;
  onOutcome?: (o: IngestOutcome) => void;
  retryDelayMs?: (attempt: number) => number;
}): JournalProcessor {
  const queue: JournaledRequest[] = [];
  const journal = deps.journal;
  const retryDelay = deps.retryDelayMs ?? ((n) => Math.min(30_000, 200 * 2 ** n));
  let running: Promise<void> | null = null;
  let stopping = false;
  let draining = false;
  let lastError: string | null = null;
  let idleWaiters: (() => void)[] = [];

  const settleIdle = () => {
    if (queue.length || running || draining) return;
    // Everything acknowledged is committed: the journal may reclaim its space (the file is emptied).
    journal.drained().catch((err) => deps.logger.error({ msg: "journal truncation failed", error: err }));
    for (const w of idleWaiters) w();
    idleWaiters = [];
  };

  async function run(): Promise<void> {
    while (queue.length && !stopping) {
      await processWithRetry(queue[0], {
        journal,
        logger: deps.logger,
        onOutcome: deps.onOutcome,
        retryDelay,
        going: () => !stopping,
        noteError: (message) => {
          lastError = message;
        },
      });
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
        await journal.recover(deps.onOutcome);
      } finally {
        draining = false;
      }
      // Entries journaled while recovering may have been recovered too; processing one twice is a
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
