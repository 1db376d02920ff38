/**
 * The package's `exports` map (README "SDK"): every entry names a file the build emits (its
 * `default` is dist/<source>.js, its `types` dist/<source>.d.ts, and the build emits
 * declarations), and `import … from "sluice/sdk"` resolves through it: checked by importing each
 * entry through the package's self-reference with the map's `source` condition (no build needed).
 * Every `from "sluice/…"` in README resolves too.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/fixtures.js";

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
  exports: Record<string, string | { types: string; source: string; default: string }>;
  files: string[];
};
const build = JSON.parse(readFileSync(path.join(REPO_ROOT, "tsconfig.build.json"), "utf8"));

describe("package exports", () => {
  it("map each entry onto the build's output of a source file, with declarations emitted", () => {
    expect(build.compilerOptions.declaration).toBe(true);
    expect(pkg.files).toContain("dist/");
    const entries = Object.entries(pkg.exports).filter(([k]) => k !== "./package.json");
    expect(entries.map(([k]) => k)).toEqual(expect.arrayContaining(["./sdk", "./sdk/webhook-receiver"]));
    for (const [key, target] of entries) {
      if (typeof target === "string") throw new Error(`${key}: expected conditions`);
      const source = target.source.replace(/^\.\//, "");
      expect(existsSync(path.join(REPO_ROOT, source)), key).toBe(true);
      expect(target.default, key).toBe(`./dist/${source.replace(/\.ts$/, ".js")}`);
      expect(target.types, key).toBe(`./dist/${source.replace(/\.ts$/, ".d.ts")}`);
    }
  });

  it("resolve `sluice/sdk` and every `sluice/…` import README shows, with the names it imports", async () => {
    const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
    const imports = [...readme.matchAll(/import \{([^}]+)\} from "(sluice\/[^"]+)"/g)].map((m) => ({
      // Type-only names (`type X`) have no runtime value to look for.
      names: m[1]
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n && !n.startsWith("type ")),
      specifier: m[2],
    }));
    expect(imports.map((i) => i.specifier)).toEqual(
      expect.arrayContaining(["sluice/sdk", "sluice/sdk/webhook-receiver"]),
    );
    const script = imports
      .map(
        (i, n) =>
          `const m${n} = await import(${JSON.stringify(i.specifier)}); for (const k of ${JSON.stringify(i.names)}) if (!(k in m${n})) throw new Error(${JSON.stringify(i.specifier)} + " lacks " + k);`,
      )
      .join("\n");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--conditions=source", "--input-type=module", "-e", `${script}\nconsole.log("resolved");`],
      { cwd: REPO_ROOT },
    );
    expect(stdout.trim()).toBe("resolved");
  });
});
