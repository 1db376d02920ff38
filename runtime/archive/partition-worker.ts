/**
 * Worker thread of an archive restore (partition-preparer.ts): prepares the partitions it is
 * given, one after another in the order given (partition-pieces.ts: read, gunzip, framing,
 * digests, event compaction, address rows), and posts their pieces to the thread that COPYs them,
 * at most WINDOW bytes ahead of what that thread took.
 */
import { parentPort } from "node:worker_threads";
import { BundleFormatError } from "./bundle.js";
import { type PartitionJob, type PartitionPiece, pieceBytes, preparePartition } from "./partition-pieces.js";
import { SendWindow } from "./piece-flow.js";

export type ToWorker = { kind: "job"; id: number; job: PartitionJob } | { kind: "ack"; bytes: number };
export type FromWorker =
  | { kind: "piece"; id: number; piece: PartitionPiece }
  | { kind: "done"; id: number }
  | { kind: "error"; id: number; format: boolean; message: string; code?: string };

/** Enough for a few COPY writes ahead; small beside a partition. */
const WINDOW = 8 << 20;

/** A chunk whose memory can be handed over whole (a view into a shared buffer is copied first). */
function ownChunk(chunk: Uint8Array): Uint8Array {
  if (chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength) return chunk;
  const copy = new Uint8Array(chunk.byteLength);
  copy.set(chunk);
  return copy;
}

const port = parentPort;
if (port) {
  const window = new SendWindow(WINDOW);
  const post = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  const prepare = (id: number, job: PartitionJob) =>
    preparePartition(job, async (piece) => {
      if (piece.kind === "rows" || piece.kind === "activity") {
        const chunk = ownChunk(piece.chunk);
        await window.send(chunk.byteLength, () =>
          post({ kind: "piece", id, piece: { ...piece, chunk } }, [chunk.buffer as ArrayBuffer]),
        );
      } else await window.send(pieceBytes(piece), () => post({ kind: "piece", id, piece }));
    }).then(
      () => post({ kind: "done", id }),
      (err: unknown) =>
        post({
          kind: "error",
          id,
          format: err instanceof BundleFormatError,
          message: (err as Error)?.message ?? String(err),
          code: typeof (err as { code?: unknown })?.code === "string" ? (err as { code: string }).code : undefined,
        }),
    );
  let queue: Promise<void> = Promise.resolve();
  port.on("message", (message: ToWorker) => {
    if (message.kind === "ack") window.acknowledge(message.bytes);
    else queue = queue.then(() => prepare(message.id, message.job));
  });
}
