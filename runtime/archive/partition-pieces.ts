/**
 * The node side of loading one partition, apart from the database: read the bundle file (its
 * sha256 computed on the way), gunzip it, check its framing (bundle-reader.ts), store its events
 * compact (compact-event-rows.ts) and derive a bootstrap's address rows (address-activity-rows.ts).
 * What comes out is a sequence of pieces — the heights, then each section's header and COPY text,
 * the derived rows, and last the digests — that restore.ts turns into COPY statements in the
 * partition's transaction. Runs on a worker thread (partition-worker.ts) so that this work and the
 * COPY of the rows overlap on two cores; it writes nothing.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { AddressActivityRows } from "./address-activity-rows.js";
import { readBundle } from "./bundle-reader.js";
import type { ChainTable } from "./chain-tables.js";
import { compactEventRows } from "./compact-event-rows.js";
import { hashing } from "./partition-export.js";

export interface PartitionJob {
  file: string;
  /** A bootstrap's partitions carry their derived address rows. */
  bootstrap: boolean;
}

export type PartitionPiece =
  /** First: the heights the bundle says it holds (the consumer compares them with the manifest). */
  | { kind: "partition"; firstHeight: number; lastHeight: number }
  /** A section begins; the `rows` pieces up to the next header are its COPY text. */
  | { kind: "section"; table: ChainTable["name"]; declared: number }
  | { kind: "rows"; chunk: Uint8Array }
  /** A bootstrap's chain.address_activity rows (ADDRESS_ACTIVITY_COLUMNS), after every section. */
  | { kind: "activity"; chunk: Uint8Array }
  /** Last, once every byte was read and the framing checked. */
  | { kind: "end"; fileSha256: string; contentSha256: string };

/** The bytes a piece holds (what bounds the pieces in flight). */
export const pieceBytes = (piece: PartitionPiece): number =>
  piece.kind === "rows" || piece.kind === "activity" ? piece.chunk.byteLength : 64;

/**
 * Reads the bundle in `job.file` and hands its pieces to `emit` in order, waiting on each (that is
 * the backpressure). Throws BundleFormatError on bad framing, a zlib error (code Z_…) on bad gzip.
 */
export async function preparePartition(
  job: PartitionJob,
  emit: (piece: PartitionPiece) => Promise<void> | void,
): Promise<void> {
  const fileHash = createHash("sha256");
  const activity = job.bootstrap ? new AddressActivityRows() : null;
  const raw = hashing(fs.createReadStream(job.file, { highWaterMark: 1 << 20 }), fileHash);
  const read = await readBundle(Readable.from(raw).pipe(createGunzip({ chunkSize: 1 << 18 })), {
    partition: (firstHeight, lastHeight) => emit({ kind: "partition", firstHeight, lastHeight }),
    async section(table, declared, data) {
      await emit({ kind: "section", table: table.name, declared });
      let rows: AsyncIterable<Buffer> | Buffer[] = data;
      if (table.name === "chain.blocks") {
        // Whole: the address rows need every block before the transactions, and a backfill
        // deletes the blocks it replaces (by hash) before their COPY.
        const chunks: Buffer[] = [];
        for await (const c of data) chunks.push(c);
        const blocks = Buffer.concat(chunks);
        activity?.addBlocks(blocks);
        rows = [blocks];
      } else if (table.name === "chain.events")
        rows = compactEventRows(data, activity ? (f) => activity.eventRow(f) : undefined);
      else if (table.name === "chain.transactions" && activity) rows = activity.transactions(data);
      for await (const chunk of rows) if (chunk.length > 0) await emit({ kind: "rows", chunk });
    },
  });
  const derived = activity?.rows();
  if (derived?.length) await emit({ kind: "activity", chunk: derived });
  await emit({ kind: "end", fileSha256: fileHash.digest("hex"), contentSha256: read.contentSha256 });
}
