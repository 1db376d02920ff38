/**
 * A small unified-style line diff for `make check` (STYLE.md: "prints a diff"; sqlc's diff
 * command). LCS on lines, hunks with three lines of context.
 */

type Edit = { op: " " | "-" | "+"; text: string; oldLine: number; newLine: number };

const CONTEXT = 3;

/** `--- a` / `+++ b` / `@@ … @@` hunks; "" when equal. */
export function unifiedDiff(oldText: string, newText: string, oldName: string, newName: string): string {
  if (oldText === newText) return "";
  const edits = diffLines(oldText.split("\n"), newText.split("\n"));
  const lines = [`--- ${oldName}`, `+++ ${newName}`];
  for (const hunk of hunks(edits)) {
    const first = hunk[0];
    const oldCount = hunk.filter((e) => e.op !== "+").length;
    const newCount = hunk.filter((e) => e.op !== "-").length;
    lines.push(`@@ -${first.oldLine},${oldCount} +${first.newLine},${newCount} @@`);
    for (const edit of hunk) lines.push(`${edit.op}${edit.text}`);
  }
  return `${lines.join("\n")}\n`;
}

function diffLines(a: readonly string[], b: readonly string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  // lcs[i * (m + 1) + j] = LCS length of a[i..] and b[j..]
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] =
        a[i] === b[j]
          ? lcs[(i + 1) * (m + 1) + j + 1] + 1
          : Math.max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
    }
  }
  const edits: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      edits.push({ op: " ", text: a[i], oldLine: i + 1, newLine: j + 1 });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1])) {
      edits.push({ op: "-", text: a[i], oldLine: i + 1, newLine: j + 1 });
      i++;
    } else {
      edits.push({ op: "+", text: b[j], oldLine: i + 1, newLine: j + 1 });
      j++;
    }
  }
  return edits;
}

/** Groups changes with up to CONTEXT unchanged lines around them. */
function hunks(edits: readonly Edit[]): Edit[][] {
  const changed = edits.map((e, index) => (e.op === " " ? -1 : index)).filter((index) => index >= 0);
  const result: Edit[][] = [];
  let start = -1;
  let end = -1;
  for (const index of changed) {
    if (start >= 0 && index - CONTEXT <= end + CONTEXT) {
      end = index;
      continue;
    }
    if (start >= 0) result.push(edits.slice(Math.max(0, start - CONTEXT), end + CONTEXT + 1));
    start = index;
    end = index;
  }
  if (start >= 0) result.push(edits.slice(Math.max(0, start - CONTEXT), end + CONTEXT + 1));
  return result;
}
