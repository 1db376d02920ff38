/**
 * The observer journal as control.journal rows (PostgreSQL, or a database the caller opened): a
 * request is committed as a pending row before it is acknowledged, then processed by id; rows
 * still pending at start are processed first.
 */
import type { IngestOutcome } from "../chain/hooks.js";
import type { Ingestor } from "../chain/ingest.js";
import type { Logger } from "../internal/logger.js";
import type { ObserverJournal } from "./journal.js";

export function createDatabaseJournal(ingestor: Ingestor, logger: Logger): ObserverJournal {
  return {
    async append(path, body) {
      return { id: await ingestor.journal(path, body), path, body };
    },
    process(entry) {
      if ("key" in entry) throw new Error(`not a journal row: ${entry.key}`);
      return ingestor.processJournalEntry(entry);
    },
    recover: (onOutcome) => recoverPendingRows(ingestor, logger, onOutcome),
    drained: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

/** Processes the journal rows left pending by the last stop, in id order. */
export async function recoverPendingRows(
  ingestor: Ingestor,
  logger: Logger,
  onOutcome?: (o: IngestOutcome) => void,
): Promise<void> {
  const n = await ingestor.drainPending(onOutcome);
  if (n) logger.info({ msg: "recovered pending journal entries", count: n });
}
