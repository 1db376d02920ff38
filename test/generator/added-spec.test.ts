/**
 * The product's way of working keeps the suite green: a user adds a spec of their own to specs/ and
 * runs `make generate`. A scratch copy of the repository (node_modules linked, ../shared linked
 * beside it) gets a fifth spec — in a file not named after the subgraph — the generator's CLI
 * rewrites generated/ there, and the tests that enumerate specs/ or generated/ run in the copy:
 * every test file using test/support/spec-catalog.ts (the convention for such tests) and the
 * type-check of generated/. Tests about one built-in name it, so the rest of the suite does not
 * depend on how many specs there are.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the spec language writes ${expression} in plain strings
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../generator/repo-paths.js";
import { SNAPSHOT_DIR } from "../support/pglite-snapshot.js";

const USER_SPEC = `name: stx-transfers
version: 1.0.0
released: 2026-02-01
description: STX transfers with per-sender totals (a user's own spec).
sources:
  xfer:
    type: stx_transfer
tables:
  transfers:
    columns:
      sender: { type: principal, attributes: [indexed, searchable] }
      recipient: { type: principal, attributes: [indexed] }
      amount: { type: uint, attributes: [indexed] }
      at: { type: timestamp, attributes: [indexed] }
  senders:
    columns:
      sender: { type: principal, attributes: [indexed] }
      sent: { type: uint }
      transfers: { type: uint }
    uniqueKeys:
      - [sender]
handlers:
  xfer:
    - insert: transfers
      values:
        sender: \${event.sender}
        recipient: \${event.recipient}
        amount: \${event.amount}
        at: \${to_timestamp(block.time)}
    - increment: senders
      key:
        sender: \${event.sender}
      add:
        sent: \${event.amount}
        transfers: 1
`;

/** Top-level entries never copied: installed, built or scratch state. */
const NOT_COPIED = new Set(["node_modules", ".tmp", "dist", "data", ".git", "coverage", "test-results"]);
const THIS_FILE = "test/generator/added-spec.test.ts";
const TYPECHECK = "test/generator/typecheck.test.ts";

/** The test files of `root` that enumerate specs/ (they use the spec catalog), this one excepted. */
function enumeratingTests(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".test.ts") && readFileSync(path, "utf8").includes("support/spec-catalog.js"))
        found.push(relative(root, path).split("\\").join("/"));
    }
  };
  walk(join(root, "test"));
  return found.filter((file) => file !== THIS_FILE).sort();
}

/** Runs a command in `cwd`; the output comes back for the failure message. */
function run(cwd: string, args: string[]): { status: number | null; output: string } {
  // The child is a fresh vitest run, not a worker of this one; it starts its PGlite databases from
  // this repository's migrated snapshot (the migrations are the same). Its tests start no CLI or
  // service process: it transpiles no sources for them, and this run's copy (of other generated/
  // files) is not handed down.
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST") && key !== "SLUICE_TEST_JS_DIR"),
    ),
    SLUICE_TEST_SNAPSHOT_DIR: SNAPSHOT_DIR,
    SLUICE_TEST_TRANSPILE: "off",
  };
  const result = spawnSync(process.execPath, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

describe("a spec of one's own in specs/", () => {
  mkdirSync(join(REPO_ROOT, ".tmp"), { recursive: true });
  const scratch = mkdtempSync(join(REPO_ROOT, ".tmp", "added-spec-"));
  const copy = join(scratch, "repo");
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("after make generate, the tests that enumerate specs/ and generated/ pass with it", () => {
    for (const entry of readdirSync(REPO_ROOT))
      if (!NOT_COPIED.has(entry)) cpSync(join(REPO_ROOT, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(REPO_ROOT, "node_modules"), join(copy, "node_modules"), "dir");
    const shared = join(REPO_ROOT, "..", "shared");
    if (existsSync(shared)) symlinkSync(shared, join(scratch, "shared"), "dir");
    writeFileSync(join(copy, "specs", "my-transfers.yaml"), USER_SPEC);

    const generated = run(copy, ["--import", "tsx", "generator/main.ts"]);
    expect(generated.status, generated.output).toBe(0);
    expect(readFileSync(join(copy, "generated", "index.ts"), "utf8")).toContain("./stx-transfers/routes.js");

    const files = [...enumeratingTests(copy), TYPECHECK];
    expect(files).toEqual(expect.arrayContaining(["test/generator/drift.test.ts", "test/generator/openapi.test.ts"]));
    const vitest = join(REPO_ROOT, "node_modules", "vitest", "vitest.mjs");
    const tests = run(copy, [vitest, "run", ...files]);
    expect(tests.status, `vitest run ${files.join(" ")} in the copy:\n${tests.output.slice(-6000)}`).toBe(0);
  }, 600_000);
});
