/**
 * `make run`'s entry point (`sluice dev`): starts on ephemeral ports with the simulator feeding its
 * own observer, serves the data it indexed over HTTP, and stops cleanly on SIGINT.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnCli } from "../support/cli.js";
import { TEST_DB_KIND } from "../support/db.js";
import { waitFor } from "../support/service.js";

describe.skipIf(TEST_DB_KIND !== "pglite")("sluice dev (make run)", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-dev-"));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it("indexes simulated blocks, answers over HTTP, and exits 0 on SIGINT", async () => {
    const child = spawnCli(["dev", "--rate", "5"], {
      NETWORK: "devnet",
      DATA_DIR: dataDir,
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
});
