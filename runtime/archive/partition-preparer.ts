/**
 * A restore's partitions prepared off the main thread (partition-worker.ts): the main thread only
 * writes the pieces to the database, so the node work of the partitions (about as much CPU as the
 * database's COPY of them) runs on the other core beside the COPYs. One worker for the restore:
 * partitions are prepared in the order asked, each loader taking its own partition's pieces.
 */
import { startModuleWorker } from "../internal/module-worker.js";
import { BundleFormatError } from "./bundle.js";
import { type PartitionJob, type PartitionPiece, pieceBytes } from "./partition-pieces.js";
import type { FromWorker, ToWorker } from "./partition-worker.js";
import { PieceQueue } from "./piece-flow.js";

export interface PartitionPreparer {
  /** The pieces of one partition, in order (partition-pieces.ts); consume them to the end. */
  pieces(job: PartitionJob): AsyncIterable<PartitionPiece>;
  /**
   * Stops the worker; partitions not fully delivered fail with `reason`. A loader that fails calls
   * it at once: the worker shares one window among partitions, and the pieces a failed loader
   * leaves untaken would hold it shut.
   */
  close(reason?: Error): Promise<void>;
}

/** What the worker threw, as the main thread's error handling expects it (BundleFormatError, zlib code). */
function workerError(m: Extract<FromWorker, { kind: "error" }>): Error {
  if (m.format) return new BundleFormatError(m.message);
  return Object.assign(new Error(m.message), m.code === undefined ? {} : { code: m.code });
}

const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

export function startPartitionPreparer(): PartitionPreparer {
  const worker = startModuleWorker(import.meta.url, "partition-worker");
  const send = (message: ToWorker) => worker.postMessage(message);
  const open = new Map<number, PieceQueue<PartitionPiece>>();
  let nextId = 0;
  let failure: Error | null = null;
  const failAll = (err: Error) => {
    failure ??= err;
    for (const queue of open.values()) queue.fail(failure);
    open.clear();
  };
  worker.on("message", (m: FromWorker) => {
    const queue = open.get(m.id);
    if (!queue) return;
    if (m.kind === "piece") {
      const piece =
        m.piece.kind === "rows" || m.piece.kind === "activity"
          ? { ...m.piece, chunk: asBuffer(m.piece.chunk) }
          : m.piece;
      queue.put(piece, pieceBytes(piece));
      return;
    }
    open.delete(m.id);
    if (m.kind === "done") queue.end();
    else queue.fail(workerError(m));
  });
  worker.on("error", (err) => failAll(new Error(`restore worker failed: ${err.message}`)));
  worker.on("exit", (code) => failAll(new Error(`restore worker exited (code ${code})`)));
  return {
    pieces(job) {
      const queue = new PieceQueue<PartitionPiece>((bytes) => send({ kind: "ack", bytes }));
      if (failure) queue.fail(failure);
      else {
        const id = nextId++;
        open.set(id, queue);
        send({ kind: "job", id, job });
      }
      return queue;
    },
    async close(reason) {
      failAll(reason ?? new Error("the restore stopped"));
      await worker.terminate();
    },
  };
}
