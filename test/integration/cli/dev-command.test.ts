/**
 * `make run`'s entry point (`sluice dev`): starts on ephemeral ports with the simulator feeding its
 * own observer, serves the data it indexed over HTTP, and stops cleanly on SIGINT.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnCli } from "../../support/cli.js";
import { TEST_DB_KIND } from "../../support/db.js";
import { waitFor } from "../../support/service.js";
import { scratchDir } from "../../support/scratch-dir.js";

describe.skipIf(TEST_DB_KIND !== "pglite")("sluice dev (make run)", () => {
  const dataDirDir = scratchDir("sluice-dev-");
  afterAll(() => dataDirDir.remove());

  it("indexes simulated blocks, answers over HTTP, and exits 0 on SIGINT", async () => {
    const child = spawnCli(["dev", "--rate", "5"], {
      NETWORK: "devnet",
      DATA_DIR: dataDirDir.path,
      API_PORT: "0",
      OBSERVER_PORT: "0",
      WEBHOOK_ALLOW_PRIVATE: "true",
      LOG_LEVEL: "warn",
    });
    let out = "";
    let err = "";
    child.stdout?.on("data", (d) => (out += d));
    child.stderr?.on("data", (d) => (err += d));
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    try {
      const apiUrl = await waitFor(() => /status\s+curl -s (http:\/\/127\.0\.0\.1:\d+)\/status/.exec(out)?.[1], {
        timeoutMs: 60_000,
      });
      const status = await waitFor(
        async () => {
          const s = (await (await fetch(`${apiUrl}/status`)).json()) as {
            tip: { block_height: number | null };
            counts: { canonical_events: number };
          };
          return (s.tip.block_height ?? 0) >= 3 ? s : null;
        },
        { timeoutMs: 60_000 },
      );
      expect(status.counts.canonical_events).toBeGreaterThan(0);
      expect((await fetch(`${apiUrl}/health`)).status).toBe(200);
    } finally {
      child.kill("SIGINT");
    }
    expect(await exited, err).toBe(0);
    expect(err).toMatch(/stopped\./);
  });

  it("with INSTANCE_TOKEN set, every printed curl command carries it (by name) and works as printed", async () => {
    const token = `dev-token-${Date.now()}`;
    const child = spawnCli(["dev", "--rate", "5"], {
      NETWORK: "devnet",
      DATA_DIR: path.join(dataDirDir.path, "with-token"),
      API_PORT: "0",
      OBSERVER_PORT: "0",
      WEBHOOK_ALLOW_PRIVATE: "true",
      LOG_LEVEL: "warn",
      INSTANCE_TOKEN: token,
    });
    let out = "";
    child.stdout?.on("data", (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    try {
      const commands = await waitFor(
        () => {
          const found = out.split("\n").filter((l) => /\bcurl -/.test(l));
          return /Ctrl-C stops/.test(out) && found.length ? found.map((l) => l.slice(l.indexOf("curl "))) : null;
        },
        { timeoutMs: 60_000 },
      );
      expect(commands.some((c) => c.includes("/status"))).toBe(true);
      expect(out).not.toContain(token);
      for (const command of commands) {
        expect(command).toContain('-H "authorization: Bearer $INSTANCE_TOKEN"');
        // Run as printed, in a shell where INSTANCE_TOKEN holds the token (SSE: cut after 2 s).
        const status = await new Promise<string>((resolve) =>
          execFile(
            "bash",
            ["-c", `${command} --max-time 2 -o /dev/null -w '%{http_code}'`],
            { env: { ...process.env, INSTANCE_TOKEN: token } },
            (_err, stdout) => resolve(stdout),
          ),
        );
        expect(status, command).toBe("200");
      }
    } finally {
      child.kill("SIGINT");
    }
    expect(await exited).toBe(0);
  });
});
