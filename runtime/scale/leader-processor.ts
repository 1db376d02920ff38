/**
 * The journal processor of an `ingest` process (README "Running several processes"). Every ingest
 * process journals what the stacks-node posts to it into the shared control.journal, so the same
 * block is usually journaled once per process. Only the leader applies, and it applies the journal
 * itself rather than what it received: every pending row, whoever journaled it, in id order. A
 * block journaled twice is applied once (the second row finds it stored and is marked done), and a
 * new leader starts from the rows its predecessor acknowledged and did not apply.
 */
import type { IngestOutcome } from "../chain/hooks.js";
import { readPendingJournal } from "../chain/journal-store.js";
import type { Queryable } from "../db/types.js";
import { errorMessage } from "../internal/errors.js";
import type { Logger } from "../internal/logger.js";
import type { JournaledRequest, ObserverJournal } from "../observer/journal.js";
import { type JournalProcessor, processWithRetry } from "../observer/processor.js";
import type { IngestLeadership } from "./ingest-leadership.js";

const BATCH = 100;

export function createLeaderJournalProcessor(deps: {
  db: Queryable;
  journal: ObserverJournal;
  leadership: IngestLeadership;
  logger: Logger;
  onOutcome?: (o: IngestOutcome) => void;
  /** How often the leader looks for rows other processes journaled; default 250 ms. */
  pollMs?: number;
  retryDelayMs?: (attempt: number) => number;
}): JournalProcessor {
  const { journal, leadership, logger } = deps;
  const pollMs = deps.pollMs ?? 250;
  const retryDelay = deps.retryDelayMs ?? ((n) => Math.min(30_000, 200 * 2 ** n));
  let running: Promise<void> | null = null;
  let again = false;
  let stopping = false;
  let started = false;
  let backlog = 0;
  let lastError: string | null = null;
  let poll: NodeJS.Timeout | null = null;
  let idleWaiters: (() => void)[] = [];

  const applying = () => leadership.isLeader && !stopping;

  /** Applies pending rows in id order while this process leads. */
  async function drain(): Promise<void> {
    while (applying()) {
      const batch = await readPendingJournal(deps.db, BATCH);
      backlog = batch.length;
      if (batch.length === 0) return;
      for (const entry of batch) {
        if (!(await processOne(entry))) return;
        backlog--;
      }
    }
  }

  /** One row, retried with backoff; false when leadership (or the process) ended first. */
  const processOne = (entry: JournaledRequest) =>
    processWithRetry(entry, {
      journal,
      logger,
      onOutcome: deps.onOutcome,
      retryDelay,
      going: applying,
      noteError: (message) => {
        lastError = message;
      },
    });

  const kick = () => {
    if (!started || stopping) return;
    if (running) {
      again = true;
      return;
    }
    again = false;
    running = drain()
      .catch((err) => {
        // Reading the journal failed (the database is away): the next poll tries again.
        lastError = errorMessage(err);
        logger.error({ msg: "reading the journal failed", error: err });
      })
      .finally(() => {
        running = null;
        if (again && applying()) kick();
        else settleIdle();
      });
  };

  const settleIdle = () => {
    if (running) return;
    for (const w of idleWaiters) w();
    idleWaiters = [];
  };

  leadership.onChange((leader) => {
    if (leader) kick();
  });

  return {
    // The row is in the database already; the drain reads it from there, in id order.
    enqueue: () => kick(),
    async start() {
      started = true;
      kick();
      // Rows journaled by the other ingest processes arrive without a local enqueue.
      poll = setInterval(kick, pollMs);
      poll.unref();
    },
    async stop() {
      stopping = true;
      if (poll) clearInterval(poll);
      await running;
    },
    idle() {
      if (!running) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    get backlog() {
      return backlog;
    },
    get lastError() {
      return lastError;
    },
  };
}
