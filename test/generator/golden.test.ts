/**
 * Golden cases (STYLE.md "Tests": a case is a folder): test/golden/<case>/spec.yaml with either
 * error.txt (the exact `file:line:col: message` lines) or expected/ (every artifact; `.ts` files
 * are stored as `.ts.txt` so the repository type-check skips them). Update with `vitest -u` and
 * review the diff like code.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateSubgraph, modelSpec } from "../../generator/generate.js";
import { REPO_ROOT } from "../../generator/repo-paths.js";
import { formatSpecError } from "../../generator/spec-error.js";

const GOLDEN_DIR = join(REPO_ROOT, "test", "golden");
const cases = readdirSync(GOLDEN_DIR)
  .filter((name) => existsSync(join(GOLDEN_DIR, name, "spec.yaml")))
  .sort();

/** The name an artifact is stored under in expected/. */
function expectedName(artifact: string): string {
  return artifact.endsWith(".ts") ? `${artifact}.txt` : artifact;
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
    if (existsSync(join(dir, "expected"))) {
      it(`${name} → expected/`, async () => {
        if (!result.ok) throw new Error(result.errors.map(formatSpecError).join("\n"));
        const files = await generateSubgraph(result.model);
        const names: string[] = [];
        for (const [path, contents] of files) {
          const stored = expectedName(path.slice(path.indexOf("/") + 1));
          names.push(stored);
          await expect(contents).toMatchFileSnapshot(join(dir, "expected", stored));
        }
        expect(readdirSync(join(dir, "expected")).sort()).toEqual(names.sort());
      });
    } else {
      it(`${name} → error.txt`, async () => {
        expect(result.ok).toBe(false);
        const lines = result.ok ? "" : `${result.errors.map(formatSpecError).join("\n")}\n`;
        await expect(lines).toMatchFileSnapshot(join(dir, "error.txt"));
      });
    }
  }
});
