import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BundleFormatError, compressBundle, encodeBundle } from "../../../runtime/archive/bundle.js";
import { CHAIN_TABLES } from "../../../runtime/archive/chain-tables.js";
import type { PartitionPiece } from "../../../runtime/archive/partition-pieces.js";
import { startPartitionPreparer } from "../../../runtime/archive/partition-preparer.js";
import { PieceQueue, SendWindow } from "../../../runtime/archive/piece-flow.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("piece flow between threads", () => {
  it("the sender waits while more than the window is unacknowledged", async () => {
    const window = new SendWindow(10);
    const posted: number[] = [];
    let sent = 0;
    const sending = (async () => {
      for (const bytes of [4, 4, 4, 4]) {
        await window.send(bytes, () => posted.push(bytes));
        sent++;
      }
    })();
    await tick();
    // 4 + 4 + 4 = 12 > 10: the third send posted, then waits.
    expect(posted).toEqual([4, 4, 4]);
    expect(sent).toBe(2);
    window.acknowledge(4); // 8 left: room again
    await tick();
    expect(posted).toEqual([4, 4, 4, 4]);
    expect(sent).toBe(3);
    window.acknowledge(8);
    await sending;
    expect(window.inFlight).toBe(4);
  });

  it("the receiver yields pieces in order, acknowledges each taken, then ends or throws after them", async () => {
    const taken: number[] = [];
    const queue = new PieceQueue<string>((bytes) => taken.push(bytes));
    queue.put("a", 1);
    queue.put("b", 2);
    const got: string[] = [];
    const reading = (async () => {
      for await (const item of queue) got.push(item);
    })();
    await tick();
    expect(got).toEqual(["a", "b"]);
    expect(taken).toEqual([1, 2]);
    queue.put("c", 3);
    queue.end();
    queue.fail(new Error("after the end: ignored"));
    await reading;
    expect(got).toEqual(["a", "b", "c"]);

    const failing = new PieceQueue<string>(() => {});
    failing.put("x", 1);
    failing.fail(new Error("worker died"));
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const item of failing) seen.push(item);
      })(),
    ).rejects.toThrow("worker died");
    expect(seen).toEqual(["x"]);
  });
});

describe("partition preparer (worker thread)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-preparer-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const blocks = "0xaa\tb\t10\n0xbb\tb\t11\n";
  const content = {
    firstHeight: 10,
    lastHeight: 11,
    sections: CHAIN_TABLES.map((t) => ({
      table: t.name,
      rows: t.name === "chain.blocks" ? 2 : t.name === "chain.burn_blocks" ? 1 : 0,
      data: Buffer.from(t.name === "chain.blocks" ? blocks : t.name === "chain.burn_blocks" ? "0xcc\t5\n" : ""),
    })),
  };
  const payload = encodeBundle(content);
  const file = path.join(dir, "bundle.gz");
  fs.writeFileSync(file, compressBundle(payload));
  const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

  async function collect(pieces: AsyncIterable<PartitionPiece>) {
    const out: { kind: string; table?: string; text?: string; declared?: number }[] = [];
    let end: Extract<PartitionPiece, { kind: "end" }> | null = null;
    for await (const piece of pieces) {
      if (piece.kind === "section") out.push({ kind: "section", table: piece.table, declared: piece.declared });
      else if (piece.kind === "rows") out.push({ kind: "rows", text: Buffer.from(piece.chunk).toString() });
      else if (piece.kind === "partition") out.push({ kind: `partition ${piece.firstHeight}-${piece.lastHeight}` });
      else if (piece.kind === "end") end = piece;
      else out.push({ kind: piece.kind });
    }
    return { out, end };
  }

  it("hands over a bundle's sections in order with the file and content digests, partitions one after another", async () => {
    const preparer = startPartitionPreparer();
    try {
      const [first, second] = await Promise.all([
        collect(preparer.pieces({ file, bootstrap: false })),
        collect(preparer.pieces({ file, bootstrap: false })),
      ]);
      expect(first).toEqual(second);
      expect(first.out).toEqual([
        { kind: "partition 10-11" },
        { kind: "section", table: "chain.burn_blocks", declared: 1 },
        { kind: "rows", text: "0xcc\t5\n" },
        { kind: "section", table: "chain.blocks", declared: 2 },
        { kind: "rows", text: blocks },
        { kind: "section", table: "chain.transactions", declared: 0 },
        { kind: "section", table: "chain.events", declared: 0 },
      ]);
      expect(first.end).toEqual({ kind: "end", fileSha256: sha(fs.readFileSync(file)), contentSha256: sha(payload) });
    } finally {
      await preparer.close();
    }
  });

  it("fails a bad bundle with the reader's error, and the next partition still loads", async () => {
    const notGzip = path.join(dir, "not-gzip.gz");
    fs.writeFileSync(notGzip, "plain text");
    const truncated = path.join(dir, "truncated.gz");
    fs.writeFileSync(truncated, compressBundle(payload.subarray(0, payload.length - 10)));
    const preparer = startPartitionPreparer();
    try {
      await expect(collect(preparer.pieces({ file: notGzip, bootstrap: false }))).rejects.toMatchObject({
        code: expect.stringMatching(/^Z_/),
      });
      await expect(collect(preparer.pieces({ file: truncated, bootstrap: false }))).rejects.toBeInstanceOf(
        BundleFormatError,
      );
      expect((await collect(preparer.pieces({ file, bootstrap: false }))).end?.contentSha256).toBe(sha(payload));
    } finally {
      await preparer.close();
    }
  });

  it("after close, partitions not delivered fail with the reason", async () => {
    const preparer = startPartitionPreparer();
    await preparer.close(new Error("stopped"));
    await expect(collect(preparer.pieces({ file, bootstrap: false }))).rejects.toThrow("stopped");
  });
});
