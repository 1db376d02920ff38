/** `sluice archive …`: every command has --help; bad input is a one-line error with a non-zero exit. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";

describe("sluice archive CLI", () => {
  it("every command has --help", async () => {
    const top = await runCli(["archive", "--help"], {});
    expect(top.code).toBe(0);
    for (const cmd of ["publish", "serve", "bootstrap", "backfill", "repair", "verify"]) {
      expect(top.stdout).toContain(cmd);
      const help = await runCli(["archive", cmd, "--help"], {});
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
