/**
 * Where the observer keeps a request between acknowledging it and ingesting it (DESIGN.md §2
 * step 1). Every observer request takes the same route (app.ts → journal → processor.ts); only
 * the journal differs: rows of control.journal on PostgreSQL (database-journal.ts), an fsynced
 * file on the embedded database (file-journal.ts), whose single connection would otherwise make
 * an acknowledgement wait for the block transaction in flight.
 */
import type { IngestOutcome } from "../chain/hooks.js";
import type { JournalEntry } from "../chain/journal-store.js";

/** A record of the file journal: a request under its unique key. */
export interface FileJournalEntry {
  key: string;
  path: string;
  body: string;
}

/** A journaled request: a journal row (database) or a file record (embedded database). */
export type JournaledRequest = JournalEntry | FileJournalEntry;

export interface ObserverJournal {
  /** Stores a request durably; resolves once it may be acknowledged. */
  append(path: string, body: string): Promise<JournaledRequest>;
  /** Ingests one journaled request (its own transaction); throws when it is to be tried again. */
  process(entry: JournaledRequest): Promise<IngestOutcome>;
  /** Ingests, in order, what was journaled before the last stop and not processed (start-up). */
  recover(onOutcome?: (o: IngestOutcome) => void): Promise<void>;
  /** Every acknowledged request is committed: space may be reclaimed. */
  drained(): Promise<void>;
  close(): Promise<void>;
}

/** How logs name a journaled request. */
export function journalRef(entry: JournaledRequest): string {
  return "key" in entry ? entry.key : entry.id;
}
