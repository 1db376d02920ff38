/**
 * The stacks-node event observer (DESIGN.md §2, §4): its port (server.ts), its app (app.ts), the
 * journal a request is stored in before it is acknowledged (journal.ts; database rows or a file),
 * and the processor that ingests journaled requests in order (processor.ts).
 */
import type { Ingestor } from "../chain/ingest.js";
import type { Logger } from "../internal/logger.js";
import { createDatabaseJournal } from "./database-journal.js";
import { createFileObserverJournal, openFileJournal } from "./file-journal.js";
import type { ObserverJournal } from "./journal.js";

export { createObserverActivity, type ObserverActivity } from "./activity.js";
export { createObserverApp, OBSERVER_PATHS } from "./app.js";
export { type ProcessedListener, reportProcessed } from "./processed-journal.js";
export type { ObserverJournal } from "./journal.js";
export { createJournalProcessor, type JournalProcessor } from "./processor.js";
export { listenObserver, type ObserverListener } from "./server.js";

/**
 * The journal: with `fileDir`, an fsynced file there (the embedded database, whose one connection
 * would make an acknowledgement wait for the block transaction in flight); otherwise journal rows
 * in the database.
 */
export function openObserverJournal(deps: { ingestor: Ingestor; logger: Logger; fileDir?: string }): ObserverJournal {
  if (deps.fileDir === undefined) return createDatabaseJournal(deps.ingestor, deps.logger);
  return createFileObserverJournal(openFileJournal(deps.fileDir), deps.ingestor, deps.logger);
}
