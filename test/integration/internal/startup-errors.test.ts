/**
 * Start-up failures of the service process: a port in use names API_PORT or OBSERVER_PORT and
 * fails before the database is opened or migrated; an unreachable DATABASE_URL is named with its
 * host:port (never its password). Exit 1, one line, no stack trace.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, startServiceProcess } from "../../support/cli.js";
import { TEST_DB_KIND, createPgDatabase } from "../../support/db.js";

/** A port something else listens on, for as long as the test holds it. */
async function busyPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return { port, release: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A port nothing listens on (bound once, then released). */
async function closedPort(): Promise<number> {
  const busy = await busyPort();
  await busy.release();
  return busy.port;
}

/** The stderr of a service start that must fail: its exit code and what it printed. */
async function failedStart(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const err = await startServiceProcess(env, 60_000).then(
    (svc) => {
      svc.child.kill("SIGKILL");
      throw new Error("the service started");
    },
    (e: Error) => e,
  );
  const m = /^service exited with (\d+) before starting:\n([\s\S]*)$/.exec(err.message);
  if (!m) throw err;
  return { code: Number(m[1]), stderr: m[2] };
}

describe("service start-up errors", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-startup-"));
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** A fresh database for the configured driver, and whether anything was migrated into it. */
  async function target(name: string): Promise<{ env: Record<string, string>; migrated(): Promise<boolean> }> {
    if (TEST_DB_KIND === "postgres") {
      const created = await createPgDatabase();
      cleanups.push(created.drop);
      return {
        env: { DATABASE_URL: created.url },
        async migrated() {
          const c = new pg.Client({ connectionString: created.url });
          await c.connect();
          try {
            const { rows } = await c.query("SELECT 1 FROM pg_namespace WHERE nspname IN ('control', 'chain')");
            return rows.length > 0;
          } finally {
            await c.end();
          }
        },
      };
    }
    const dataDir = path.join(root, name);
    return { env: { DATA_DIR: dataDir }, migrated: async () => fs.existsSync(path.join(dataDir, "pgdata")) };
  }

  it.each([["API_PORT"], ["OBSERVER_PORT"]])(
    "%s in use: names it and the address, exits 1 before the database is touched",
    async (variable) => {
      const t = await target(variable);
      const busy = await busyPort();
      try {
        const res = await failedStart({ ...t.env, [variable]: String(busy.port) });
        expect(res.code).toBe(1);
        expect(res.stderr).toContain(`${variable}: 127.0.0.1:${busy.port} is already in use`);
        expect(res.stderr).toContain(`set ${variable} to a free port`);
        expect(res.stderr).not.toMatch(/\n\s+at /);
        expect(await t.migrated()).toBe(false);
      } finally {
        await busy.release();
      }
    },
  );

  it("DATABASE_URL unreachable: names it with host:port, not the password; exits 1", async () => {
    const port = await closedPort();
    const res = await failedStart({
      DATABASE_URL: `postgres://sluice:pw-not-to-print@127.0.0.1:${port}/sluice`,
      DATA_DIR: path.join(root, "unreachable"),
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`PostgreSQL at 127.0.0.1:${port} (DATABASE_URL): connection refused`);
    expect(res.stderr).not.toContain("pw-not-to-print");
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });

  it("sluice import explains an unreachable DATABASE_URL the same way", async () => {
    const port = await closedPort();
    const file = path.join(root, "empty.tsv");
    fs.writeFileSync(file, "");
    const res = await runCli(["import", file], {
      DATABASE_URL: `postgres://sluice:pw-not-to-print@127.0.0.1:${port}/sluice`,
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`PostgreSQL at 127.0.0.1:${port} (DATABASE_URL): connection refused`);
    expect(res.stderr).not.toContain("pw-not-to-print");
  });
});
