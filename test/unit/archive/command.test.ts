/** `sluice archive …`: every command has --help; bad input is a one-line error with a non-zero exit. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Command, CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../../runtime/cli/commands.js";
import { runCli } from "../../support/cli.js";

/**
 * `sluice <args> --help` in this process: the program registered as main.ts registers it, its help
 * captured instead of printed and its exit thrown (subcommands inherit both).
 */
async function helpInProcess(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  const program = new Command("sluice")
    .exitOverride()
    .configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stdout += s) });
  await COMMANDS[args[0]].register(program);
  try {
    await program.parseAsync([...args, "--help"], { from: "user" });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    return { code: err.exitCode, stdout };
  }
  return { code: 0, stdout };
}

describe("sluice archive CLI", () => {
  it("every command has --help", async () => {
    // The group's help from the CLI process itself, each command's from the same registration in this one.
    const top = await runCli(["archive", "--help"], {});
    expect(top.code).toBe(0);
    for (const cmd of ["publish", "serve", "bootstrap", "backfill", "repair", "verify"]) {
      expect(top.stdout).toContain(cmd);
      const help = await helpInProcess(["archive", cmd]);
      expect(help.code, cmd).toBe(0);
      expect(help.stdout, cmd).toMatch(new RegExp(`Usage: sluice archive ${cmd}`));
    }
  });

  it("refuses bad input with a message and a non-zero exit", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-archive-cli-"));
    try {
      const env = { DATA_DIR: dir, ARCHIVE_URL: "" };
      const noArchive = await runCli(["archive", "verify"], env);
      expect(noArchive.code).toBe(1);
      expect(noArchive.stderr).toMatch(/no archive: pass --archive URL or set ARCHIVE_URL/);
      const badSpan = await runCli(["archive", "publish", "--out", dir, "--span", "0"], env);
      expect(badSpan.code).not.toBe(0);
      expect(badSpan.stderr).toMatch(/--span.*must be a whole number/);
      const badRange = await runCli(
        ["archive", "backfill", "--archive", "http://127.0.0.1:9", "--from", "9", "--to", "3"],
        env,
      );
      expect(badRange.code).toBe(1);
      expect(badRange.stderr).toMatch(/--from must not be above --to/);
      const empty = await runCli(["archive", "serve", "--dir", dir, "--port", "0"], env);
      expect(empty.code).toBe(1);
      expect(empty.stderr).toMatch(/no archive in .*latest\.json is missing/);
      const unreachable = await runCli(["archive", "bootstrap", "--archive", "http://127.0.0.1:9", "--yes"], env);
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
