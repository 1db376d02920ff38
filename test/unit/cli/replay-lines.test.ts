/**
 * Lines of an event-replay file (runtime/cli/replay-tsv.ts splitLines) are the lines node:readline
 * gives for the same bytes, however the stream cuts them into chunks (line breaks, CRLF and
 * multi-byte characters split across chunks).
 */
import { Readable } from "node:stream";
import readline from "node:readline";
import { describe, expect, it } from "vitest";
import { splitLines } from "../../../runtime/cli/replay-tsv.js";

async function viaReadline(bytes: Buffer): Promise<string[]> {
  const out: string[] = [];
  const rl = readline.createInterface({ input: Readable.from([bytes]), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const l of rl) out.push(l);
  return out;
}

async function viaSplit(bytes: Buffer, cuts: number[]): Promise<string[]> {
  const chunks: Buffer[] = [];
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    chunks.push(bytes.subarray(at, c));
    at = c;
  }
  const out: string[] = [];
  for await (const l of splitLines(Readable.from(chunks))) out.push(l);
  return out;
}

/** A small deterministic generator (no Math.random: failures reproduce). */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("splitLines", () => {
  const pieces = ['1\t2026\t/new_block\t{"a":"é✓𝔘"}', "\n", "\r\n", "\r", "", "x", "\t", "\n\n", "é", "𝔘"];

  it("gives readline's lines for fixed cases", async () => {
    for (const text of ["a\nb", "a\r\nb\r\n", "a\rb\r", "\n\na", "a\r\r\nb", "é\n𝔘", ""]) {
      const bytes = Buffer.from(text);
      expect(await viaSplit(bytes, []), JSON.stringify(text)).toEqual(await viaReadline(bytes));
    }
  });

  it("gives readline's lines for random texts cut into random chunks", async () => {
    const random = prng(7);
    for (let n = 0; n < 300; n++) {
      let text = "";
      const count = 1 + Math.floor(random() * 12);
      for (let i = 0; i < count; i++) text += pieces[Math.floor(random() * pieces.length)];
      const bytes = Buffer.from(text);
      const cuts = Array.from({ length: Math.floor(random() * 4) }, () =>
        Math.floor(random() * (bytes.length + 1)),
      ).sort((a, b) => a - b);
      expect(await viaSplit(bytes, cuts), `${JSON.stringify(text)} cut at ${cuts}`).toEqual(await viaReadline(bytes));
    }
  });
});
