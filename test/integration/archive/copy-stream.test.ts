/**
 * The streamed COPY both drivers give the archive (runtime/db `copyFromStream`, `copyToStream`):
 * rows fed in pieces cut anywhere — inside rows, across the PGlite driver's 8 MB batches — all
 * arrive once and unchanged, and (PostgreSQL) a streamed COPY TO gives the bytes a whole one does.
 * Expected rows are computed here from the generated text, not read back through the code under test.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DB_KIND, type TestDb, createTestDb } from "../../support/db.js";

/** Row i: an id, a text with a tab and a backslash escaped as COPY text wants, and some padding. */
const row = (i: number) => `${i}\tvalue\\t${i}\\\\x\t${"p".repeat(200 + (i % 97))}\n`;
const ROWS = 60_000; // about 17 MB: more than two of the PGlite driver's batches

describe(`streamed COPY (${TEST_DB_KIND})`, () => {
  let t: TestDb;
  const text = Buffer.from(Array.from({ length: ROWS }, (_, i) => row(i)).join(""));

  beforeAll(async () => {
    t = await createTestDb();
    await t.db.exec("CREATE SCHEMA copy_probe; CREATE TABLE copy_probe.rows (id int PRIMARY KEY, v text, pad text)");
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("loads every row once, whatever the pieces, in one transaction", { timeout: 120_000 }, async () => {
    // Pieces of an odd size: nearly every one cuts a row in two.
    function* pieces() {
      for (let at = 0; at < text.length; at += 1_000_003) yield text.subarray(at, at + 1_000_003);
    }
    const loaded = await t.db.transaction(async (q) => {
      if (!q.copyFromStream) throw new Error("no copyFromStream");
      return q.copyFromStream("COPY copy_probe.rows (id, v, pad) FROM STDIN", pieces());
    });
    expect(loaded).toBe(ROWS);
    const { rows } = await t.db.query<{ n: string; ids: string; vs: string }>(
      "SELECT count(*)::text AS n, sum(id)::text AS ids, md5(string_agg(v, ',' ORDER BY id)) AS vs FROM copy_probe.rows",
    );
    const values = Array.from({ length: ROWS }, (_, i) => `value\t${i}\\x`).join(",");
    expect(rows[0]).toEqual({
      n: String(ROWS),
      ids: String((ROWS * (ROWS - 1)) / 2),
      vs: createHash("md5").update(values).digest("hex"),
    });
  });

  it("a streamed COPY TO gives the bytes of the rows as they were fed", { timeout: 120_000 }, async () => {
    if (!t.db.copyToStream) {
      expect(TEST_DB_KIND).toBe("pglite"); // PGlite returns a COPY's output whole (copyTo)
      return;
    }
    const chunks: Buffer[] = [];
    const bytes = await t.db.copyToStream(
      "COPY (SELECT id, v, pad FROM copy_probe.rows ORDER BY id) TO STDOUT",
      (c) => {
        chunks.push(c);
      },
    );
    expect(bytes).toBe(text.length);
    expect(Buffer.concat(chunks).equals(text)).toBe(true);
  });
});
