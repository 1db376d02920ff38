/**
 * Decoding of import batches off the main thread (decode-worker.ts). One worker, batches answered
 * in order; a worker that cannot start or dies fails the batches waiting on it (the import then
 * stops with that error: nothing half-imported is committed, and a re-run skips what was).
 */
import { startModuleWorker } from "../internal/module-worker.js";
import type { DecodeResult } from "../chain/decode-request.js";

export interface DecodeRequest {
  id: number;
  items: readonly { path: string; body: string }[];
}

export interface DecodeResponse {
  id: number;
  results: DecodeResult[];
}

export interface BatchDecoder {
  decode(items: readonly { path: string; body: string }[]): Promise<DecodeResult[]>;
  close(): Promise<void>;
}

/** Decodes on the calling thread (tests, or where a worker is not wanted). */
export function inlineDecoder(decode: (path: string, body: string) => DecodeResult): BatchDecoder {
  return {
    decode: async (items) => items.map((item) => decode(item.path, item.body)),
    close: async () => {},
  };
}

/**
 * Decoding allocates a great deal that dies young (JSON, wire objects): a larger young generation
 * than V8's default makes fewer scavenges and promotes less (measured: several percent of the
 * import's CPU).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 96 };

/** Starts the worker; resolves once it has loaded and answered, so a started decoder is ready. */
export async function startWorkerDecoder(): Promise<BatchDecoder> {
  const worker = startModuleWorker(import.meta.url, "decode-worker", { resourceLimits: WORKER_LIMITS });
  const waiting = new Map<number, { resolve: (r: DecodeResult[]) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let failure: Error | null = null;
  const failAll = (err: Error) => {
    failure = err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  worker.on("message", (response: DecodeResponse) => {
    const w = waiting.get(response.id);
    waiting.delete(response.id);
    w?.resolve(response.results);
  });
  worker.on("error", (err) => failAll(new Error(`decode worker failed: ${err.message}`)));
  worker.on("exit", (code) => {
    if (waiting.size) failAll(new Error(`decode worker exited (code ${code})`));
  });
  const decoder: BatchDecoder = {
    decode(items) {
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, items } satisfies DecodeRequest);
      });
    },
    async close() {
      await worker.terminate();
    },
  };
  try {
    await decoder.decode([]);
  } catch (err) {
    await decoder.close();
    throw err;
  }
  return decoder;
}
