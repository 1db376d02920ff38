/**
 * `sluice start --role` and ROLE: a value that is not a role, or a role other than `all` on the
 * embedded database, stops start-up with one clear line and exit code 2, never a stack trace; on
 * PostgreSQL, `--role api` starts the API alone (no observer port) and says so in GET /status.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, spawnCli } from "../../support/cli.js";
import { TEST_DB_KIND, createPgDatabase } from "../../support/db.js";

describe("sluice start --role", () => {
  it("refuses a value that is not a role", async () => {
    const r = await runCli(["start", "--role", "leader"], { DATABASE_URL: "", API_PORT: "0", OBSERVER_PORT: "0" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--role "leader" is not one of: all, api, ingest, dispatcher');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses ROLE=bogus from the environment", async () => {
    const r = await runCli(["start"], { ROLE: "bogus", DATABASE_URL: "", API_PORT: "0", OBSERVER_PORT: "0" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ROLE="bogus" is not one of: all, api, ingest, dispatcher');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses a role other than all on the embedded database", async () => {
    const r = await runCli(["start", "--role", "ingest"], { DATABASE_URL: "", API_PORT: "0", OBSERVER_PORT: "0" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("ROLE=ingest needs PostgreSQL (DATABASE_URL)");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it.skipIf(TEST_DB_KIND !== "postgres")(
    "--role api starts the API without an observer",
    async () => {
      const db = await createPgDatabase();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-start-role-"));
      const child = spawnCli(["start", "--role", "api"], {
        DATABASE_URL: db.url,
        API_PORT: "0",
        OBSERVER_PORT: "0",
        LOG_LEVEL: "info",
        LOG_FORMAT: "json",
        DATA_DIR: dataDir,
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      try {
        let err = "";
        const started = await new Promise<RegExpExecArray>((resolve, reject) => {
          child.stderr?.on("data", (d) => {
            err += d;
            const m = /"msg":"sluice started".*?"api":"([^"]+)".*?"observer":null.*?"role":"api"/.exec(err);
            if (m) resolve(m);
          });
          void exited.then((code) => reject(new Error(`exited with ${code}:\n${err}`)));
        });
        const status = (await (await fetch(`${started[1]}/status`)).json()) as {
          role: string;
          ingest: { leader: boolean };
        };
        expect(status.role).toBe("api");
        expect(status.ingest.leader).toBe(false);
        child.kill("SIGTERM");
        expect(await exited).toBe(0);
      } finally {
        child.kill("SIGKILL");
        await exited;
        await db.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
