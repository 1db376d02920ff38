/**
 * What this process has seen of the stacks-node feeding it (GET /api/node): requests per observer
 * path with the time of the last one, malformed payloads per path, and the last block it sent.
 * In memory, since the process started.
 */
import type { IngestOutcome } from "../chain/hooks.js";

export interface PathActivity {
  requests: number;
  last_request_at: string | null;
  malformed: number;
}

export interface ObserverActivity {
  /** An observer request arrived on `path` (journaled or not). */
  request(path: string): void;
  /** A request on `path` was processed with `outcome`. */
  processed(path: string | null, outcome: IngestOutcome): void;
  paths(): Record<string, PathActivity>;
  /** The last block the node sent (any fork-choice result), or null since the start. */
  lastBlock(): { height: number; index_block_hash: string; received_at: string } | null;
}

export function createObserverActivity(now: () => number = Date.now): ObserverActivity {
  const byPath = new Map<string, PathActivity>();
  let last: ReturnType<ObserverActivity["lastBlock"]> = null;
  const entry = (path: string) => {
    let a = byPath.get(path);
    if (a === undefined) {
      a = { requests: 0, last_request_at: null, malformed: 0 };
      byPath.set(path, a);
    }
    return a;
  };
  return {
    request(path) {
      const a = entry(path);
      a.requests++;
      a.last_request_at = new Date(now()).toISOString();
    },
    processed(path, outcome) {
      if (outcome.kind === "malformed" && path !== null) entry(path).malformed++;
      if (outcome.kind === "block") {
        last = {
          height: outcome.height,
          index_block_hash: outcome.indexBlockHash,
          received_at: new Date(now()).toISOString(),
        };
      }
    },
    paths() {
      return Object.fromEntries([...byPath].map(([p, a]) => [p, { ...a }]));
    },
    lastBlock() {
      return last;
    },
  };
}
