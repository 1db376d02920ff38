/**
 * Golden cases (STYLE.md "Tests": a case is a folder): test/golden/<case>/spec.yaml with either
 * error.txt (the exact `file:line:col: message` lines) or expected/ (every artifact; `.ts` files
 * are stored as `.ts.txt` so the repository type-check skips them). A missing expected file fails
 * the case; `UPDATE_GOLDEN=1` writes them (a new case's, or changed ones) to be reviewed like code.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { generateSubgraph, modelSpec } from "../../generator/generate.js";
import { REPO_ROOT } from "../../generator/repo-paths.js";
import { formatSpecError } from "../../generator/spec-error.js";

const GOLDEN_DIR = join(REPO_ROOT, "test", "golden");
// Only an explicit request writes golden files: vitest would otherwise create a missing file
// snapshot and pass, so a new case would approve whatever the generator printed.
const UPDATE_GOLDEN = process.env.UPDATE_GOLDEN === "1";
const UPDATE_HINT = "run UPDATE_GOLDEN=1 npx vitest run test/generator/golden.test.ts and review the new files";

const cases = readdirSync(GOLDEN_DIR)
  .filter((name) => existsSync(join(GOLDEN_DIR, name, "spec.yaml")))
  .sort();

/** The name an artifact is stored under in expected/. */
function expectedName(artifact: string): string {
  return artifact.endsWith(".ts") ? `${artifact}.txt` : artifact;
}

/** Compares with the stored file, which must exist unless UPDATE_GOLDEN=1 (then it is written). */
async function expectGoldenFile(contents: string, file: string): Promise<void> {
  if (UPDATE_GOLDEN) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, contents);
  }
  expect(existsSync(file), `${relative(REPO_ROOT, file)} is missing: ${UPDATE_HINT}`).toBe(true);
  await expect(contents).toMatchFileSnapshot(file);
}

describe("golden cases", () => {
  it("has error cases and expected-output cases", () => {
    expect(cases.filter((c) => existsSync(join(GOLDEN_DIR, c, "error.txt"))).length).toBeGreaterThanOrEqual(12);
    expect(cases.filter((c) => existsSync(join(GOLDEN_DIR, c, "expected"))).length).toBeGreaterThanOrEqual(1);
  });

  for (const name of cases) {
    const dir = join(GOLDEN_DIR, name);
    const text = readFileSync(join(dir, "spec.yaml"), "utf8");
    const result = modelSpec({ file: "spec.yaml", text });
    const hasExpected = existsSync(join(dir, "expected"));
    const hasError = existsSync(join(dir, "error.txt"));
    if (!hasExpected && !hasError && !UPDATE_GOLDEN) {
      it(`${name} → error.txt or expected/`, () => {
        expect.fail(`test/golden/${name} has neither error.txt nor expected/: ${UPDATE_HINT}`);
      });
    } else if (hasExpected || (!hasError && result.ok)) {
      it(`${name} → expected/`, async () => {
        if (!result.ok) throw new Error(result.errors.map(formatSpecError).join("\n"));
        const files = await generateSubgraph(result.model);
        const names: string[] = [];
        for (const [path, contents] of files) {
          const stored = expectedName(path.slice(path.indexOf("/") + 1));
          names.push(stored);
          await expectGoldenFile(contents, join(dir, "expected", stored));
        }
        if (UPDATE_GOLDEN) {
          for (const stale of readdirSync(join(dir, "expected"))) {
            if (!names.includes(stale)) rmSync(join(dir, "expected", stale));
          }
        }
        expect(readdirSync(join(dir, "expected")).sort()).toEqual(names.sort());
      });
    } else {
      it(`${name} → error.txt`, async () => {
        expect(result.ok).toBe(false);
        const lines = result.ok ? "" : `${result.errors.map(formatSpecError).join("\n")}\n`;
        await expectGoldenFile(lines, join(dir, "error.txt"));
      });
    }
  }
});
