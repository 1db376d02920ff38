/**
 * A journal that reports each request it processes and how long it took: the hook the service
 * uses for ingestion metrics and the observer activity, with no change to the processor.
 */
import type { IngestOutcome } from "../chain/hooks.js";
import type { ObserverJournal } from "./journal.js";

/** `path` is null for requests recovered at start-up; `seconds` is null there too. */
export type ProcessedListener = (path: string | null, outcome: IngestOutcome, seconds: number | null) => void;

export function reportProcessed(journal: ObserverJournal, listener: ProcessedListener): ObserverJournal {
  return {
    append: (path, body) => journal.append(path, body),
    async process(entry) {
      const start = process.hrtime.bigint();
      const outcome = await journal.process(entry);
      listener(entry.path, outcome, Number(process.hrtime.bigint() - start) / 1e9);
      return outcome;
    },
    recover: (onOutcome) =>
      journal.recover((outcome) => {
        listener(null, outcome, null);
        onOutcome?.(outcome);
      }),
    drained: () => journal.drained(),
    close: () => journal.close(),
  };
}
