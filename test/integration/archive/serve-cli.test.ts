/**
 * `sluice archive serve` as a process: by default it opens the credits ledger and charges bundles
 * (GET /pricing says so, the credits API answers under /credits/, SIGTERM closes the ledger and
 * exits 0); ARCHIVE_FREE=true serves a free archive with no ledger; bad settings stop it with a
 * message and a non-zero exit.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, spawnCli } from "../../support/cli.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-archive-serve-"));
const archiveDir = path.join(root, "archive");
fs.mkdirSync(archiveDir, { recursive: true });
// The server only needs latest.json to exist to start; documents are served as stored.
fs.writeFileSync(path.join(archiveDir, "latest.json"), "{}");

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function serve(env: Record<string, string>) {
  const child = spawnCli(["archive", "serve", "--dir", archiveDir, "--port", "0"], env);
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  let out = "";
  let err = "";
  child.stderr?.on("data", (d) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (d) => {
      out += d;
      const m = /served at (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    void exited.then(() => reject(new Error(`serve exited: ${err}`)));
  });
  const stop = async () => {
    child.kill("SIGTERM");
    return exited;
  };
  return { url, out: () => out, stop };
}

describe("sluice archive serve", () => {
  it("charges by default: pricing, the credits API, a clean shutdown", { timeout: 60_000 }, async () => {
    const creditsDir = path.join(root, "credits");
    const s = await serve({
      DATA_DIR: path.join(root, "data"),
      ARCHIVE_CREDITS_DIR: creditsDir,
      ARCHIVE_UNIT_PRICE_CENTS: "7",
    });
    try {
      expect(await (await fetch(`${s.url}/pricing`)).json()).toEqual({ charged: true, unit_price_cents: 7 });
      const spec = await fetch(`${s.url}/credits/openapi.json`);
      expect(spec.status).toBe(200);
      const balance = await fetch(`${s.url}/credits/balance`);
      expect(balance.status).toBe(401);
      expect(((await balance.json()) as { code: string }).code).toBe("INVALID_CREDIT_KEY");
      expect(s.out()).toContain("bundles charged at 7 cents per price unit");
    } finally {
      expect(await s.stop()).toBe(0);
    }
    expect(fs.existsSync(creditsDir)).toBe(true);
  });

  it("ARCHIVE_FREE=true serves a free archive without a ledger", { timeout: 60_000 }, async () => {
    const creditsDir = path.join(root, "credits-free");
    const s = await serve({
      DATA_DIR: path.join(root, "data-free"),
      ARCHIVE_CREDITS_DIR: creditsDir,
      ARCHIVE_FREE: "true",
    });
    try {
      expect(await (await fetch(`${s.url}/pricing`)).json()).toEqual({ charged: false, unit_price_cents: 0 });
      expect((await fetch(`${s.url}/credits/balance`)).status).toBe(404);
      expect(s.out()).toContain("free: nothing charged");
    } finally {
      expect(await s.stop()).toBe(0);
    }
    expect(fs.existsSync(creditsDir)).toBe(false);
  });

  it("refuses bad settings with a message and a non-zero exit", { timeout: 60_000 }, async () => {
    const args = ["archive", "serve", "--dir", archiveDir, "--port", "0"];
    const badFree = await runCli(args, { DATA_DIR: root, ARCHIVE_FREE: "maybe" });
    expect(badFree.code).not.toBe(0);
    expect(badFree.stderr).toMatch(/ARCHIVE_FREE must be true or false/);
    const badPrice = await runCli(args, { DATA_DIR: root, ARCHIVE_UNIT_PRICE_CENTS: "1.5" });
    expect(badPrice.code).not.toBe(0);
    expect(badPrice.stderr).toMatch(/ARCHIVE_UNIT_PRICE_CENTS must be a whole number/);
  });
});
