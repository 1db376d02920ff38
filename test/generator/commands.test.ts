/**
 * The CLI edge (DESIGN.md §1 entry points): `subgraphs validate <file>` and `generate [--check]`
 * through commander, plus the standalone `generator/main.ts` the Makefile runs.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { type CommandOutput, registerGeneratorCommands } from "../../generator/commands.js";
import { REPO_ROOT } from "../../generator/repo-paths.js";

function capture(): CommandOutput & { stdout: string; stderr: string } {
  const sink = {
    stdout: "",
    stderr: "",
    out: (text: string) => {
      sink.stdout += text;
    },
    err: (text: string) => {
      sink.stderr += text;
    },
  };
  return sink;
}

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = capture();
  const program = new Command("sluice").exitOverride();
  registerGeneratorCommands(program, output);
  const previous = process.exitCode;
  process.exitCode = 0;
  try {
    await program.parseAsync(args, { from: "user" });
    return { code: Number(process.exitCode ?? 0), stdout: output.stdout, stderr: output.stderr };
  } finally {
    process.exitCode = previous;
  }
}

describe("sluice subgraphs validate", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-validate-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("prints ok for a valid spec", async () => {
    expect(await run(["subgraphs", "validate", join(REPO_ROOT, "specs", "bns-names.yaml")])).toEqual({
      code: 0,
      stdout: "ok\n",
      stderr: "",
    });
  });

  it("prints file:line:col: message per error and exits 1", async () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(
      file,
      "name: x\nversion: 1.0.0\ndescription: d\nsources: { s: { type: stx_mnt } }\ntables: { t: { columns: { a: { type: text } } } }\nhandlers: {}\n",
    );
    expect(await run(["subgraphs", "validate", file])).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `${file}:4:23: unknown source type "stx_mnt" (did you mean "stx_mint"?); expected one of: contract_call, contract_deploy, ` +
        "ft_transfer, ft_mint, ft_burn, nft_transfer, nft_mint, nft_burn, stx_transfer, stx_mint, stx_burn, stx_lock, print_event, " +
        "tx_fee, miner_reward\n",
    });
  });

  it("reports an unreadable file", async () => {
    const result = await run(["subgraphs", "validate", join(dir, "missing.yaml")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("missing.yaml: cannot read:");
  });
});

describe("sluice generate", () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-generate-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("--check fails on a stale directory, generate fixes it, --check passes", async () => {
    const stale = await run(["generate", "--check", "--dir", dir]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("missing: ");
    expect(stale.stderr).toContain("run make generate and commit");
    const written = await run(["generate", "--dir", dir]);
    expect(written.code).toBe(0);
    expect(written.stdout.split("\n")).toContain("wrote bns-names/routes.ts");
    expect(await run(["generate", "--check", "--dir", dir])).toMatchObject({ code: 0, stderr: "" });
  });
});

describe("generator/main.ts", () => {
  it("checks the committed generated/ standalone (what make check runs)", () => {
    const tsx = join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs");
    const stdout = execFileSync(process.execPath, [tsx, join(REPO_ROOT, "generator", "main.ts"), "--check"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    expect(stdout).toBe("generated/ is up to date\n");
  });
});
