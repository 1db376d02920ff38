/**
 * Generated TypeScript compiles (STYLE.md: "tsc --noEmit over generated/"; openapi-typescript's
 * test:examples). Runs tsc as a child process over a scratch copy holding generated/ (plus the
 * golden all-operations case) and the runtime files it imports, so other modules' work in
 * progress cannot break or hide it.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GENERATED_DIR, REPO_ROOT } from "../../generator/repo-paths.js";

const RUNTIME_FILES = [
  "runtime/subgraphs/types.ts",
  "runtime/chain/types.ts",
  "runtime/db/types.ts",
  "runtime/sdk/fetch-client.ts",
];

describe("generated TypeScript", () => {
  mkdirSync(join(REPO_ROOT, ".tmp"), { recursive: true });
  const scratch = mkdtempSync(join(REPO_ROOT, ".tmp", "typecheck-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("type-checks under the repository's strict compiler options", () => {
    for (const file of RUNTIME_FILES) cpSync(join(REPO_ROOT, file), join(scratch, file));
    cpSync(GENERATED_DIR, join(scratch, "generated"), { recursive: true });
    const golden = join(REPO_ROOT, "test", "golden", "all-operations", "expected");
    for (const name of ["routes.ts", "client.ts"]) {
      const target = join(scratch, "generated", "golden-all-operations", name);
      mkdirSync(join(target, ".."), { recursive: true });
      writeFileSync(target, readFileSync(join(golden, `${name}.txt`), "utf8"));
    }
    // A usage file: the client and the registry are usable with their declared types.
    writeFileSync(
      join(scratch, "usage.ts"),
      [
        'import { subgraphs } from "./generated/index.js";',
        'import { createAssetHoldingsClient, type HoldingsRow } from "./generated/asset-holdings/client.js";',
        'const client = createAssetHoldingsClient({ baseUrl: "http://127.0.0.1:3800" });',
        'export const page = client.holdings.listTableRows({ _limit: 10, "amount.gt": "0", _order: "desc" });',
        "export const rows: Promise<HoldingsRow[]> = page.then((p) => p.rows);",
        "export const names: string[] = subgraphs.map((s) => s.name);",
        "export const url: string = client.holdings.streamTableRowsUrl({ since: 5 });",
        "",
      ].join("\n"),
    );
    const base = JSON.parse(readFileSync(join(REPO_ROOT, "tsconfig.json"), "utf8")) as { compilerOptions: object };
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { ...base.compilerOptions, noEmit: true, rootDir: ".", noUnusedLocals: true },
        include: ["**/*.ts"],
      }),
    );
    const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    let output = "";
    try {
      execFileSync(process.execPath, [tsc, "-p", join(scratch, "tsconfig.json")], { encoding: "utf8" });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output).toBe("");
  });
});
