/** The observer file journal (embedded database): durable records, torn tails, safe truncation. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openFileJournal, parseRecords } from "../../../runtime/observer/file-journal.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-fj-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("file journal", () => {
  it("reads back every appended record in order, with unique keys and exact bodies", async () => {
    const j = openFileJournal(path.join(root, "a"));
    const bodies = ['{"a":1}', "", "line\nbreak ✓", "x".repeat(100_000)];
    const keys: string[] = [];
    for (const b of bodies) keys.push((await j.append("/new_block", b)).key);
    expect(new Set(keys).size).toBe(bodies.length);
    expect(j.readAll()).toEqual(bodies.map((body, i) => ({ key: keys[i], path: "/new_block", body })));
    await j.close();
  });

  it("ignores a torn last record (never acknowledged)", () => {
    const rec = (key: string, body: string) =>
      `${JSON.stringify({ key, path: "/p", bytes: Buffer.byteLength(body) })}\n${body}\n`;
    const full = rec("k1", "hello") + rec("k2", "world");
    const torn = Buffer.from(full + rec("k3", "partial body").slice(0, 30));
    expect(parseRecords(torn).map((r) => r.key)).toEqual(["k1", "k2"]);
  });

  it("truncates only when every record was processed, and keeps records of a previous run", async () => {
    const dir = path.join(root, "b");
    const j = openFileJournal(dir);
    const a = await j.append("/new_block", "A");
    const b = await j.append("/new_block", "B");
    j.markProcessed(a.key);
    await j.truncateIfDrained();
    expect(j.readAll().map((r) => r.body)).toEqual(["A", "B"]);
    await j.close();
    // A restart sees B still pending; it stays until processed.
    const again = openFileJournal(dir);
    expect(again.readAll().map((r) => r.key)).toEqual([a.key, b.key]);
    again.markProcessed(a.key);
    await again.truncateIfDrained();
    expect(again.readAll()).toHaveLength(2);
    again.markProcessed(b.key);
    await again.truncateIfDrained();
    expect(again.readAll()).toEqual([]);
    await again.close();
  });
});
